"""``todo_write``: the session's todo list.

* :mod:`.tool` — the tool: the checks a list passes, the texts and reminders the model gets;
  :mod:`.params` — :class:`TodoWriteParams`;
* :mod:`.store` — each session's list on disk, as 0.24.4 keeps it.
"""
