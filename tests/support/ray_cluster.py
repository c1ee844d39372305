"""Ray for the tests: one local instance or a two-node local cluster per module, always shut down.

Ray starts its own daemons (GCS, raylet, workers) below the test process; ``ray.shutdown``
and ``Cluster.shutdown`` end them, and the session's leftover check (:mod:`.leftovers`) would
report any that remained.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["local_ray", "two_node_cluster"]

_QUIET = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}


def _environment() -> None:
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")  # no token written under ~/.ray
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


@contextmanager
def local_ray(num_cpus: int = 2) -> Iterator[None]:
    """``ray.init`` of a fresh local instance with ``num_cpus`` CPUs."""
    import ray

    _environment()
    ray.init(address="local", num_cpus=num_cpus, **_QUIET)
    try:
        yield
    finally:
        ray.shutdown()


@contextmanager
def two_node_cluster() -> Iterator[Any]:
    """A head and a second node (1 CPU each) on this machine, with the driver connected."""
    import ray
    from ray.cluster_utils import Cluster

    _environment()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, **_QUIET)
        try:
            yield cluster
        finally:
            ray.shutdown()
    finally:
        cluster.shutdown()
