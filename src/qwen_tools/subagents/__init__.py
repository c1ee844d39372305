"""Subagents the `task` tool can launch: their definitions (built-in and from `.qwen/agents/*.md` files), and the protocol a runner implements.

* `protocol` — `SubagentRunner`, with the request, progress and report it exchanges;
* `definitions` — `SubagentDefinition`, parsed from a Markdown file with YAML front matter
  (`definition_yaml`) and checked as 0.24.4 checks it (`definition_rules`);
* `builtin_agents` — the subagents that exist without any file (`general-purpose`).

The runner itself (nested agent loops) lives in `qwen_tools.agent.subagents`.
"""
