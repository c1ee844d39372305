"""``permissions.deny`` / ``permissions.ask`` / ``tools.exclude`` rules, enforced as Qwen Code 0.24.4.

Deny beats ask beats allow; deny rules hold in every approval mode, yolo included; a whole-tool
deny rule keeps the tool out of the registry. A denied shell command is refused wherever bash
would run it (compound commands, substitutions, ``bash -c``, wrappers, paths, quotes).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import (
    ApprovalMode,
    Config,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
    ToolErrorType,
    ToolSettings,
    build_registry,
    run_tool_call,
)
from qwen_tools.config.tool_settings import McpServerConfig
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.registration import register_mcp_tools
from support.cli_env import isolated_env
from support.processes import process_guard

EXE = Path(sys.executable).with_name("qwen-tools")
NOT_INTERACTIVE = "(non-interactive mode cannot prompt for confirmation)."


def denied_call(name: str, rule: str, tool_wide: bool = False) -> str:
    still = "" if tool_wide else " Other uses of this tool are still permitted."
    return (
        f'This "{name}" invocation was denied by permission rules. '
        f'Matching deny rule: "{rule}".{still}'
    )


def denied_tool(name: str, rule: str) -> str:
    return (
        f'Qwen Code requires permission to use "{name}", but that permission was declined. '
        f'Matching deny rule: "{rule}".'
    )


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    (root / "victim.txt").write_text("keep me\n")
    (root / "notes.txt").write_text("notes\n")
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = Path(os.path.realpath(tmp_path)) / "home" / ".qwen"
    path.mkdir(parents=True)
    return path


def make(ws: Path, home: Path, mode: ApprovalMode, **settings: Any) -> Config:
    return Config(ws, settings=ToolSettings(**settings), approval_mode=mode, home_dir=home)


async def shell(config: Config, command: str, **kwargs: Any) -> Any:
    request = ToolCallRequest("run_shell_command", {"command": command})
    return await run_tool_call(build_registry(config), config, request, **kwargs)


RM_EVASIONS = [
    "rm victim.txt",
    "rm -f victim.txt",
    "echo hi && rm victim.txt",
    "ls; rm victim.txt",
    "true || rm victim.txt",
    "ls | rm victim.txt",
    "/bin/rm victim.txt",
    "/usr/bin/../bin/rm victim.txt",
    "\\rm victim.txt",
    "r''m victim.txt",
    '"rm" victim.txt',
    "command rm victim.txt",
    "env rm victim.txt",
    "env -i FOO=1 rm victim.txt",
    "sudo -n rm victim.txt",
    "nohup rm victim.txt",
    "timeout 5 rm victim.txt",
    "nice -n 5 rm victim.txt",
    "exec rm victim.txt",
    "bash -c 'rm victim.txt'",
    'sh -c "ls && rm victim.txt"',
    "echo $(rm victim.txt)",
    "echo `rm victim.txt`",
    "(rm victim.txt)",
    "{ rm victim.txt; }",
    "if true; then rm victim.txt; fi",
    "for f in victim.txt; do rm $f; done",
    "f() { rm victim.txt; }; f",
    "eval rm victim.txt",
    "eval 'rm victim.txt'",
    "echo victim.txt | xargs rm",
    "xargs -I{} rm {} <<< victim.txt",
    "find . -name victim.txt -exec rm {} \\;",
    "RM=rm; $RM victim.txt",
    "${RM:-rm} victim.txt",
    "$(echo rm) victim.txt",
    "source <(echo rm victim.txt)",
    "echo 'rm victim.txt' | bash",
    "echo 'rm victim.txt' | sh -s",
    "flock /tmp/lock rm victim.txt",
    "trap 'rm victim.txt' EXIT",
    "cat <<EOF\n$(rm victim.txt)\nEOF",
    "{rm,victim.txt}",
    "/bin/r? victim.txt",
    "/bin/r[m] victim.txt",
    "busybox rm victim.txt",
    "strace -f -o /dev/null rm victim.txt",
    "ssh -p 22 localhost rm victim.txt",
    "find /bin /usr/bin -name rm -exec {} victim.txt \\;",
    "echo rm | xargs -I{} {} victim.txt",
    "parallel -j 2 rm ::: victim.txt",
]


@pytest.mark.parametrize("command", RM_EVASIONS)
async def test_denied_command_is_refused_in_yolo(ws: Path, home: Path, command: str) -> None:
    config = make(ws, home, ApprovalMode.YOLO, permissions_deny=("Bash(rm:*)",))
    done = await shell(config, command)
    assert done.status == "error", done.response_text
    assert done.error_type == ToolErrorType.EXECUTION_DENIED
    assert (ws / "victim.txt").exists()


async def test_deny_message_names_the_rule(ws: Path, home: Path) -> None:
    config = make(ws, home, ApprovalMode.YOLO, permissions_deny=("Bash(rm:*)",))
    done = await shell(config, "ls && rm victim.txt")
    assert done.response_text == denied_call("run_shell_command", "Bash(rm:*)")
    config = make(ws, home, ApprovalMode.YOLO, permissions_deny=("Bash(*)",))
    done = await shell(config, "ls")
    assert done.response_text == denied_call("run_shell_command", "Bash(*)", tool_wide=True)


async def test_other_commands_still_run_in_yolo(ws: Path, home: Path) -> None:
    config = make(ws, home, ApprovalMode.YOLO, permissions_deny=("Bash(rm:*)",))
    for command in ("ls", "cat notes.txt", "echo rm", "touch new.txt", "grep rm notes.txt || true"):
        done = await shell(config, command)
        assert done.status == "success", (command, done.response_text)


async def test_deny_beats_allow(ws: Path, home: Path) -> None:
    config = make(
        ws,
        home,
        ApprovalMode.DEFAULT,
        permissions_allow=("Bash(rm:*)",),
        allowed=("run_shell_command",),
        permissions_deny=("Bash(rm:*)",),
    )
    done = await shell(config, "rm victim.txt")
    assert done.status == "error" and done.error_type == ToolErrorType.EXECUTION_DENIED
    assert (ws / "victim.txt").exists()


def counting_confirm(
    asked: list[str], outcome: ToolConfirmationOutcome = ToolConfirmationOutcome.PROCEED_ONCE
) -> Any:
    async def confirm(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        asked.append(f"{request.name}:{details.type}")
        return outcome, None

    return confirm


async def test_ask_read_makes_read_tools_ask(ws: Path, home: Path) -> None:
    config = make(ws, home, ApprovalMode.DEFAULT, permissions_ask=("Read",))
    registry = build_registry(config)
    requests = [
        ToolCallRequest("read_file", {"absolute_path": str(ws / "notes.txt")}),
        ToolCallRequest("glob", {"pattern": "*.txt"}),
        ToolCallRequest("grep_search", {"pattern": "notes"}),
        ToolCallRequest("list_directory", {"path": str(ws)}),
    ]
    for request in requests:
        if registry.get_tool(request.name) is None:
            continue
        refused = await run_tool_call(registry, config, request)
        assert refused.status == "error" and NOT_INTERACTIVE in refused.response_text, request
        asked: list[str] = []
        done = await run_tool_call(registry, config, request, confirm=counting_confirm(asked))
        assert done.status == "success" and asked == [f"{request.name}:info"], request


async def test_ask_beats_allow_and_yolo_still_runs(ws: Path, home: Path) -> None:
    settings = {"permissions_ask": ("Read",), "permissions_allow": ("Read",)}
    request = ToolCallRequest("read_file", {"absolute_path": str(ws / "notes.txt")})
    config = make(ws, home, ApprovalMode.DEFAULT, **settings)
    refused = await run_tool_call(build_registry(config), config, request)
    assert refused.status == "error" and NOT_INTERACTIVE in refused.response_text
    config = make(ws, home, ApprovalMode.YOLO, **settings)
    done = await run_tool_call(build_registry(config), config, request)
    assert done.status == "success"


async def test_ask_rule_on_a_read_only_shell_command(ws: Path, home: Path) -> None:
    config = make(ws, home, ApprovalMode.DEFAULT, permissions_ask=("Bash(cat:*)",))
    asked: list[str] = []
    done = await shell(config, "ls && cat notes.txt", confirm=counting_confirm(asked))
    assert done.status == "success" and asked == ["run_shell_command:exec"]
    asked.clear()
    done = await shell(config, "ls", confirm=counting_confirm(asked))
    assert done.status == "success" and asked == []


async def test_whole_tool_deny_unregisters(ws: Path, home: Path) -> None:
    config = make(ws, home, ApprovalMode.YOLO, permissions_deny=("WebFetch", "Edit"))
    registry = build_registry(config)
    names = set(registry.get_all_tool_names())
    assert not names & {"web_fetch", "edit", "write_file"}
    assert "read_file" in names
    done = await run_tool_call(
        registry,
        config,
        ToolCallRequest("web_fetch", {"url": "https://example.com", "prompt": "x"}),
    )
    assert done.status == "error"
    assert done.error_type == ToolErrorType.EXECUTION_DENIED
    assert done.response_text == denied_tool("web_fetch", "WebFetch")


async def test_tools_exclude_specifiers_are_deny_rules(ws: Path, home: Path) -> None:
    subprocess.run(["git", "init", "-q", str(ws)], check=True, timeout=30)
    config = make(ws, home, ApprovalMode.YOLO, exclude=("run_shell_command(git push)",))
    assert "run_shell_command" in build_registry(config).get_all_tool_names()
    done = await shell(config, "git push origin main")
    assert done.response_text == denied_call("run_shell_command", "run_shell_command(git push)")
    done = await shell(config, "git status")
    assert done.status == "success", done.response_text


async def test_tools_exclude_aliases_unregister(ws: Path, home: Path) -> None:
    config = make(ws, home, ApprovalMode.YOLO, exclude=("Bash", "Read"))
    names = set(build_registry(config).get_all_tool_names())
    assert not names & {"run_shell_command", "read_file", "glob", "grep_search"}


async def test_path_deny_on_file_tools(ws: Path, home: Path) -> None:
    (ws / "secret").mkdir()
    (ws / "secret" / "key.txt").write_text("k\n")
    config = make(ws, home, ApprovalMode.YOLO, permissions_deny=("Read(/secret/**)",))
    registry = build_registry(config)
    done = await run_tool_call(
        registry,
        config,
        ToolCallRequest("read_file", {"absolute_path": str(ws / "secret/key.txt")}),
    )
    assert done.response_text == denied_call("read_file", "Read(/secret/**)")
    done = await run_tool_call(
        registry, config, ToolCallRequest("read_file", {"absolute_path": str(ws / "notes.txt")})
    )
    assert done.status == "success"


def test_settings_files_end_to_end(ws: Path, tmp_path: Path) -> None:
    """The settings as a user writes them, through ``qwen-tools call`` in yolo."""
    (ws / ".qwen").mkdir()
    settings = {
        "permissions": {"deny": ["Bash(rm:*)", "WebFetch"], "ask": ["Read"]},
        "tools": {"exclude": ["run_shell_command(git push)"]},
    }
    (ws / ".qwen" / "settings.json").write_text(json.dumps(settings))
    env = isolated_env(Path(os.path.realpath(tmp_path)))

    def call(name: str, args: dict[str, Any], mode: str = "yolo") -> dict[str, Any]:
        done = subprocess.run(
            [str(EXE), "call", name, json.dumps(args), "--json", "--approval-mode", mode],
            env=env,
            cwd=ws,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
        result: dict[str, Any] = json.loads(done.stdout)
        return result

    rm = call("run_shell_command", {"command": "echo x && rm victim.txt"})
    assert rm["responseText"] == denied_call("run_shell_command", "Bash(rm:*)")
    assert (ws / "victim.txt").exists()
    fetch = call("web_fetch", {"url": "https://example.com", "prompt": "x"})
    assert fetch["responseText"] == denied_tool("web_fetch", "WebFetch")
    read = call("read_file", {"absolute_path": str(ws / "notes.txt")}, mode="default")
    assert NOT_INTERACTIVE in read["responseText"]
    tools = subprocess.run(
        [str(EXE), "tools", "--json"], env=env, cwd=ws, capture_output=True, text=True, timeout=60
    )
    assert "web_fetch" not in tools.stdout and "read_file" in tools.stdout


DEMO = Path(__file__).resolve().parents[1] / "mcp" / "servers" / "demo_server.py"


@pytest.fixture
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Marks the test's processes; fails the test if one outlives it."""
    yield from process_guard(monkeypatch, timeout=5.0)


@pytest.mark.parametrize(
    ("rule", "kept"), [("mcp__srv__echo", True), ("mcp__srv", False), ("mcp__srv__*", False)]
)
async def test_mcp_deny_rules(
    ws: Path, home: Path, process_mark: str, rule: str, kept: bool
) -> None:
    server = McpServerConfig(command=sys.executable, args=(str(DEMO),))
    config = make(
        ws, home, ApprovalMode.YOLO, mcp_servers={"srv": server}, permissions_deny=(rule,)
    )
    registry = build_registry(config)
    async with McpManager(config) as manager:
        await register_mcp_tools(registry, manager)
        names = {t.name for t in registry.get_all_tools() if t.server_name == "srv"}
        assert "srv__echo" not in names
        assert bool(names) is kept
        done = await run_tool_call(
            registry, config, ToolCallRequest("mcp__srv__echo", {"text": "hi"})
        )
    assert done.error_type == ToolErrorType.EXECUTION_DENIED
    assert done.response_text == denied_tool("mcp__srv__echo", rule)


FILE_RULE_EVASIONS = [
    "cat secret/key.txt",
    "head -n1 secret/key.txt",
    "grep -r k secret",
    "cd secret && cat key.txt",
    "bash -c 'cat secret/key.txt'",
    "cat < secret/key.txt",
    "tail secret/*.txt",
    "cp secret/key.txt copy.txt",
    "cd $DIR && cat key.txt",
]


@pytest.mark.parametrize("command", FILE_RULE_EVASIONS)
async def test_file_deny_rules_cover_what_the_shell_reads(
    ws: Path, home: Path, command: str
) -> None:
    (ws / "secret").mkdir()
    (ws / "secret" / "key.txt").write_text("TOP-SECRET\n")
    for mode in (ApprovalMode.DEFAULT, ApprovalMode.YOLO):
        config = make(ws, home, mode, permissions_deny=("Read(/secret/**)",))
        done = await shell(config, command)
        assert done.error_type == ToolErrorType.EXECUTION_DENIED, (mode, done.response_text)
        assert "TOP-SECRET" not in done.response_text
    assert not (ws / "copy.txt").exists()


async def test_write_and_fetch_rules_cover_the_shell(ws: Path, home: Path) -> None:
    config = make(
        ws,
        home,
        ApprovalMode.YOLO,
        permissions_deny=("Edit(/victim.txt)", "WebFetch(example.com)"),
    )
    for command in (
        "echo gone > victim.txt",
        "sed -i s/keep/lose/ victim.txt",
        "truncate -s0 victim.txt",
        "tee victim.txt < notes.txt",
        "curl -s https://www.example.com/x",
        "wget -q example.com",
    ):
        done = await shell(config, command)
        assert done.error_type == ToolErrorType.EXECUTION_DENIED, (command, done.response_text)
    assert (ws / "victim.txt").read_text() == "keep me\n"
    done = await shell(config, "echo ok > other.txt && cat notes.txt")
    assert done.status == "success", done.response_text


async def test_ask_read_covers_shell_reads(ws: Path, home: Path) -> None:
    config = make(ws, home, ApprovalMode.DEFAULT, permissions_ask=("Read",))
    for command in ("cat notes.txt", "ls", "grep notes notes.txt"):
        done = await shell(config, command)
        assert NOT_INTERACTIVE in done.response_text, command
        asked: list[str] = []
        done = await shell(config, command, confirm=counting_confirm(asked))
        assert done.status == "success" and asked == ["run_shell_command:exec"], command
    done = await shell(config, "echo hi")
    assert done.status == "success"
