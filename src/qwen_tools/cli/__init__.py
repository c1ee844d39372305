"""The `qwen-tools` command line: one module per command, each opening a `Session`.

* `main` — argument parsing and dispatch (standard library only, so `--help` is fast);
  `exit_codes` — the codes every command exits with;
* `call_cmd`, `tools_cmd`, `serve_cmd`, `run_cmd`, `mcp_cmd` (+ `mcp_list`) — the commands;
  `chat/` — the interactive terminal session;
* `context` — settings and session options shared by the commands; `confirm`, `render`,
  `run_args`, `run_output` — asking, printing and `run`'s output formats;
* `interrupts` — signals turned into a clean end of every process a command started.
"""
