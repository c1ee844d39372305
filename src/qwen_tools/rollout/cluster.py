"""Joining the Ray cluster a rollout runs on, or one clear line saying why not.

``ray.init`` at an address where no cluster listens retries its connection for minutes (13
measured here for a closed port on 127.0.0.1, 80 s for an unknown host) and then raises with a
long traceback. :func:`join_cluster` first checks that something accepts a TCP connection at
``HOST:PORT`` (a few seconds at most, hand-written because Ray has no fail-fast option for
it), then calls ``ray.init`` and turns its errors into :class:`ClusterUnavailable`, whose text
is one line.

``ray.init`` also takes ``SIGTERM`` over (``sys.exit(15)`` and, from its C++ core, a stack dump
on stderr): the driver's own handler is put back, so a rollout stopped by ``SIGTERM`` ends as
one stopped by Ctrl-C (its pool shut down, exit 143). :func:`cpu_shortfall` tells, before a
pool starts, that its workers cannot all be placed yet (they wait for the CPUs, silently).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qwen_tools.pool.pool import SessionPool

__all__ = ["PROBE_TIMEOUT_S", "ClusterUnavailable", "cpu_shortfall", "join_cluster", "start_pool"]

PROBE_TIMEOUT_S = 5.0
"""How long the address may take to accept a TCP connection."""


class ClusterUnavailable(Exception):
    """No Ray, a malformed address, or no cluster reachable there (a one-line message)."""


def _auto(address: str) -> str | None:
    """The ``HOST:PORT`` that ``auto`` stands for (``RAY_ADDRESS``, else the last ``ray start``
    on this machine), as ``ray.init`` finds it; ``None`` when unknown (Ray decides)."""
    try:
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # a private helper: without it, ray.init alone decides
        return None
    try:
        return canonicalize_bootstrap_address(address)
    except (ConnectionError, ValueError) as exc:
        raise ClusterUnavailable(f"no Ray cluster for {address!r}: {_first_line(exc)}") from None


def _host_port(address: str) -> tuple[str, int] | None:
    """Where ``HOST:PORT``, ``ray://HOST:PORT`` or ``auto`` points; ``None`` for ``local``."""
    if address == "auto":
        found = _auto(address)
        if found is None:
            return None
        address = found
    if address == "local":
        return None
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    host = host.strip("[]")  # [::1]:6379
    if not colon or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ClusterUnavailable(
            f"{address!r} is not a Ray address (HOST:PORT, ray://HOST:PORT, auto or local)"
        )
    return host, int(port)


def _first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s text and, when it has more, its last (often the cause)."""
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    if not lines:
        return type(exc).__name__
    return lines[0] if len(lines) == 1 else f"{lines[0]} ({lines[-1]})"


def join_cluster(address: str) -> None:
    """``ray.init(address)`` (drivers' logs not forwarded, Ray's own at warning level), or
    :class:`ClusterUnavailable` at once when nothing answers at ``address``."""
    try:
        import ray
    except ImportError:
        raise ClusterUnavailable("--ray needs Ray: pip install 'qwen-tools[ray]'") from None
    target = _host_port(address)
    if target is not None:
        try:
            socket.create_connection(target, timeout=PROBE_TIMEOUT_S).close()
        except OSError as exc:
            reason = exc.strerror or _first_line(exc)
            where = address if address != "auto" else f"auto ({target[0]}:{target[1]})"
            raise ClusterUnavailable(f"no Ray cluster at {where}: {reason}") from None
    os.environ.setdefault("RAY_DISABLE_FAILURE_SIGNAL_HANDLER", "1")  # no dump on SIGTERM
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main else None
    try:
        ray.init(address=address, log_to_driver=False, logging_level=logging.WARNING)
    except Exception as exc:  # a refused connection, a runtime env that cannot be shipped...
        raise ClusterUnavailable(
            f"cannot join the Ray cluster at {address}: {_first_line(exc)}"
        ) from None
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def start_pool(workers: int, cpus_each: float) -> SessionPool:
    """A :class:`~qwen_tools.pool.SessionPool` on the joined cluster, once all its workers run;
    :class:`ClusterUnavailable` when they cannot start there (a runtime env that fails to set
    up, ``qwen_tools`` missing on the nodes...)."""
    from ray.exceptions import RayError

    from qwen_tools.pool.pool import SessionPool

    try:
        return SessionPool(workers=workers, num_cpus=cpus_each)
    except RayError as exc:
        raise ClusterUnavailable(
            f"the pool's workers did not start on the Ray cluster: {_first_line(exc)}"
        ) from None


def cpu_shortfall(workers: int, cpus_each: float) -> str | None:
    """Why ``workers`` actors of ``cpus_each`` CPUs cannot all start on the joined cluster now
    (``None``: they fit in its CPUs). Only a warning: an autoscaling cluster may grow."""
    import ray

    resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
    have = float(resources.get("CPU", 0.0))
    need = workers * cpus_each
    if have >= need:
        return None
    return (
        f"{workers} workers need {need:g} CPUs ({cpus_each:g} each) and the Ray cluster has "
        f"{have:g}: waiting for more (use fewer --workers, or add nodes)"
    )
