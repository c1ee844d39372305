"""AbortSignal / AbortController: polling, awaiting, listeners, threads, cancel scopes."""

from __future__ import annotations

import asyncio
import threading

import pytest

from qwen_tools import AbortController, AbortError, AbortSignal


def test_abort_is_one_shot_and_keeps_first_reason() -> None:
    controller = AbortController()
    assert not controller.signal.aborted
    controller.abort("first")
    controller.abort("second")
    assert controller.signal.aborted
    assert controller.signal.reason == "first"
    with pytest.raises(AbortError, match="first"):
        controller.signal.throw_if_aborted()


def test_listeners_fire_once_and_can_be_removed() -> None:
    controller = AbortController()
    seen: list[str] = []
    controller.signal.add_listener(lambda: seen.append("a"))
    remove_b = controller.signal.add_listener(lambda: seen.append("b"))
    remove_b()
    controller.abort()
    controller.abort()
    assert seen == ["a"]
    controller.signal.add_listener(lambda: seen.append("late"))
    assert seen == ["a", "late"]


async def test_wait_wakes_when_aborted_from_another_thread() -> None:
    controller = AbortController()
    timer = threading.Timer(0.05, controller.abort, args=("from thread",))
    timer.start()
    await asyncio.wait_for(controller.signal.wait(), timeout=5)
    assert controller.signal.reason == "from thread"


async def test_cancel_scope_stops_the_block() -> None:
    controller = AbortController()
    reached_end = False
    asyncio.get_running_loop().call_later(0.05, controller.abort)
    async with controller.signal.cancel_scope() as scope:
        await asyncio.sleep(10)
        reached_end = True
    assert scope.cancelled_caught
    assert not reached_end


def test_any_and_child_follow_their_parents() -> None:
    a, b = AbortController(), AbortController()
    combined = AbortSignal.any([a.signal, b.signal])
    child = a.child()
    b.abort("b went")
    assert combined.aborted and combined.reason == "b went"
    assert not child.signal.aborted
    a.abort("a went")
    assert child.signal.reason == "a went"
    assert not AbortSignal.never().aborted
