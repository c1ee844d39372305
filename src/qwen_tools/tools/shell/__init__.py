"""``run_shell_command``: the shell tool.

* :mod:`.tool` — the tool: validation, confirmation, foreground and background runs;
* :mod:`.result` — what the model reads of a run.

The shell engine (parsing, read-only analysis, execution, background shells) is
:mod:`qwen_tools.shell`.
"""
