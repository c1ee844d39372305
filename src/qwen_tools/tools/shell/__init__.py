"""``run_shell_command``: the shell tool.

* :mod:`.tool` — the tool: validation, confirmation, foreground and background runs;
* :mod:`.params` — :class:`ShellParams`, the params as its schema declares them;
* :mod:`.result` — what the model reads of a run.

The shell engine (parsing, read-only analysis, execution, background shells) is
:mod:`qwen_tools.shell`.
"""
