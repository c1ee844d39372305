"""Edits of files that make later commands run code always ask (except in yolo).

The attack of issue 10: in ``auto-edit`` the model edits ``.git/config`` to set
``core.fsmonitor`` and then runs ``git status`` (read-only, so never asked about), which runs the
planted command. Every test here uses a real git repository and real processes; a marker file
written by the planted command shows whether it ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
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
    ToolSettings,
    build_registry,
    run_tool_call,
)
from qwen_tools.execution.scheduler import ToolScheduler
from support.cli_env import isolated_env

EXE = Path(sys.executable).with_name("qwen-tools")
DENIED = "(non-interactive mode cannot prompt for confirmation)."


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, timeout=30)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    git(root, "init", "-q", ".")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    (root / "a.txt").write_text("one\n")
    (root / "src").mkdir()
    (root / "src" / "app.py").write_text("print('hi')\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "init")
    return root


@pytest.fixture
def home(tmp_path: Path) -> Path:
    path = Path(os.path.realpath(tmp_path)) / "home" / ".qwen"
    path.mkdir(parents=True)
    return path


def make_config(repo: Path, home: Path, mode: ApprovalMode, **settings: Any) -> Config:
    return Config(repo, settings=ToolSettings(**settings), approval_mode=mode, home_dir=home)


def planted_hook(marker: Path) -> str:
    return f"touch {marker}; false"


async def write(config: Config, path: str, content: str) -> Any:
    registry = build_registry(config)
    if os.path.exists(path):
        await run_tool_call(registry, config, ToolCallRequest("read_file", {"absolute_path": path}))
    request = ToolCallRequest("write_file", {"file_path": path, "content": content})
    return await run_tool_call(registry, config, request)


# -- the attack, end to end through the CLI ---------------------------------------------------


def test_auto_edit_cannot_plant_fsmonitor_then_run_git_status(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "PWNED"
    config_path = repo / ".git" / "config"
    lines = [
        {"name": "read_file", "args": {"absolute_path": str(config_path)}},
        {
            "name": "edit",
            "args": {
                "file_path": str(config_path),
                "old_string": "[core]",
                "new_string": f'[core]\n\tfsmonitor = "{planted_hook(marker)}"',
            },
        },
        {"name": "run_shell_command", "args": {"command": "git status"}},
    ]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = subprocess.run(
        [str(EXE), "call", "--approval-mode", "auto-edit", "--json", "--batch", str(batch)],
        env=isolated_env(tmp_path),
        cwd=repo,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    results = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["tool"] for r in results] == ["read_file", "edit", "run_shell_command"], done.stderr
    assert DENIED in results[1]["responseText"]
    assert "fsmonitor" not in config_path.read_text()
    assert "nothing to commit" in results[2]["responseText"]
    assert not marker.exists()


# -- which paths are sensitive, and tricks that must not hide them ------------------------------

SENSITIVE = [
    ".git/config",
    "./.git//config",
    "src/../.git/config",
    ".git/hooks/pre-commit",
    ".git/info/attributes",
    ".GIT/config",
    ".Git/hooks/post-checkout",
    ".gitmodules",
    ".gitattributes",
    "src/.gitattributes",
    ".husky/pre-commit",
    ".hg/hgrc",
    ".svn/config",
    ".qwen/settings.json",
    ".qwen/commands/x.toml",
    ".qwen/agents/a.md",
    ".qwen/.env",
    ".mcp.json",
    ".env",
    ".envrc",
    "package.json",
    ".npmrc",
    ".yarnrc.yml",
    "Makefile",
    "GNUmakefile",
    "justfile",
    "Taskfile.yml",
    ".github/workflows/ci.yml",
    ".vscode/tasks.json",
    ".vscode/settings.json",
    ".devcontainer/devcontainer.json",
    ".pre-commit-config.yaml",
    ".gitconfig",
    ".config/git/config",
    ".bashrc",
    ".profile",
    ".zshrc",
    ".ssh/config",
]


@pytest.mark.parametrize("relative", SENSITIVE)
async def test_sensitive_write_asks_in_auto_edit(repo: Path, home: Path, relative: str) -> None:
    config = make_config(repo, home, ApprovalMode.AUTO_EDIT)
    target = str(repo) + "/" + relative
    done = await write(config, target, "planted\n")
    assert done.status == "error", done.response_text
    assert DENIED in done.response_text
    assert not os.path.exists(target) or "planted" not in Path(target).read_text()


async def test_ordinary_write_is_still_auto_approved(repo: Path, home: Path) -> None:
    config = make_config(repo, home, ApprovalMode.AUTO_EDIT)
    done = await write(config, str(repo / "src" / "new.py"), "x = 1\n")
    assert done.status == "success", done.response_text
    done = await write(config, str(repo / "src" / "app.py"), "x = 2\n")
    assert done.status == "success", done.response_text


async def test_symlinks_to_git_metadata_are_sensitive(repo: Path, home: Path) -> None:
    (repo / "meta").symlink_to(repo / ".git")
    (repo / "cfg").symlink_to(repo / ".git" / "config")
    (repo / "hooks-link").symlink_to(repo / ".git" / "hooks")
    config = make_config(repo, home, ApprovalMode.AUTO_EDIT)
    for path in (repo / "meta" / "config", repo / "cfg", repo / "hooks-link" / "pre-commit"):
        done = await write(config, str(path), "planted\n")
        assert done.status == "error" and DENIED in done.response_text, path
    assert "planted" not in (repo / ".git" / "config").read_text()
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()


async def test_hard_link_to_git_config_is_sensitive(repo: Path, home: Path) -> None:
    os.link(repo / ".git" / "config", repo / "innocent.txt")
    config = make_config(repo, home, ApprovalMode.AUTO_EDIT)
    done = await write(config, str(repo / "innocent.txt"), "[core]\n\tfsmonitor = x\n")
    assert done.status == "error" and DENIED in done.response_text
    assert "fsmonitor" not in (repo / ".git" / "config").read_text()


async def test_qwen_home_is_sensitive_when_inside_the_workspace(repo: Path) -> None:
    home = repo / "dot-qwen"
    home.mkdir()
    config = make_config(repo, home, ApprovalMode.AUTO_EDIT)
    for name in ("settings.json", "trustedFolders.json", "commands/x.toml"):
        done = await write(config, str(home / name), "{}\n")
        assert done.status == "error" and DENIED in done.response_text, name


async def test_edit_tool_is_covered_too(repo: Path, home: Path) -> None:
    config = make_config(repo, home, ApprovalMode.AUTO_EDIT)
    registry = build_registry(config)
    path = str(repo / ".git" / "config")
    await run_tool_call(registry, config, ToolCallRequest("read_file", {"absolute_path": path}))
    request = ToolCallRequest(
        "edit", {"file_path": path, "old_string": "[core]", "new_string": "[core]\n\tx = 1"}
    )
    done = await run_tool_call(registry, config, request)
    assert done.status == "error" and DENIED in done.response_text


async def test_allow_rules_do_not_preapprove_sensitive_edits(repo: Path, home: Path) -> None:
    config = make_config(
        repo,
        home,
        ApprovalMode.DEFAULT,
        allowed=("write_file", "Edit"),
        permissions_allow=("Edit",),
    )
    done = await write(config, str(repo / ".git" / "hooks" / "pre-push"), "#!/bin/sh\n")
    assert done.status == "error" and DENIED in done.response_text
    done = await write(config, str(repo / "src" / "ok.py"), "x = 1\n")
    assert done.status == "success", done.response_text


async def test_sensitive_edit_asks_and_runs_when_approved(repo: Path, home: Path) -> None:
    asked: list[str] = []

    async def confirm(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        asked.append(details.type)
        return ToolConfirmationOutcome.PROCEED_ONCE, None

    config = make_config(repo, home, ApprovalMode.AUTO_EDIT)
    request = ToolCallRequest(
        "write_file", {"file_path": str(repo / ".gitattributes"), "content": "*.bin binary\n"}
    )
    done = await run_tool_call(build_registry(config), config, request, confirm=confirm)
    assert done.status == "success" and asked == ["edit"]


async def test_yolo_writes_without_asking(repo: Path, home: Path) -> None:
    config = make_config(repo, home, ApprovalMode.YOLO)
    done = await write(config, str(repo / ".git" / "hooks" / "pre-commit"), "#!/bin/sh\n")
    assert done.status == "success", done.response_text


# -- read-only git commands are judged with the repository's configuration -------------------


def plant(repo: Path, marker: Path, kind: str) -> str:
    """Configure the repository so ``command`` would run the planted program; the command."""
    hook = planted_hook(marker)
    (repo / "a.txt").write_text("two\n")
    if kind == "fsmonitor":
        git(repo, "config", "core.fsmonitor", hook)
        return "git status"
    if kind == "external":
        git(repo, "config", "diff.external", hook)
        return "git diff"
    if kind == "textconv":
        (repo / ".gitattributes").write_text("*.txt diff=evil\n")
        git(repo, "config", "diff.evil.textconv", f"touch {marker}; cat")
        return "git diff"
    if kind == "filter":
        (repo / ".gitattributes").write_text("*.txt filter=evil\n")
        git(repo, "config", "filter.evil.clean", f"touch {marker}; cat")
        return "git diff"
    if kind == "include":
        extra = repo / "extra.cfg"
        extra.write_text(f'[core]\n\tfsmonitor = "{hook}"\n')
        git(repo, "config", "include.path", str(extra))
        return "git status"
    if kind == "worktree-bare":
        bare = repo / "sub"
        git(repo, "commit", "-q", "-am", "two")
        subprocess.run(
            ["git", "clone", "-q", "--bare", str(repo), str(bare)],
            check=True,
            capture_output=True,
            timeout=30,
        )
        (bare / "info").mkdir(exist_ok=True)
        (bare / "info" / "attributes").write_text("* diff=evil\n")
        git(bare, "config", "diff.evil.textconv", f"touch {marker}; cat")
        return "git log -p"
    raise AssertionError(kind)


KINDS = ["fsmonitor", "external", "textconv", "filter", "include", "worktree-bare"]


@pytest.mark.parametrize("kind", KINDS)
async def test_read_only_git_asks_when_config_runs_programs(
    repo: Path, home: Path, tmp_path: Path, kind: str
) -> None:
    marker = tmp_path / "PWNED"
    command = plant(repo, marker, kind)
    directory = str(repo / "sub") if kind == "worktree-bare" else str(repo)
    config = make_config(repo, home, ApprovalMode.DEFAULT)
    request = ToolCallRequest("run_shell_command", {"command": command, "directory": directory})
    done = await run_tool_call(build_registry(config), config, request)
    assert done.status == "error" and DENIED in done.response_text, done.response_text
    assert not marker.exists()


async def test_plain_read_only_git_still_runs(repo: Path, home: Path) -> None:
    git(repo, "config", "core.fsmonitor", "false")
    config = make_config(repo, home, ApprovalMode.DEFAULT)
    for command in ("git status", "git log --oneline", "git diff", "git show --stat HEAD"):
        done = await run_tool_call(
            build_registry(config),
            config,
            ToolCallRequest("run_shell_command", {"command": command}),
        )
        assert done.status == "success", (command, done.response_text)


async def test_config_planted_after_approval_does_not_run(
    repo: Path, home: Path, tmp_path: Path
) -> None:
    """The verdict is taken again when the command runs: an approved edit in the same batch."""
    marker = tmp_path / "PWNED"
    config_path = repo / ".git" / "config"
    prompts: list[str] = []

    async def confirm(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        prompts.append(details.type)
        if details.type == "edit":
            return ToolConfirmationOutcome.PROCEED_ONCE, None
        return ToolConfirmationOutcome.CANCEL, None

    config = make_config(repo, home, ApprovalMode.AUTO_EDIT)
    registry = build_registry(config)
    await run_tool_call(
        registry, config, ToolCallRequest("read_file", {"absolute_path": str(config_path)})
    )
    scheduler = ToolScheduler(registry, config, confirm=confirm, telemetry=None)
    edit = ToolCallRequest(
        "edit",
        {
            "file_path": str(config_path),
            "old_string": "[core]",
            "new_string": f'[core]\n\tfsmonitor = "{planted_hook(marker)}"',
        },
        call_id="edit-1",
    )
    status = ToolCallRequest("run_shell_command", {"command": "git status"}, call_id="status-1")
    done = await scheduler.schedule([edit, status])
    assert done[0].status == "success", done[0].response_text
    assert prompts[0] == "edit"
    assert not marker.exists()


async def test_git_config_cannot_make_git_quote_an_outside_file(
    repo: Path, home: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-LINE\n")
    git(repo, "config", "blame.ignoreRevsFile", str(secret))
    config = make_config(repo, home, ApprovalMode.DEFAULT)
    request = ToolCallRequest("run_shell_command", {"command": "git blame a.txt"})
    done = await run_tool_call(build_registry(config), config, request)
    assert done.status == "error" and DENIED in done.response_text
    assert "TOP-SECRET" not in done.response_text
