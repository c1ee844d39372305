"""Helpers the file tools share.

* :mod:`.paths` — the one path check (trimmed, unescaped, absolute, inside the workspace, and
  the one refusal text), and paths resolved and shown as Node would;
* :mod:`.glob_patterns` — glob syntax as Qwen Code's glob library reads it;
* :mod:`.filtering` — :class:`FileFilteringParams`, the ``file_filtering_options`` param of
  ``list_directory`` and ``read_many_files``.
"""
