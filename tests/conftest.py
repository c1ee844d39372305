"""Shared test configuration: every ``async def`` test runs under anyio on asyncio, and no
process a test started outlives the run (:mod:`support.leftovers`)."""

from __future__ import annotations

import inspect
import signal
from typing import Any

import pytest

from support import leftovers


def pytest_configure(config: pytest.Config) -> None:
    """Become the reaper of every process the tests start; SIGTERM/SIGHUP interrupt.

    A run started in the background of a non-interactive shell (``cmd &``) inherits SIGINT
    ignored, and so would every program the tests start (an ignored signal stays ignored across
    exec): the tests that press Ctrl-C on a child need it live, so it is handled here."""
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    leftovers.install()


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    """After every fixture is torn down, kill what still runs below pytest, and say so.

    Under pytest-xdist each worker is its own subreaper and kills only what runs below it; it
    hands its list to the controller (``workeroutput``), which prints every worker's list with
    its own once the workers are gone.
    """
    ended = leftovers.end_leftovers()
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["leftovers"] = ended
        return
    ended = _from_workers + ended
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if ended and reporter is not None:
        reporter.write_line("")
        reporter.write_sep("=", "processes left running by the tests (killed)", yellow=True)
        for line in ended:
            reporter.write_line(line)


_from_workers: list[str] = []


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """Keep what an xdist worker killed at its end, for the controller's report."""
    _from_workers.extend(getattr(node, "workeroutput", {}).get("leftovers", []))


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector: pytest.Collector, name: str, obj: Any) -> None:
    """Mark coroutine tests for anyio before its plugin looks at them."""
    if inspect.iscoroutinefunction(obj) and name.startswith("test"):
        pytest.mark.anyio(obj)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
