"""QWEN.md / AGENTS.md discovery, order, imports, rules and the system prompt around them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from qwen_tools import Config
from qwen_tools.agent.context import load_context
from qwen_tools.agent.prompt import assemble_system_prompt
from support.workspaces import git_init


@pytest.fixture
def layout(tmp_path: Path) -> dict[str, Path]:
    """home/.qwen (global), outer/ (above the repo), outer/repo (git root), repo/pkg/sub (cwd)."""
    root = Path(os.path.realpath(tmp_path))
    home = root / "home"
    qwen_home = home / ".qwen"
    qwen_home.mkdir(parents=True)
    outer = root / "outer"
    repo = outer / "repo"
    cwd = repo / "pkg" / "sub"
    cwd.mkdir(parents=True)
    git_init(repo)
    return {
        "root": root,
        "home": home,
        "qwen_home": qwen_home,
        "outer": outer,
        "repo": repo,
        "cwd": cwd,
    }


def load(layout: dict[str, Path], settings: dict[str, object] | None = None) -> str:
    home = layout["home"]
    if settings is not None:
        (layout["qwen_home"] / "settings.json").write_text(json.dumps(settings))
    env = {"HOME": str(home), "QWEN_HOME": str(layout["qwen_home"])}
    env["QWEN_CODE_SYSTEM_SETTINGS_PATH"] = str(layout["root"] / "none.json")
    config = Config.load(layout["cwd"], env=env)
    config.home_dir = layout["qwen_home"]
    return load_context(config, user_home=home).text


def block(path: str, body: str) -> str:
    return f"--- Context from: {path} ---\n{body}\n--- End of Context from: {path} ---"


def test_hierarchy_order(layout: dict[str, Path]) -> None:
    (layout["qwen_home"] / "QWEN.md").write_text("global\n")
    (layout["root"] / "QWEN.md").write_text("above the repo's parent: never read\n")
    (layout["outer"] / "QWEN.md").write_text("repo parent\n")
    (layout["repo"] / "QWEN.md").write_text("  repo root  \n")
    (layout["repo"] / "pkg" / "QWEN.md").write_text("pkg\n")
    (layout["cwd"] / "QWEN.md").write_text("cwd\n")
    (layout["cwd"] / "deeper").mkdir()
    (layout["cwd"] / "deeper" / "QWEN.md").write_text("below cwd: never read\n")
    (layout["repo"] / "AGENTS.md").write_text("agents\n")
    (layout["qwen_home"] / "AGENTS.md").write_text("global agents\n")
    (layout["repo"] / ".qwen").mkdir()
    (layout["repo"] / ".qwen" / "QWEN.local.md").write_text("local\n")
    (layout["cwd"] / "EMPTY.md").write_text("")
    text = load(layout)
    home_rel = os.path.relpath(layout["qwen_home"], layout["cwd"])
    assert text == "\n\n".join(
        [
            block(f"{home_rel}/QWEN.md", "global"),
            block("../../../QWEN.md", "repo parent"),
            block("../../QWEN.md", "repo root"),
            block("../QWEN.md", "pkg"),
            block("QWEN.md", "cwd"),
            block(f"{home_rel}/AGENTS.md", "global agents"),
            block("../../AGENTS.md", "agents"),
            block("../../.qwen/QWEN.local.md", "local"),
        ]
    )


def test_file_name_setting_and_empty_files(layout: dict[str, Path]) -> None:
    (layout["repo"] / "QWEN.md").write_text("default name\n")
    (layout["repo"] / "CONTEXT.md").write_text("custom\n")
    (layout["cwd"] / "CONTEXT.md").write_text("   \n")
    assert load(layout, {"context": {"fileName": "CONTEXT.md"}}) == block(
        "../../CONTEXT.md", "custom"
    )
    (layout["repo"] / "OTHER.md").write_text("other\n")
    assert load(layout, {"context": {"fileName": ["OTHER.md", "CONTEXT.md"]}}) == "\n\n".join(
        [block("../../OTHER.md", "other"), block("../../CONTEXT.md", "custom")]
    )


def test_imports(layout: dict[str, Path]) -> None:
    repo = layout["repo"]
    (repo / "docs").mkdir()
    (repo / "docs" / "style.md").write_text("Use tabs. @./nested.md")
    (repo / "docs" / "nested.md").write_text("nested rule")
    (repo / "QWEN.md").write_text(
        "Intro @docs/style.md\nMissing @nope.md\nCode `@docs/style.md` stays.\n"
        "Outside @../../escape.md\nemail a@docs/style.md\n"
    )
    text = load(layout)
    assert text == block(
        "../../QWEN.md",
        "Intro <!-- Imported from: docs/style.md -->\n"
        "Use tabs. <!-- Imported from: ./nested.md -->\nnested rule\n"
        "<!-- End of import from: ./nested.md -->\n"
        "<!-- End of import from: docs/style.md -->\n"
        "Missing @nope.md\nCode `@docs/style.md` stays.\n"
        "Outside <!-- Import failed: ../../escape.md - Path traversal attempt -->\n"
        "email a@docs/style.md",
    )


def test_rules(layout: dict[str, Path]) -> None:
    rules = layout["repo"] / ".qwen" / "rules"
    rules.mkdir(parents=True)
    (rules / "b.md").write_text(
        "---\ndescription: style\n---\nAlways type hints.\n<!-- hidden -->\n"
    )
    (rules / "a.md").write_text("Run the tests.\n")
    (rules / "scoped.md").write_text("---\npaths:\n  - src/**\n---\nOnly for src.\n")
    (layout["repo"] / "QWEN.md").write_text("root\n")
    assert load(layout) == "\n\n".join(
        [
            block("../../QWEN.md", "root"),
            "--- Rule from: .qwen/rules/a.md ---\nRun the tests.\n--- End of Rule from: .qwen/rules/a.md ---",
            "--- Rule from: .qwen/rules/b.md ---\nAlways type hints.\n--- End of Rule from: .qwen/rules/b.md ---",
        ]
    )


def test_untrusted_folder_reads_only_global_files(layout: dict[str, Path]) -> None:
    (layout["qwen_home"] / "QWEN.md").write_text("global\n")
    (layout["repo"] / "QWEN.md").write_text("project\n")
    settings = {"security": {"folderTrust": {"enabled": True}}}
    home_rel = os.path.relpath(layout["qwen_home"], layout["cwd"])
    assert load(layout, settings) == block(f"{home_rel}/QWEN.md", "global")


def test_system_prompt_layers() -> None:
    assert assemble_system_prompt("base", "ctx\n", None) == "base\n\n---\n\nctx"
    assert assemble_system_prompt("base", "  ", "more") == "base\n\n---\n\nmore"
