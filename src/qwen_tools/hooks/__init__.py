"""Hooks: the user's commands that Qwen Code 0.24.4 runs at points of a session.

* :mod:`.gate` — :func:`~.gate.hooks_for`: the session's hooks, or ``None`` when none is configured
  (then nothing else here is imported);
* :mod:`.settings` — the ``hooks`` settings (events, matchers, command hooks);
* :mod:`.matcher` — which hook definitions a tool name, source or reason selects;
* :mod:`.runner` — one command hook as a subprocess: the event JSON on stdin, a timeout, its process
  tree ended on every path, its exit code and output read as the reference reads them;
* :mod:`.output` — a hook's JSON output and the merge of several hooks' outputs;
* :mod:`.system` — firing an event: the common input fields, the matching hooks (in parallel or in
  order), the merged answer; fire-and-forget events are tracked and awaited when the session
  closes;
* :mod:`.events` — the events as the rest of the package uses them (PreToolUse decisions, texts).
"""
