"""The pool's errors: a session that is gone (its worker died) and misuse of the pool."""

from __future__ import annotations

__all__ = ["PoolError", "SessionLost"]


class PoolError(Exception):
    """The pool cannot do what was asked (closed pool, no workers, bad template)."""


class SessionLost(PoolError):
    """The session no longer exists: its worker died (with all of that worker's sessions) or it
    was closed. Sessions on other workers are not affected."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(f"session {session_id} is lost: {reason}")
        self.session_id = session_id
        self.reason = reason

    def __reduce__(self) -> tuple[type[SessionLost], tuple[str, str]]:
        # picklable as it was built (it crosses from a worker to the driver)
        return (SessionLost, (self.session_id, self.reason))
