"""``read_many_files``: many files by path or glob in one answer.

* :mod:`.tool` — the tool: the answer and its limits; :mod:`.params` —
  :class:`ReadManyFilesParams`, the params as its schema declares them;
* :mod:`.patterns` — the paths and globs expanded in every workspace directory, exclusions
  applied;
* :mod:`.reader` — each file read through the ``read_file`` engine
  (:mod:`qwen_tools.tools.file_reading`), concurrently and within the budget.
"""
