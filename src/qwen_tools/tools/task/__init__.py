"""`task`: launch a subagent.

* `tool` — the tool; `params` — its parameters; `request` — the request a runner gets
  (tools named by display name or alias resolved); `result`, `display` — what the model and
  the user see;
* `catalog` — the subagents a session knows (built-in, user and project definitions).
"""
