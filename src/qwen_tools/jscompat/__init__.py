"""What exists only to be exact to the reference, which runs on Node.js: JavaScript semantics in Python.

* `jsjson` — `JSON.stringify` output (spacing, escapes, number formatting);
* `jstext` — JavaScript string operations (UTF-16 lengths, `trim`, line splitting);
* `v8_regex` — does `new RegExp(pattern)` accept a pattern, and V8's message when not;
* `collation` — `localeCompare` ordering of names, as listings are sorted;
* `jsonrepair`, `jsonrepair_scalars` — the `jsonrepair` package's repair of malformed JSON
  (tool-call arguments from a model).
"""
