"""What a session is configured with, and the :class:`~qwen_tools.Config` that tools receive.

* settings: :mod:`.settings` (the scopes of ``settings.json``, merged as Qwen Code merges them),
  :mod:`.legacy_keys`, :mod:`.tool_settings` (tools, approval mode, MCP servers),
  :mod:`.web_settings`, :mod:`.model_settings`, :mod:`.folder_trust`, :mod:`.settings_edit`
  (writing a setting back);
* MCP servers beyond ``mcpServers``: :mod:`.project_mcp` (a project's ``.mcp.json``),
  :mod:`.mcp_approvals` (the approvals a gated server needs before it first runs);
* :mod:`.lsp_settings` — ``lsp.enabled`` and ``lspServers``;
* the workspace: :mod:`.workspace` (the directories tools may touch), :mod:`.ignore_rules` and
  :mod:`.file_service` (``.gitignore``/``.qwenignore`` filtering);
* :mod:`.config` — :class:`Config`: the immutable settings, the session's mutable state
  (:mod:`.session`) and the services it owns (:mod:`.services`).
"""
