"""Subagents the ``task`` tool can launch: their definitions, and the protocol a runner implements.

* :mod:`.protocol` — :class:`SubagentRunner`, with the request, progress and report it exchanges;
* :mod:`.definitions` — :class:`SubagentDefinition`, parsed from a Markdown file with YAML front
  matter (:mod:`.definition_yaml`) and checked as 0.24.4 checks it (:mod:`.definition_rules`);
* :mod:`.builtin_agents` — the subagents that exist without any file (``general-purpose``,
  ``Explore``).

Which definitions a session has (``.qwen/agents/*.md`` of the project and the user, then the
built-ins) is :mod:`qwen_tools.tools.task.catalog`; the runner itself (nested agent loops) is
:mod:`qwen_tools.agent.subagents`.
"""
