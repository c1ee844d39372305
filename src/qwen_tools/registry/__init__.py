"""The tool registry: the tools a session offers, by name, and their declarations for each model API.

* `registry` — `ToolRegistry` (lazy tools, MCP tools by server, deny rules);
* `suggestions` — the reference's "not found" message with its "did you mean";
* `exporters`, `strict_schema` — declarations as OpenAI (plain and strict), Anthropic, Gemini
  and MCP want them.

Which tools a session registers is decided in `qwen_tools.session.default_registry`.
"""
