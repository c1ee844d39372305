"""Three Linux ``prctl`` calls, through ``ctypes`` (the standard library has no binding for them).

``PR_SET_CHILD_SUBREAPER``
    Orphaned descendants are re-parented to us instead of to init, so a double fork cannot take
    a process out of our tree.
``PR_SET_PDEATHSIG``
    The calling process gets a signal when its parent dies.
``PR_SET_NO_NEW_PRIVS``
    The calling thread (and what it starts) can never gain privileges; Landlock requires it.

The first two return ``False`` where they are not available (not Linux, no libc found); the
third raises ``OSError``, since confinement must not silently go missing.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import sys
from typing import Any

__all__ = ["set_child_subreaper", "set_no_new_privs", "set_parent_death_signal"]

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38


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
    # all five arguments: options such as PR_SET_NO_NEW_PRIVS refuse a non-zero arg5
    function.argtypes = [ctypes.c_int, *[ctypes.c_ulong] * 4]
    function.restype = ctypes.c_int
    return function


def _call(option: int, value: int) -> bool:
    function = _prctl()
    if function is None:
        return False
    return bool(function(option, value, 0, 0, 0) == 0)


def set_child_subreaper() -> bool:
    """Make this process the reaper of every orphan among its descendants."""
    return _call(PR_SET_CHILD_SUBREAPER, 1)


def set_parent_death_signal(signum: int) -> bool:
    """Have ``signum`` sent to this process when its parent (thread) exits."""
    return _call(PR_SET_PDEATHSIG, signum)


def set_no_new_privs() -> None:
    """Forbid the calling thread and its children to gain privileges (``execve`` of setuid…).

    Raises ``OSError`` when it cannot be set.
    """
    function = _prctl()
    if function is None:
        raise OSError(errno.ENOSYS, "prctl(PR_SET_NO_NEW_PRIVS): not available")
    if function(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise OSError(code, f"prctl(PR_SET_NO_NEW_PRIVS): {os.strerror(code)}")
