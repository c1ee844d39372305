"""Running a discovery or call command: :func:`~qwen_tools.shell.command_run.run_command`.

The runner lives in :mod:`qwen_tools.shell.command_run` (hook commands use it too); this module
keeps the names the discovery code imports. The project root is the working directory, the
environment a sanitised copy of ours, the caps 10 MiB per stream.
"""

from __future__ import annotations

from qwen_tools.shell.command_run import (
    MAX_STREAM_BYTES,
    CommandRun,
    child_env,
    run_command,
    signal_name,
)

__all__ = ["MAX_STREAM_BYTES", "CommandRun", "child_env", "run_command", "signal_name"]
