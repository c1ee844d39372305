"""Language servers' lives: started on first use, restarted when they died, ended (whole
trees) with the session; a missing or crashing server costs only its own language."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from qwen_tools.session.session import Session
from support.lsp_session import ThreadSession, enable_lsp, lsp_json, pylsp_server, server_env

GONE_WAIT_S = 30


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def _wait_gone(pid: int) -> bool:
    deadline = time.monotonic() + GONE_WAIT_S  # bounded wait: fails only if it never ends
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def _project(root: Path, servers: dict[str, object]) -> Path:
    root.mkdir()
    (root / "a.py").write_text("def f():\n    return 1\n\n\nf()\n")
    (root / "a.ts").write_text("export const x = 1;\n")
    (root / "a.rb").write_text("x = 1\n")
    lsp_json(root, servers)
    return root


def _running(ts: ThreadSession) -> dict[str, int]:
    service = ts.session.config.services.lsp.active
    assert service is not None
    return {name: c.pid for name, c in service.manager.running().items() if c.pid}


def test_missing_and_crashing_servers_cost_only_their_language(tmp_path: Path) -> None:
    root = _project(
        tmp_path / "ws",
        {
            "python": pylsp_server(),
            "typescript": {"command": "no-such-language-server-xyz"},
            "ruby": {
                "command": "sh",
                "args": ["-c", "echo boom: no ruby here >&2; exit 3"],
                "extensionToLanguage": {".rb": "ruby"},
            },
        },
    )
    (root.parent / "home").mkdir()
    ts = ThreadSession(root, root.parent / "home")
    try:
        text = ts.lsp(operation="hover", filePath="a.ts", line=1, character=14)
        assert text == (
            "LSP hover failed: LSP server no-such-language-server-xyz could not start: "
            "command not found: no-such-language-server-xyz"
        )
        text = ts.lsp(operation="documentSymbol", filePath="a.rb")
        assert text == (
            "LSP document symbols failed: LSP server sh exited (exit code 3): "
            "boom: no ruby here during startup"
        )
        # python still works, in the same session
        text = ts.lsp(operation="goToDefinition", filePath="a.py", line=5, character=1)
        assert text == "Definitions for a.py:5:1:\n1. a.py:1:5 [pylsp]"
    finally:
        ts.close()


def test_a_dead_server_is_restarted_then_given_up(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws", {"python": pylsp_server(maxRestarts=1)})
    (root.parent / "home").mkdir()
    ts = ThreadSession(root, root.parent / "home")
    try:
        args = {"operation": "goToDefinition", "filePath": "a.py", "line": 5, "character": 1}
        assert ts.lsp(**args).endswith("1. a.py:1:5 [pylsp]")
        first = _running(ts)["pylsp"]
        os.kill(first, signal.SIGKILL)
        assert _wait_gone(first)
        assert ts.lsp(**args).endswith("1. a.py:1:5 [pylsp]")  # restarted
        second = _running(ts)["pylsp"]
        assert second != first
        os.kill(second, signal.SIGKILL)
        assert _wait_gone(second)
        text = ts.lsp(**args)
        assert text == (
            "LSP go-to-definition failed: LSP server pylsp exited (signal 9); "
            "not restarted (restarted 1 of 1 times)"
        )
    finally:
        ts.close()


def test_closing_the_session_ends_each_server_tree(tmp_path: Path) -> None:
    marker = tmp_path / "child.pid"
    # the "server" leaves a child of its own behind, then becomes pylsp
    wrapper = f"sleep 300 & echo $! > {marker}; exec pylsp"
    root = _project(
        tmp_path / "ws",
        {
            "python": {
                "command": "sh",
                "args": ["-c", wrapper],
                "extensionToLanguage": {".py": "python"},
                "env": server_env(),
            }
        },
    )
    (root.parent / "home").mkdir()
    ts = ThreadSession(root, root.parent / "home")
    try:
        assert ts.lsp(operation="documentSymbol", filePath="a.py").startswith("Document symbols")
        server = _running(ts)["sh"]
        child = int(marker.read_text())
        assert _alive(server) and _alive(child)
    finally:
        ts.close()
    assert _wait_gone(server)
    assert _wait_gone(child)


async def test_registered_when_enabled_and_configured(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = {**os.environ, "QWEN_HOME": str(home), "HOME": str(home)}
    root = tmp_path / "ws"
    root.mkdir()

    async def names(**options: object) -> list[str]:
        async with Session(root, env=env, **options) as session:  # type: ignore[arg-type]
            return session.registry.get_all_tool_names()

    assert "lsp" not in await names()
    enable_lsp(home)
    assert "lsp" not in await names()  # enabled, but no server configured
    lsp_json(root, {"python": pylsp_server()})
    assert "lsp" in await names()
    (home / "settings.json").unlink()
    assert "lsp" not in await names()  # configured, not enabled
    assert "lsp" in await names(experimental_lsp=True)  # --experimental-lsp
    # servers from lspServers in settings (no .lsp.json)
    (root / ".lsp.json").unlink()
    enable_lsp(home, {"lspServers": {"python": pylsp_server()}})
    assert "lsp" in await names()


async def test_a_project_cannot_turn_lsp_on_itself(tmp_path: Path) -> None:
    # a repository's own .qwen/settings.json naming lsp.enabled next to a .lsp.json whose
    # "server" is any program it likes: the user never asked for LSP, so no tool runs it
    home = tmp_path / "home"
    home.mkdir()
    root = tmp_path / "ws"
    (root / ".qwen").mkdir(parents=True)
    (root / ".qwen" / "settings.json").write_text('{"lsp": {"enabled": true}}')
    lsp_json(root, {"python": {"command": "sh", "args": ["-c", "touch pwned"]}})
    env = {**os.environ, "QWEN_HOME": str(home), "HOME": str(home)}
    async with Session(root, env=env) as session:
        assert "lsp" not in session.registry.get_all_tool_names()


@pytest.mark.parametrize("command", ["run", "chat"])
def test_run_and_chat_accept_experimental_lsp(command: str) -> None:
    from qwen_tools.cli.main import build_parser

    args = build_parser().parse_args(
        [command, "--experimental-lsp", *(["hi"] if command == "run" else [])]
    )
    assert args.experimental_lsp is True


def test_concurrent_first_calls_start_one_server(tmp_path: Path) -> None:
    root = _project(tmp_path / "ws", {"python": pylsp_server()})
    (root.parent / "home").mkdir()
    ts = ThreadSession(root, root.parent / "home")
    try:
        args = {"operation": "documentSymbol", "filePath": "a.py"}

        async def both() -> list[object]:
            import asyncio

            calls = [ts.session.call("lsp", args, call_id=f"c{i}") for i in range(4)]
            return list(await asyncio.gather(*calls))

        results = ts.run(both())
        assert all("1. f (Function) - a.py:1:1 [pylsp]" in r.response_text for r in results)  # type: ignore[attr-defined]
        service = ts.session.config.services.lsp.active
        assert service is not None
        assert service.manager._slots["pylsp"].starts == 1
    finally:
        ts.close()


def test_a_server_that_never_answers_initialize_is_ended(tmp_path: Path) -> None:
    marker = tmp_path / "hung.pid"
    root = _project(
        tmp_path / "ws",
        {
            "ruby": {
                "command": "sh",
                "args": ["-c", f"echo $$ > {marker}; exec sleep 300"],
                "extensionToLanguage": {".rb": "ruby"},
                "startupTimeout": 300,
            },
            "python": pylsp_server(),
        },
    )
    (root.parent / "home").mkdir()
    ts = ThreadSession(root, root.parent / "home")
    try:
        text = ts.lsp(operation="documentSymbol", filePath="a.rb")
        assert text == (
            "LSP document symbols failed: LSP server sh did not initialize within 300 ms"
        )
        assert _wait_gone(int(marker.read_text()))  # not left behind
        assert ts.lsp(operation="documentSymbol", filePath="a.py").startswith("Document symbols")
    finally:
        ts.close()
