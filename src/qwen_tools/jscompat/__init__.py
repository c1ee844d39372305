"""What exists only to be exact to the reference, which runs on Node.js: JavaScript semantics in Python.

* :mod:`.jsjson` — ``JSON.stringify`` output (compact; numbers and lone surrogates as
  JavaScript writes them);
* :mod:`.jstext` — JavaScript's view of strings (``trim``, UTF-16 lengths and prefixes);
* :mod:`.v8_regex` — does ``new RegExp(pattern)`` accept a pattern, and V8's message when not;
* :mod:`.collation` — ``localeCompare`` ordering of names, as listings are sorted;
* :mod:`.jsonrepair`, :mod:`.jsonrepair_scalars` — the ``jsonrepair`` package's repair of
  malformed JSON (tool-call arguments from a model).
"""
