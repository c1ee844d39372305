"""``glob``: files matching a pattern, newest first.

* :mod:`.tool` — the tool: validation, sorting, the answer;
* :mod:`.params` — :class:`GlobParams`, the params as its schema declares them;
* :mod:`.walk` — the walk of the workspace through checked directory descriptors.
"""
