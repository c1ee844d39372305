"""``write_file``: create a file or replace its whole content, keeping its on-disk format.

* :mod:`.tool` — the tool: validation, the prior-read checks, the confirmation, the write and
  reply;
* :mod:`.params` — :class:`WriteFileParams`, the params as its schema declares them;
* :mod:`.failures` — failed writes and checks worded as Qwen Code 0.24.4 words them;
* :mod:`.modify` — reading the current file inside the workspace, and the modify-with-editor
  hooks.
"""
