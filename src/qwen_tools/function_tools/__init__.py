"""Tools written as Python functions: the ``@tool`` decorator, ``FunctionTool``, ``ToolContext``.

``function_tool`` makes the tool from the signature and docstring, ``returns`` turns the return
value into what the model reads, ``running`` runs the function (timeouts, cancellation, worker
threads, ``check_cancelled``). Everything public here is exported from :mod:`qwen_tools`.
"""
