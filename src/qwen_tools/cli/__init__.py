"""The ``qwen-tools`` command line: one module per command.

* :mod:`.main` — argument parsing and dispatch (standard library only, so ``--help`` is fast);
  :mod:`.exit_codes` — the codes every command exits with;
* :mod:`.call_cmd`, :mod:`.tools_cmd`, :mod:`.serve_cmd`, :mod:`.run_cmd`, :mod:`.mcp_cmd`
  (with :mod:`.mcp_list`, :mod:`.mcp_approve`, :mod:`.mcp_reconnect`, :mod:`.mcp_auth`),
  :mod:`.rollout_cmd` — the commands; :mod:`.chat` — the interactive terminal session;
* :mod:`.context` — opening a :class:`~qwen_tools.Session` from a command's arguments (every
  command that runs or lists tools opens one);
* :mod:`.confirm`, :mod:`.render`, :mod:`.progress` — asking, printing and a spinner in the
  terminal; :mod:`.run_args`, :mod:`.run_output` — ``run``'s arguments and output formats;
* :mod:`.interrupts` — signals turned into a clean end of every process a command started.
"""
