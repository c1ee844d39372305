"""Running a ``@tool`` function: its timeout, its cancellation, its worker thread.

* An async function runs in the call's task: the call's abort signal and the tool's ``timeout``
  cancel it at its next ``await``.
* A sync function runs in a worker thread, which Python cannot interrupt. It notices
  cancellation at its next check — :func:`check_cancelled`, or the ``signal`` parameter's
  ``aborted`` / ``throw_if_aborted()`` — which also fires when the timeout passes. A tool made with
  ``abandon_on_cancel=True`` is not waited for once the call is cancelled: the call ends at once,
  reported as cancelled with its thread abandoned (its result is ignored). A sync function still
  running when its timeout passes is abandoned the same way, and the report says so.
* ``update_output`` given to a sync function hands each piece of output to the event loop.
"""

from __future__ import annotations

import inspect
import logging
import threading
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any

from qwen_tools.contract.abort import AbortController, AbortError, AbortSignal
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.results import ToolResult

__all__ = ["check_cancelled", "run_function"]

_log = logging.getLogger("qwen_tools")

_CURRENT: ContextVar[AbortSignal | None] = ContextVar("qwen_tools_tool_signal", default=None)


def check_cancelled() -> None:
    """Raise :class:`~qwen_tools.AbortError` if the ``@tool`` call running here was cancelled.

    Call it between the steps of a long synchronous tool (it runs in a worker thread, which
    cannot be interrupted): the call ends there, reported as cancelled. It also fires when the
    tool's ``timeout`` has passed. Outside a tool call it does nothing.
    """
    signal = _CURRENT.get()
    if signal is not None:
        signal.throw_if_aborted()


def timed_out_message(name: str, timeout: float) -> str:
    """What the model is told of a call that ran past its tool's timeout."""
    return f"Tool {name} timed out after {timeout:g} seconds"


def _abandoned_note(name: str) -> str:
    return (
        f"{name} was abandoned while still running in its worker thread; its result will be ignored"
    )


async def run_function(
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
    *,
    name: str,
    signal: AbortSignal,
    timeout: float | None,
    abandon_on_cancel: bool,
    signal_param: str | None,
    output_param: str | None,
) -> Any:
    """Call ``fn`` for one call; its return value, or a :class:`ToolResult` for a timeout or an
    abandoned thread. Raises :class:`AbortError` when the call was cancelled while it ran."""
    controller = AbortController()  # fires on the call's abort, and when the timeout passes
    remove = signal.add_listener(lambda: controller.abort(signal.reason))
    if signal_param is not None:
        kwargs[signal_param] = controller.signal
    token = _CURRENT.set(controller.signal)
    try:
        if inspect.iscoroutinefunction(fn):
            return await _run_async(fn, kwargs, name, signal, controller, timeout)
        return await _run_sync(
            fn, kwargs, name, signal, controller, timeout, abandon_on_cancel, output_param
        )
    finally:
        _CURRENT.reset(token)
        remove()


async def _run_async(
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
    name: str,
    signal: AbortSignal,
    controller: AbortController,
    timeout: float | None,
) -> Any:
    import anyio

    value: Any = None
    async with signal.cancel_scope() as abort_scope:
        with anyio.move_on_after(timeout) as time_scope:
            value = await fn(**kwargs)
    if abort_scope.cancelled_caught or (signal.aborted and time_scope.cancelled_caught):
        raise AbortError(signal.reason or "The operation was aborted.")
    if time_scope.cancelled_caught:
        controller.abort("timeout")
        assert timeout is not None
        message = timed_out_message(name, timeout)
        return ToolResult.failure(message, ToolErrorType.EXECUTION_TIMEOUT)
    return value


async def _run_sync(
    fn: Callable[..., Any],
    kwargs: dict[str, Any],
    name: str,
    signal: AbortSignal,
    controller: AbortController,
    timeout: float | None,
    abandon_on_cancel: bool,
    output_param: str | None,
) -> Any:
    import anyio
    import anyio.from_thread
    import anyio.to_thread

    finished = threading.Event()
    update = kwargs.get(output_param) if output_param is not None else None
    if output_param is not None and update is not None:
        relay = update

        def from_thread(output: Any) -> None:
            if not finished.is_set():
                anyio.from_thread.run_sync(relay, output)

        kwargs[output_param] = from_thread

    def work() -> Any:
        return fn(**kwargs)

    abandonable = abandon_on_cancel or timeout is not None
    value: Any = None
    try:
        if abandon_on_cancel:
            async with signal.cancel_scope() as abort_scope:
                with anyio.move_on_after(timeout) as time_scope:
                    value = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
        else:
            abort_scope = None
            with anyio.move_on_after(timeout) as time_scope:
                value = await anyio.to_thread.run_sync(work, abandon_on_cancel=abandonable)
    finally:
        finished.set()
    if abort_scope is not None and abort_scope.cancelled_caught:
        note = _abandoned_note(name)
        _log.warning("cancelled call of %s: %s", name, note)
        return ToolResult(
            llm_content=f"Cancelled: {note}", return_display=f"Cancelled: {note}", interrupted=True
        )
    if time_scope.cancelled_caught:
        controller.abort("timeout")  # the thread's next check ends it
        assert timeout is not None
        message = timed_out_message(name, timeout)
        note = _abandoned_note(name)
        _log.warning("%s: %s", message, note)
        return ToolResult.failure(
            message, ToolErrorType.EXECUTION_TIMEOUT, display=f"{message}; {note}"
        )
    if inspect.isawaitable(value):
        value = await value
    return value
