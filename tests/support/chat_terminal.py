"""Driving ``qwen-tools chat`` in a pseudo-terminal: the program, its environment, what it sent."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from support.cli_env import isolated_env
from support.processes import MARK_VAR

EXE = Path(sys.executable).with_name("qwen-tools")


def base_env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path, TERM="xterm-256color", **{MARK_VAR: os.environ[MARK_VAR]})


def user_texts(request: dict[str, Any]) -> list[str]:
    texts = []
    for message in request["messages"]:
        if message["role"] == "user":
            content = message["content"]
            texts.append(content if isinstance(content, str) else content[-1]["text"])
    return texts
