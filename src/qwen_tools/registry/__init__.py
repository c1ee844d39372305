"""The tool registry: the tools a session offers, by name, and their declarations for each model API.

* :mod:`.registry` — :class:`ToolRegistry` (tools built on first use, MCP tools by server, deny
  rules);
* :mod:`.suggestions` — the reference's "not found" message with its "did you mean";
* :mod:`.exporters`, :mod:`.strict_schema` — declarations as OpenAI (plain and strict),
  Anthropic, Gemini and MCP want them.

Which tools a session registers is decided in :mod:`qwen_tools.session.default_registry`.
"""
