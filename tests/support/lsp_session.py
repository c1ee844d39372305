"""Language-server test helpers: a Session on its own event loop thread, shared by a module.

Starting a language server takes a second or more, so each test module opens one
:class:`ThreadSession` (a module-scoped fixture) and its tests call tools through it:
``ts.call("lsp", {...})`` runs the call on the session's loop and returns the model's text.
``lsp_json(...)`` writes a ``.lsp.json``; ``enable_lsp(home)`` writes ``lsp.enabled`` into the
user's settings (a ``ThreadSession`` does so itself); ``venv_bin()`` is where ``pylsp`` lives (servers get it on their PATH
through their own ``env``).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
from collections.abc import Coroutine, Mapping
from pathlib import Path
from typing import Any, TypeVar

from qwen_tools.session.session import Session

T = TypeVar("T")
CALL_TIMEOUT_S = 180


def venv_bin() -> str:
    """The directory of this interpreter's scripts (``pylsp``)."""
    return str(Path(sys.executable).parent)


def server_env(*dirs: str) -> dict[str, str]:
    """A server ``env`` whose PATH starts with ``dirs`` (then the venv's, then ours)."""
    return {"PATH": os.pathsep.join([*dirs, venv_bin(), os.environ.get("PATH", "")])}


def lsp_json(workspace: Path, servers: Mapping[str, Any]) -> None:
    """Write the workspace's ``.lsp.json``."""
    (workspace / ".lsp.json").write_text(json.dumps(servers))


def enable_lsp(home: Path, extra: Mapping[str, Any] | None = None) -> None:
    """Write ``{"lsp": {"enabled": true}}`` (plus ``extra``) as the user's settings in ``home``
    (the Qwen home: a workspace's own settings cannot turn LSP on)."""
    home.mkdir(parents=True, exist_ok=True)
    settings = {"lsp": {"enabled": True}, **(extra or {})}
    (home / "settings.json").write_text(json.dumps(settings))


def pylsp_server(**extra: Any) -> dict[str, Any]:
    """``.lsp.json``'s entry for pylsp on ``.py`` files."""
    return {
        "command": "pylsp",
        "extensionToLanguage": {".py": "python"},
        "env": server_env(),
        **extra,
    }


class ThreadSession:
    """A :class:`Session` entered on an event loop that runs in a thread of its own."""

    def __init__(self, workspace: Path, home: Path, **options: Any) -> None:
        """``home`` is the Qwen home; unless it has settings, LSP is enabled there."""
        if not (home / "settings.json").exists():
            enable_lsp(home)
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()
        env = {**os.environ, "QWEN_HOME": str(home), "HOME": str(home)}
        self.session = Session(workspace, env=env, **options)
        self.run(self.session.__aenter__())

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the session's loop and wait for it."""
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(CALL_TIMEOUT_S)

    def call(self, name: str, args: Mapping[str, Any]) -> str:
        """One tool call; the text the model reads."""
        done = self.run(self.session.call(name, args))
        return str(done.response_text)

    def lsp(self, **args: Any) -> str:
        """One ``lsp`` call."""
        return self.call("lsp", args)

    def close(self) -> None:
        """Close the session (servers shut down) and stop the loop."""
        try:
            self.run(self.session.aclose())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(10)
            self.loop.close()
