"""The agent loop: model turns, tool calls through the scheduler, context files, subagents."""
