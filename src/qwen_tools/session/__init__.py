"""The session: one workspace's settings, registry, MCP servers and state, opened and closed once.

* :mod:`.session` — :class:`Session`, what every front end (``call``, ``serve``, ``run``,
  ``chat``) and the library open.
* :mod:`.named` — named sessions kept between commands (``qwen-tools call --session NAME``).

The tools' view of a session is :class:`~qwen_tools.function_tools.context.ToolContext`.
"""
