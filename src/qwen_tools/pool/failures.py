"""Telling a dead worker from a transient Ray error, for the pool.

A Ray error on a call says little by itself: ``ActorDiedError`` means the worker is dead, but
``ActorUnavailableError`` (what a call in flight gets when its worker is killed and Ray
restarts it, and also what a network blip gives) means only that the worker could not be
reached; so does a broken channel (:mod:`.channel`). :func:`verdict` sorts an error; for the
unsure ones the pool asks the worker, through Ray, for its route (:func:`probe` and
:func:`probe_async`, bounded waits): a new incarnation (or ``ActorDiedError``) confirms the
death, the same one says the worker lives and its sessions are kept. Errors that are not about the actor (a task that could not run, a lost object, a
timeout) are the call's own and are raised as they are.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Literal

__all__ = ["PROBE_S", "describe", "probe", "probe_async", "verdict"]

PROBE_S = 30.0
"""How long the pool waits for a worker (being restarted, maybe) to say its incarnation."""

_RETRY_S = 0.05


def verdict(exc: BaseException) -> Literal["dead", "unsure", "other"]:
    """``dead``: the worker died; ``unsure``: it could not be reached; ``other``: not about it."""
    from ray.exceptions import ActorDiedError, RayActorError

    from qwen_tools.pool.channel import ChannelBroken

    if isinstance(exc, ActorDiedError):
        return "dead"
    if isinstance(exc, RayActorError | ChannelBroken):
        return "unsure"
    return "other"


def describe(exc: BaseException) -> str:
    """``Type: first line of the message``."""
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}".rstrip(": ")


def probe(worker: Any) -> dict[str, Any] | BaseException:
    """The worker's route now (its incarnation, node and channel: ``PoolWorker.route``), or
    the error that stopped us from learning it (blocking)."""
    import ray
    from ray.exceptions import ActorUnavailableError

    deadline = time.monotonic() + PROBE_S
    while True:
        try:
            found: dict[str, Any] = ray.get(worker.route.remote(), timeout=PROBE_S)
            return found
        except ActorUnavailableError as exc:
            if time.monotonic() >= deadline:
                return exc
            time.sleep(_RETRY_S)
        except Exception as exc:
            return exc


async def probe_async(worker: Any) -> dict[str, Any] | BaseException:
    """:func:`probe`, awaited."""
    from ray.exceptions import ActorUnavailableError

    loop = asyncio.get_running_loop()
    deadline = loop.time() + PROBE_S
    while True:
        try:
            found: dict[str, Any] = await asyncio.wait_for(_awaited(worker.route.remote()), PROBE_S)
            return found
        except ActorUnavailableError as exc:
            if loop.time() >= deadline:
                return exc
            await asyncio.sleep(_RETRY_S)
        except Exception as exc:
            return exc


async def _awaited(ref: Any) -> Any:
    return await ref
