"""``grep_search``: ripgrep's search with Qwen Code's answers.

* :mod:`.tool` — the tool: validation, choosing the engine; :mod:`.params` —
  :class:`GrepParams`, the params as its schema declares them;
* :mod:`.answer` — the output format and limits; :mod:`.scope` — Qwen ignore files, order,
  duplicates;
* :mod:`.ripgrep`, :mod:`.rg_glob`, :mod:`.rg_sandbox` — running the ``rg`` binary, confined by
  Landlock;
* :mod:`.python_engine`, :mod:`.walk_ignores`, :mod:`.line_scan`, :mod:`.worker`,
  :mod:`.search_child` — the Python engine (no ``rg``, or no Landlock): its walk, ignore rules
  and line matching, in a killable worker process;
* :mod:`.regex_translate`, :mod:`.regex_classes`, :mod:`.unicode_sets` — ripgrep's regex syntax
  and Unicode classes translated to Python's ``re``.
"""
