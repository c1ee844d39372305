"""`grep_search`: ripgrep's search with Qwen Code's answers.

* `tool` — the tool: parameters, validation, output format and limits;
* `ripgrep`, `rg_glob`, `rg_sandbox` — running the `rg` binary, confined by Landlock;
* `python_engine`, `worker`, `search_child` — the Python engine (no `rg`, or no Landlock),
  in a killable worker process;
* `regex_translate`, `regex_classes`, `unicode_sets` — ripgrep's regex syntax and Unicode
  classes translated to Python's `re`.
"""
