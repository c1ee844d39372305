"""Tools written as Python functions: the ``@tool`` decorator, ``FunctionTool``, ``ToolContext``.

* :mod:`.function_tool` — ``@tool`` and :class:`FunctionTool`: the tool made from the
  function's signature and docstring;
* :mod:`.returns` — the return value turned into what the model reads (text, JSON, images);
* :mod:`.running` — running the function: timeouts, cancellation, worker threads,
  ``check_cancelled``;
* :mod:`.context` — :class:`ToolContext`: what the function may receive from the session.

Everything public here is exported from :mod:`qwen_tools`.
"""
