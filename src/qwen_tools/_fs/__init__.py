"""File-system services shared by the built-in tools.

* :mod:`.text_file` — decoding and encoding text files, remembering encoding, BOM and line endings
* :mod:`.atomic` — crash-safe replacement of a file's content
* :mod:`.read_cache` — the session's record of files read, and prior-read enforcement
* :mod:`.locks` — per-file async locks serialising read-modify-write cycles
* :mod:`.diff` — unified diffs and diff statistics shown to the user
* :mod:`.confined` — opening a path and checking the descriptor opened lies inside allowed roots
"""
