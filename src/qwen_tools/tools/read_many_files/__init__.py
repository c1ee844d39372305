"""`read_many_files`: many files by path or glob in one answer. `tool` is the tool; `patterns` expands the paths and globs; `reader` reads each file within the budget."""
