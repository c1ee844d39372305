"""Tools written as Python functions: the ``@tool`` decorator, ``FunctionTool``, ``ToolContext``.

Everything here is exported from :mod:`qwen_tools`.
"""
