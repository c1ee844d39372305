"""What a session is configured with, and the `Config` that tools receive.

* settings: `settings` (the scopes of `settings.json`, merged as Qwen Code merges them),
  `tool_settings` (tools, approval mode, MCP servers), `web_settings`, `model_settings`,
  `legacy_keys`, `folder_trust`, `settings_edit` (writing a setting back);
* the workspace: `workspace` (the directories tools may touch), `ignore_rules` and
  `file_service` (`.gitignore`/`.qwenignore` filtering);
* `config` — `Config`: the immutable settings, the session's mutable state (`session`) and
  the services it owns (`services`).
"""
