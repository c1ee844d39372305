"""``save_memory``: remember a fact in the context file (``QWEN.md`` by default), global or project.

* :mod:`.tool` — the tool: the confirmation with the file's diff, the write; :mod:`.params` —
  :class:`SaveMemoryParams`;
* :mod:`.memory_file` — where the memory file lives and how a fact is added to its memories
  section.
"""
