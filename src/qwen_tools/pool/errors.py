"""The pool's errors: a session that is gone (its worker died), a worker that could not be
reached for one call (its sessions kept), and misuse of the pool."""

from __future__ import annotations

__all__ = ["PoolError", "SessionLost", "WorkerUnavailable"]


class PoolError(Exception):
    """The pool cannot do what was asked (closed pool, no workers, bad template)."""


class SessionLost(PoolError):
    """The session no longer exists: its worker died (with all of that worker's sessions) or it
    was closed. Sessions on other workers are not affected."""

    def __init__(self, session_id: str, reason: str, worker_died: bool = False) -> None:
        super().__init__(f"session {session_id} is lost: {reason}")
        self.session_id = session_id
        self.reason = reason
        self.worker_died = worker_died
        """Whether the whole worker the session was on died (all its sessions are lost)."""

    def __reduce__(self) -> tuple[type[SessionLost], tuple[str, str, bool]]:
        # picklable as it was built (it crosses from a worker to the driver)
        return (SessionLost, (self.session_id, self.reason, self.worker_died))


class WorkerUnavailable(PoolError):
    """One call could not reach the session's worker, or its answer was lost on the way (a
    transient Ray error such as ``ActorUnavailableError``), while the worker was not found
    dead: the session is kept, and the call may or may not have run. Retrying is up to the
    caller (a call that edits files may have done so)."""

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(
            f"the worker of session {session_id} could not be reached for this call ({reason}); "
            "the session is kept, and the call may or may not have run"
        )
        self.session_id = session_id
        self.reason = reason

    def __reduce__(self) -> tuple[type[WorkerUnavailable], tuple[str, str]]:
        return (WorkerUnavailable, (self.session_id, self.reason))
