"""The agent loop: model turns, tool calls through the scheduler, context files, subagents.

* :mod:`.loop` — :class:`AgentLoop`: model turns and tool calls until the model answers without
  calling a tool; :mod:`.events` — what a loop reports, for UIs and logs;
* :mod:`.session` — :class:`AgentSession`: the model client lent to the session's tools, the
  system prompt, a factory of loops; :mod:`.stats` — the session's statistics;
* :mod:`.history`, :mod:`.request` — the conversation, each message encoded once, and the
  request bodies built around it;
* :mod:`.prompt`, :mod:`.context` — the system prompt and the context files (``QWEN.md``,
  ``AGENTS.md``); :mod:`.environment`, :mod:`.folder_structure` — the reminders that open a
  conversation;
* :mod:`.subagents` — :class:`LoopSubagentRunner`: nested loops for the ``task`` tool;
* :mod:`.hooks` — the agent's hook points: ``UserPromptSubmit``, ``Stop``, ``SubagentStop``.
"""
