"""Many tool sessions at once: a :class:`SessionPool` of Ray worker actors, each hosting many
:class:`~qwen_tools.Session` objects with a workspace of their own made from a template.

Needs the ``ray`` extra (``pip install 'qwen-tools[ray]'``) for the pool itself;
:class:`SessionHost` (the sessions of one process, which each worker wraps) works without it.

```python
pool = SessionPool(workers=4)  # on the Ray cluster ray.init() joined
template = Template.from_directory("repo/")
sid = pool.open(template, approval_mode="yolo")
done = pool.call(sid, "run_shell_command", {"command": "make test"})
print(done.response_text, pool.diff(sid))
pool.close(sid)
```

* :mod:`.pool` — :class:`SessionPool`: sessions spread over Ray worker actors;
  :mod:`.worker` — ``PoolWorker``, the body of one actor; :mod:`.coalesce` — concurrent calls
  to one worker sent as one Ray task; :mod:`.failures` — a dead worker told from a transient
  Ray error; :mod:`.guardian` — a worker's commands ended when it dies, even by ``SIGKILL``;
* :mod:`.host` — :class:`SessionHost`: the sessions of one process, each in a workspace of its
  own; :mod:`.workspace` — those workspaces (a copy per session, its changes as a diff);
* :mod:`.template` — :class:`Template`: what a session's workspace starts as;
* :mod:`.errors` — :class:`SessionLost`, :class:`WorkerUnavailable` and :class:`PoolError`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qwen_tools.pool.errors import PoolError, SessionLost, WorkerUnavailable

if TYPE_CHECKING:
    from qwen_tools.pool.host import SessionHost
    from qwen_tools.pool.pool import SessionPool
    from qwen_tools.pool.template import Template

__all__ = [
    "PoolError",
    "SessionHost",
    "SessionLost",
    "SessionPool",
    "Template",
    "WorkerUnavailable",
]


def __getattr__(name: str) -> object:
    # imported when asked for: the pool imports ray, the host the whole session stack (the
    # guardian, ``python -m qwen_tools.pool.guardian``, needs neither)
    if name == "SessionPool":
        from qwen_tools.pool.pool import SessionPool

        return SessionPool
    if name == "SessionHost":
        from qwen_tools.pool.host import SessionHost

        return SessionHost
    if name == "Template":
        from qwen_tools.pool.template import Template

        return Template
    raise AttributeError(name)
