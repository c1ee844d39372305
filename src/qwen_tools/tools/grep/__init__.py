"""`grep_search`: ripgrep's search with Qwen Code's answers.

* `tool` — the tool: parameters, validation, choosing the engine;
* `answer` — the output format and limits; `scope` — Qwen ignore files, order, duplicates;
* `ripgrep`, `rg_glob`, `rg_sandbox` — running the `rg` binary, confined by Landlock;
* `python_engine`, `walk_ignores`, `line_scan`, `worker`, `search_child` — the Python engine
  (no `rg`, or no Landlock): its walk, ignore rules and line matching, in a killable worker
  process;
* `regex_translate`, `regex_classes`, `unicode_sets` — ripgrep's regex syntax and Unicode
  classes translated to Python's `re`.
"""
