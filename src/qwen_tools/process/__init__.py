"""Process trees: every process a command starts is found, and ended with it.

* :mod:`.supervisor` — the register of command trees, spawning into one, ending them all;
* :mod:`.tree` — one tree: its members, ``SIGTERM``/``SIGKILL`` to all of them, reaping;
* :mod:`.cgroup` — a cgroup v2 per command where ours is writable (nothing can leave it);
* :mod:`.procfs` — reading ``/proc`` (ids, start times, children, environment marks);
* :mod:`.prctl` — ``PR_SET_CHILD_SUBREAPER`` and ``PR_SET_PDEATHSIG`` through ``ctypes``;
* :mod:`.parent` — noticing that the process that started ours has exited.

Linux only; elsewhere a command is its process group, as before.
"""
