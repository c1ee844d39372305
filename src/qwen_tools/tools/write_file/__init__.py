"""`write_file`: create a file or replace its whole content, keeping its on-disk format.

* `tool` — the tool: validation, the prior-read checks, the confirmation, the write and reply;
* `failures` — failed writes and checks worded as Qwen Code 0.24.4 words them;
* `modify` — reading the current file inside the workspace, and the modify-with-editor hooks.
"""
