"""``serve --transport http``: a client's MCP roots narrow its session's workspace.

Real clients (the SDK's, with a ``list_roots_callback``) against one real server on W: a client
whose roots are [W/a] reads inside W/a and is refused W/b with the usual outside-the-workspace
error; a client without the roots capability keeps the whole of W; a client whose only roots lie
outside W (a directory elsewhere, a symlink in W that points elsewhere) has its calls refused with
an error naming those roots, rather than being widened to W. A root's own ``.qwen/settings.json``
is never loaded (its ``discoveryCommand`` would run a program of the client's choosing).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
from mcp import Client

from .conftest import start_http


def text_of(result: types.CallToolResult) -> str:
    (block,) = result.content
    assert isinstance(block, types.TextContent)
    return block.text


def roots_callback(*dirs: Path) -> Any:
    async def list_roots(context: Any) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=d.as_uri(), name=d.name) for d in dirs]  # type: ignore[arg-type]
        )

    return list_roots


def make_tree(ws: Path) -> tuple[Path, Path]:
    a, b = ws / "a", ws / "b"
    a.mkdir()
    b.mkdir()
    (a / "x.txt").write_text("in a\n")
    (b / "y.txt").write_text("in b\n")
    return a, b


async def test_roots_narrow_the_workspace(ws: Path, env: dict[str, str], tmp_path: Path) -> None:
    a, b = make_tree(ws)
    marker = tmp_path / "discovered"
    (a / ".qwen").mkdir()
    (a / ".qwen" / "settings.json").write_text(
        json.dumps({"tools": {"discoveryCommand": f"touch {marker}; echo []"}})
    )
    server = start_http(ws, env, tmp_path / "server.log")
    x, y = str(a / "x.txt"), str(b / "y.txt")
    try:
        with anyio.fail_after(60):
            async with (
                Client(server.url, mode="legacy", list_roots_callback=roots_callback(a)) as ca,
                Client(server.url, mode="legacy") as cb,
            ):
                done = await ca.call_tool("read_file", {"file_path": x})
                assert not done.is_error, text_of(done)
                assert "in a" in text_of(done)
                refused = await ca.call_tool("read_file", {"file_path": y})
                assert refused.is_error
                assert text_of(refused) == (
                    f"File path must be within one of the workspace directories: {a}"
                )
                listed = await ca.call_tool("list_directory", {"path": str(ws)})
                assert listed.is_error, text_of(listed)
                done = await cb.call_tool("read_file", {"file_path": y})
                assert not done.is_error, text_of(done)
                assert "in b" in text_of(done)
    finally:
        assert server.stop() == 0, server.stderr()
    assert not marker.exists()  # the root's settings were not loaded


async def test_roots_outside_the_workspace_are_refused(
    ws: Path, env: dict[str, str], tmp_path: Path
) -> None:
    a, _ = make_tree(ws)
    elsewhere = Path(os.path.realpath(tmp_path)) / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "secret.txt").write_text("secret\n")
    link = ws / "link"
    link.symlink_to(elsewhere)
    server = start_http(ws, env, tmp_path / "server.log")
    try:
        with anyio.fail_after(60):
            outside = roots_callback(elsewhere, link)
            async with Client(server.url, mode="legacy", list_roots_callback=outside) as cc:
                for path in (str(elsewhere / "secret.txt"), str(a / "x.txt")):
                    refused = await cc.call_tool("read_file", {"file_path": path})
                    assert refused.is_error
                    message = text_of(refused)
                    assert elsewhere.as_uri() in message
                    assert link.as_uri() in message
                    assert "outside the server's workspace" in message
            mixed = roots_callback(elsewhere, a)
            async with Client(server.url, mode="legacy", list_roots_callback=mixed) as cm:
                done = await cm.call_tool("read_file", {"file_path": str(a / "x.txt")})
                assert not done.is_error, text_of(done)
                refused = await cm.call_tool(
                    "read_file", {"file_path": str(elsewhere / "secret.txt")}
                )
                assert refused.is_error
                assert "within one of the workspace directories" in text_of(refused)
    finally:
        assert server.stop() == 0, server.stderr()
    assert elsewhere.as_uri() in server.stderr()  # the ignored root is logged
