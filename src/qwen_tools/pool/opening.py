"""Opening a session on a pool: the workers tried in turn, least loaded first.

A worker that is dead or cannot be reached (a Ray actor error) is skipped for the next one;
any other failure ends the open (with the exception the worker raised, if it raised one). The
open's answer is the route of the worker it landed on: its incarnation (see :mod:`.worker`)
and its channel (:mod:`.channel`).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator
from typing import Any

from qwen_tools.config.tool_settings import ApprovalMode
from qwen_tools.pool.errors import PoolError
from qwen_tools.pool.failures import describe, verdict
from qwen_tools.pool.template import Template

__all__ = ["Opening"]


class Opening:
    """One open: the workers tried in turn (least loaded first) until one opens the session.

    A worker that is dead or cannot be reached (a Ray actor error) is skipped for the next
    one; any other failure ends the open."""

    def __init__(
        self, pool: Any, template: Template, approval_mode: ApprovalMode | str | None
    ) -> None:
        """``pool``: the :class:`~.pool.SessionPool` (its placement is updated as it goes)."""
        if pool._closed:
            raise PoolError("the pool is shut down")
        mode = approval_mode.value if isinstance(approval_mode, ApprovalMode) else approval_mode
        self.pool, self.template, self.mode = pool, template, mode
        self.sid = uuid.uuid4().hex
        self.error: BaseException | None = None

    def tries(self) -> Iterator[Any]:
        """Each worker's ``open`` call in turn (the session placed on it meanwhile)."""
        pool = self.pool
        for index in pool._by_load():
            pool._placement[self.sid] = index
            yield pool._workers[index].open.remote(
                pool._template(self.template), self.mode, self.sid
            )

    def opened(self, route: dict[str, Any]) -> str:
        """The try succeeded, the worker answering its route: the session's id."""
        self.pool._born[self.sid] = route["incarnation"]
        self.pool._channels.route(self.pool._placement[self.sid], route)
        return self.sid

    @contextlib.contextmanager
    def trying(self) -> Iterator[None]:
        """Around the wait for one try: a worker that is dead or unreachable is noted and
        skipped; anything else is raised (the exception the worker raised, if it did)."""
        from ray.exceptions import RayTaskError

        try:
            yield
        except Exception as exc:
            if verdict(exc) != "other":
                self.error = exc
                return
            self.pool._placement.pop(self.sid, None)
            if isinstance(exc, RayTaskError) and isinstance(exc.cause, Exception):
                raise exc.cause from None
            raise
        except BaseException:
            self.pool._placement.pop(self.sid, None)
            raise

    def failed(self) -> PoolError:
        """The error when no worker could open the session."""
        self.pool._placement.pop(self.sid, None)
        reason = describe(self.error) if self.error is not None else "no workers"
        return PoolError(f"no worker could open a session: {reason}")
