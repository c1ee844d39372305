"""The session: one workspace's settings, registry, MCP servers and state, opened and closed once.

* :mod:`.session` — :class:`Session`, what every front end (``call``, ``serve``, ``run``,
  ``chat``) and the library open;
* :mod:`.named` — named sessions kept between commands (``qwen-tools call --session NAME``);
* :mod:`.default_registry` — the tools a session starts with: the built-ins (each built on first
  use), then the ``tools.discoveryCommand`` tools, as the settings allow;
* :mod:`.hook_events` — the ``SessionStart`` and ``SessionEnd`` hooks;
* :mod:`.template` — :class:`~.template.SessionTemplate`, many cheap sessions on one base
  session's settings (``serve``'s clients, one per request when stateless).

The tools' view of a session is :class:`~qwen_tools.function_tools.context.ToolContext`.
"""
