"""The environment a test gives a ``qwen-tools`` subprocess: an isolated, empty machine.

HOME and QWEN_HOME are fresh directories under the test's tmp dir and the system settings
paths point inside it, so neither the real ``~/.qwen`` nor ``/etc/qwen-code`` is ever read.
"""

from __future__ import annotations

import os
from pathlib import Path


def isolated_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    """PATH, a temp HOME with ``.qwen``, system settings in tmp, C.UTF-8, plus ``extra``.

    ``PYTHONPATH`` is passed through (coverage and source-tree runs need it).
    """
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(home),
        "QWEN_HOME": str(home / ".qwen"),
        "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "system-settings.json"),
        "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(tmp_path / "system-defaults.json"),
        "LANG": "C.UTF-8",
    }
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    env.update(extra)
    return env
