"""``task``: launch a subagent.

* :mod:`.tool` — the tool; :mod:`.params` — the checks its parameters pass; :mod:`.request` —
  the request a runner gets (tools named by display name or alias resolved); :mod:`.result`,
  :mod:`.display` — what the model and the user see;
* :mod:`.catalog` — the subagents a session knows (project, user and built-in definitions).
"""
