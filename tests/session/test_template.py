"""``SessionTemplate``: cheap sessions on one base config, each with state of its own.

Every test attacks one thing the template must not share between two of its sessions (what a
stateless ``serve`` request relies on): "always allow" answers, files read, the approval mode,
the session id (the todo list), the workspace, the services, the tools, and the ignore files
as they are now. And one thing it must share: the settings, read once.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from qwen_tools import ApprovalMode, Session
from qwen_tools.session.template import SessionTemplate


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".qwen").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("QWEN_HOME", str(home / ".qwen"))
    monkeypatch.delenv("QWEN_RUNTIME_DIR", raising=False)
    monkeypatch.setenv("QWEN_CODE_SYSTEM_SETTINGS_PATH", str(tmp_path / "system.json"))
    monkeypatch.setenv("QWEN_CODE_SYSTEM_DEFAULTS_PATH", str(tmp_path / "defaults.json"))
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    (root / "a.txt").write_text("one\ntwo\n")
    return root


@pytest.fixture
async def template(ws: Path) -> SessionTemplate:
    base = Session(ws, approval_mode="yolo", interactive=False)
    return SessionTemplate(base.config, exclude_tools=("task",))


async def test_always_allow_answers_stay_in_their_session(template: SessionTemplate) -> None:
    async with template.open() as a, template.open() as b:
        a.state.always_allowed_tools.add("run_shell_command")
        a.state.always_allowed_shell_roots.add("rm")
        a.state.always_allowed_mcp_servers.add("upstream")
        a.state.always_allowed_memory_files.add("/x/QWEN.md_global")
        for session in (b, template.open()):
            state = session.state
            assert not state.always_allowed_tools and not state.always_allowed_shell_roots
            assert not state.always_allowed_mcp_servers
            assert not state.always_allowed_memory_files


async def test_a_read_in_one_session_does_not_let_another_edit(
    template: SessionTemplate, ws: Path
) -> None:
    path = str(ws / "a.txt")
    edit = {"file_path": path, "old_string": "two", "new_string": "2"}
    async with template.open() as a:
        assert (await a.call("read_file", {"file_path": path})).status == "success"
    async with template.open() as b:
        refused = await b.call("edit", edit)
    assert refused.status == "error" and "has not been read" in refused.response_text
    async with template.open() as c:
        assert (await c.call("read_file", {"file_path": path})).status == "success"
        assert (await c.call("edit", edit)).status == "success"
    assert (ws / "a.txt").read_text() == "one\n2\n"


async def test_an_approval_mode_change_stays_in_its_session(template: SessionTemplate) -> None:
    async with template.open() as a:
        a.approval_mode = ApprovalMode.DEFAULT
        async with template.open() as b:
            assert b.approval_mode is ApprovalMode.YOLO


async def test_each_session_has_its_own_todo_list(template: SessionTemplate) -> None:
    todos = [{"id": "1", "content": "mine", "status": "pending"}]
    async with template.open() as a, template.open() as b:
        assert a.config.session_id != b.config.session_id
        assert (await a.call("todo_write", {"todos": todos})).status == "success"
        other = [{"id": "1", "content": "theirs", "status": "pending"}]
        assert (await b.call("todo_write", {"todos": other})).status == "success"
    files = sorted((Path(os.environ["QWEN_HOME"]) / "todos").glob("*.json"))
    assert len(files) == 2
    contents = {json.loads(f.read_text())["todos"][0]["content"] for f in files}
    assert contents == {"mine", "theirs"}


async def test_a_workspace_change_stays_in_its_session(
    template: SessionTemplate, ws: Path, tmp_path: Path
) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "b.txt").write_text("b\n")
    async with template.open() as a:
        a.workspace.add_directory(extra)
        assert (await a.call("read_file", {"file_path": str(extra / "b.txt")})).status == "success"
        async with template.open() as b:
            assert b.workspace.directories == (ws,)
            refused = await b.call("read_file", {"file_path": str(extra / "b.txt")})
            assert refused.status == "error"
    # the saved-output directory stays readable (made once, for the base)
    assert template.open().workspace.readonly_directories


async def test_services_and_tools_belong_to_their_session(template: SessionTemplate) -> None:
    async with template.open() as a, template.open() as b:
        assert a.config.services is not b.config.services
        assert a.config.services.lsp is not b.config.services.lsp
        a.config.services.model.lend(subagent_runner=object())  # type: ignore[arg-type]
        assert b.config.services.model.subagent_runner is None
        assert a.registry is not b.registry
        tool_a, tool_b = a.registry.get_tool("read_file"), b.registry.get_tool("read_file")
        assert tool_a is not None and tool_b is not None and tool_a is not tool_b
        assert a.registry.get_tool("task") is None  # excluded, as the template says


async def test_ignore_files_are_read_afresh_by_each_session(
    template: SessionTemplate, ws: Path
) -> None:
    path = str(ws / "a.txt")
    async with template.open() as a:
        assert (await a.call("read_file", {"file_path": path})).status == "success"
    (ws / ".qwenignore").write_text("a.txt\n")
    async with template.open() as b:
        refused = await b.call("read_file", {"file_path": path})
    assert refused.status == "error", refused.response_text


async def test_the_settings_are_read_once(template: SessionTemplate, ws: Path) -> None:
    (ws / ".qwen").mkdir()
    (ws / ".qwen" / "settings.json").write_text('{"tools": {"exclude": ["glob"]}}')
    async with template.open() as session:
        assert session.registry.get_tool("glob") is not None
