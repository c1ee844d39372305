"""Rollouts: the agent loop on many tasks (a prompt and a workspace template each), locally with
asyncio or on a Ray :class:`~qwen_tools.pool.SessionPool`, one JSON record per task.

``qwen-tools rollout TASKS.jsonl --concurrency N [--ray ADDRESS] --output OUT.jsonl`` is the
command; :class:`RolloutRunner` is the library form.

* :mod:`.runner` — :class:`RolloutRunner`: tasks run with bounded concurrency, one record each;
* :mod:`.tasks` — reading ``TASKS.jsonl``, and the tasks an output file already has;
* :mod:`.episode` — one task's agent run beside its session;
* :mod:`.backends` — where the sessions live: this process or Ray workers.
* :mod:`.cluster` — joining the Ray cluster of ``--ray ADDRESS``, or one line saying why not.
"""

from qwen_tools.rollout.runner import RolloutRunner
from qwen_tools.rollout.tasks import RolloutTask, load_tasks, written_ids

__all__ = ["RolloutRunner", "RolloutTask", "load_tasks", "written_ids"]
