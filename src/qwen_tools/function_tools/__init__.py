"""Tools written as Python functions: the ``@tool`` decorator, ``FunctionTool``, ``ToolContext``.

* :mod:`.function_tool` — ``@tool`` and :class:`FunctionTool`: a plain function (sync or async)
  as a tool, its schema from the signature and docstring;
* :mod:`.context` — :class:`ToolContext`: what such a function may receive from the session
  running it.

Everything here is exported from :mod:`qwen_tools`.
"""
