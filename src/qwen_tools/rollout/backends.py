"""Where a rollout's sessions live: in this process (:class:`LocalBackend`, a
:class:`~qwen_tools.pool.SessionHost`) or on Ray workers (:class:`RayBackend`, a
:class:`~qwen_tools.pool.SessionPool`). Both offer the same four awaitable steps."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from qwen_tools.pool.host import SessionHost
from qwen_tools.pool.template import Template

if TYPE_CHECKING:
    from qwen_tools.pool.pool import SessionPool

__all__ = ["Backend", "LocalBackend", "RayBackend"]


class Backend(Protocol):
    """Open a session, run a function next to it, diff it, close it."""

    async def open(self, template: Template, approval_mode: str | None) -> str: ...

    async def run(self, session_id: str, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any: ...

    async def diff(self, session_id: str) -> str: ...

    async def close(self, session_id: str) -> None: ...

    async def aclose(self) -> None: ...


class LocalBackend:
    """Sessions in this process."""

    def __init__(self, settings: Mapping[str, Any] | None = None) -> None:
        self.host = SessionHost(settings=settings)

    async def open(self, template: Template, approval_mode: str | None) -> str:
        return await self.host.open(template, approval_mode=approval_mode)

    async def run(self, session_id: str, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        return await self.host.run(session_id, fn, *args)

    async def diff(self, session_id: str) -> str:
        return await self.host.diff(session_id)

    async def close(self, session_id: str) -> None:
        await self.host.close(session_id)

    async def aclose(self) -> None:
        await self.host.aclose()


class RayBackend:
    """Sessions on the workers of a :class:`~qwen_tools.pool.SessionPool`."""

    def __init__(self, pool: SessionPool, *, owned: bool = False) -> None:
        self.pool = pool
        self._owned = owned

    async def open(self, template: Template, approval_mode: str | None) -> str:
        return await self.pool.open_async(template, approval_mode=approval_mode)

    async def run(self, session_id: str, fn: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        return await self.pool.run_async(session_id, fn, *args)

    async def diff(self, session_id: str) -> str:
        return await self.pool.diff_async(session_id)

    async def close(self, session_id: str) -> None:
        await self.pool.close_async(session_id)

    async def aclose(self) -> None:
        if self._owned:
            self.pool.shutdown()
