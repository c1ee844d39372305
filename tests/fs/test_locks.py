"""Per-file async locks: one read-modify-write per file at a time, entries dropped when unused."""

from __future__ import annotations

import asyncio
from pathlib import Path

from qwen_tools.fs.locks import FileLocks


def test_same_file_is_serialised_and_the_entry_is_dropped(tmp_path: Path) -> None:
    locks = FileLocks()
    target = tmp_path / "counter.txt"
    target.write_text("0")

    async def increment() -> None:
        async with locks.lock(str(target)):
            value = int(target.read_text())
            await asyncio.sleep(0.001)  # another task would read the same value here
            target.write_text(str(value + 1))

    async def main() -> None:
        await asyncio.gather(*(increment() for _ in range(50)))

    asyncio.run(main())
    assert target.read_text() == "50"
    assert len(locks) == 0


def test_symlink_and_target_share_a_lock(tmp_path: Path) -> None:
    locks = FileLocks()
    target = tmp_path / "real.txt"
    target.write_text("")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    order: list[str] = []

    async def hold(path: Path, name: str) -> None:
        async with locks.lock(str(path)):
            order.append(f"{name} in")
            await asyncio.sleep(0.01)
            order.append(f"{name} out")

    async def main() -> None:
        await asyncio.gather(hold(target, "a"), hold(link, "b"))

    asyncio.run(main())
    assert order == ["a in", "a out", "b in", "b out"]


def test_different_files_do_not_wait_for_each_other(tmp_path: Path) -> None:
    locks = FileLocks()

    async def main() -> None:
        async with locks.lock(str(tmp_path / "one")):
            assert len(locks) == 1
            # Would deadlock if the second file shared the first one's lock.
            await asyncio.wait_for(_enter(locks, str(tmp_path / "two")), timeout=1)

    asyncio.run(main())
    assert len(locks) == 0


async def _enter(locks: FileLocks, path: str) -> None:
    async with locks.lock(path):
        assert len(locks) == 2


def test_lock_is_released_when_the_block_raises(tmp_path: Path) -> None:
    locks = FileLocks()
    path = str(tmp_path / "f")

    async def main() -> None:
        try:
            async with locks.lock(path):
                raise RuntimeError("boom")
        except RuntimeError:
            pass
        async with locks.lock(path):
            pass

    asyncio.run(asyncio.wait_for(main(), timeout=1))
    assert len(locks) == 0


def test_cancelled_waiter_does_not_leak_an_entry(tmp_path: Path) -> None:
    locks = FileLocks()
    path = str(tmp_path / "f")

    async def main() -> None:
        async with locks.lock(path):
            waiter = asyncio.create_task(_hold_briefly(locks, path))
            await asyncio.sleep(0.01)
            waiter.cancel()
            await asyncio.gather(waiter, return_exceptions=True)
            assert len(locks) == 1

    asyncio.run(main())
    assert len(locks) == 0


async def _hold_briefly(locks: FileLocks, path: str) -> None:
    async with locks.lock(path):
        await asyncio.sleep(0)


def test_locks_work_across_event_loops(tmp_path: Path) -> None:
    """A fresh loop (a new ``asyncio.run``) gets a fresh lock for the same file."""
    locks = FileLocks()
    path = str(tmp_path / "f")

    async def once() -> None:
        async with locks.lock(path):
            await asyncio.sleep(0)

    asyncio.run(once())
    asyncio.run(once())
    assert len(locks) == 0
