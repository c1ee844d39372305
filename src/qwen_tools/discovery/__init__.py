"""Command-based tool discovery: ``tools.discoveryCommand`` declares tools, ``tools.callCommand`` runs them.

* :mod:`.command_discovery`: :func:`discover_command_tools` and its :class:`DiscoveryReport`;
* :mod:`.shared`: :class:`SharedDiscovery`, one run of the command for many sessions (serve's);
* :mod:`.discovered_tool`: :class:`DiscoveredTool`, the tool each declaration becomes;
* :mod:`.schema`: a declaration's parameters as JSON Schema;
* :mod:`.process`: running a command in its own process group, with stdin, caps and a timeout.
"""
