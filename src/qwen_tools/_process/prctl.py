"""Two Linux ``prctl`` calls, through ``ctypes`` (the standard library has no binding for them).

``PR_SET_CHILD_SUBREAPER``
    Orphaned descendants are re-parented to us instead of to init, so a double fork cannot take
    a process out of our tree.
``PR_SET_PDEATHSIG``
    The calling process gets a signal when its parent dies.

Both return ``False`` where they are not available (not Linux, no libc found).
"""

from __future__ import annotations

import ctypes
import functools
import sys
from typing import Any

__all__ = ["set_child_subreaper", "set_parent_death_signal"]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


@functools.cache
def _prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        # the process's own symbols include libc's prctl; find_library("c") would run
        # ``ldconfig -p`` (a process per command) to find the same library
        libc = ctypes.CDLL(None, use_errno=True)
        function = libc.prctl
    except (OSError, AttributeError):
        return None
    function.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    function.restype = ctypes.c_int
    return function


def _call(option: int, value: int) -> bool:
    function = _prctl()
    if function is None:
        return False
    return bool(function(option, value, 0, 0) == 0)


def set_child_subreaper() -> bool:
    """Make this process the reaper of every orphan among its descendants."""
    return _call(PR_SET_CHILD_SUBREAPER, 1)


def set_parent_death_signal(signum: int) -> bool:
    """Have ``signum`` sent to this process when its parent (thread) exits."""
    return _call(PR_SET_PDEATHSIG, signum)
