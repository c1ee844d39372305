"""File-system services shared by the built-in tools.

* :mod:`.text_file` — decoding and encoding text files, remembering encoding, BOM and line endings
* :mod:`.atomic` — crash-safe replacement of a file's content (confined to roots on request)
* :mod:`.write_target` — the real parent directory of a write, opened and checked; confined
  ``mkdir -p``
* :mod:`.temp_files` — temporary files of atomic writes: names, locks, removal of stale ones
* :mod:`.read_cache` — the session's record of files read, and prior-read enforcement
* :mod:`.locks` — per-file async locks serialising read-modify-write cycles
* :mod:`.diff` — unified diffs and diff statistics shown to the user
* :mod:`.confined` — opening a path and checking the descriptor opened lies inside allowed roots
"""
