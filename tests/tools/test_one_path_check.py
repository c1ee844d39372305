"""One path check: ``tools/common/paths.py`` alone decides whether a path the model gave is
absolute and inside the workspace, and alone words the refusals.

The static test reads every tool module as Python syntax: a module that asks the workspace
itself, or spells a refusal text of its own, fails with its file and line. The behavioural
test sends each file tool a relative path and a path outside, and compares the texts the model
receives with the reference's, byte for byte.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import ApprovalMode, Config, ToolCallRequest, ToolRegistry, run_tool_call
from qwen_tools.tools import EditTool, GlobTool, ListDirectoryTool, ReadFileTool, WriteFileTool

TOOLS = Path(__file__).resolve().parents[2] / "src" / "qwen_tools" / "tools"
HOME = "common/paths.py"

# Asking the workspace whether one path is inside is the path check's job (handing the
# workspace's predicate to a walk that filters what it finds is not a check of a given path).
_CHECKS = {"is_path_within_workspace", "is_path_readable"}
# The refusal texts (only their model-facing wording, not prose in a tool description).
_TEXTS = ("File path must be absolute", "Path must be absolute", "within one of the workspace")


def _docstrings(tree: ast.Module) -> list[ast.AST]:
    """The docstring nodes (prose about the texts, not the texts the model receives)."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.append(first.value)
    return found


def _offences() -> list[str]:
    found: list[str] = []
    for path in sorted(TOOLS.rglob("*.py")):
        rel = path.relative_to(TOOLS).as_posix()
        if rel == HOME:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node) for node in _docstrings(tree)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "workspace_error":
                found.append(f"{rel}:{node.lineno}: .workspace_error")
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _CHECKS
            ):
                found.append(f"{rel}:{node.lineno}: .{node.func.attr}(...)")
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and id(node) not in docstrings
                and any(text in node.value for text in _TEXTS)
            ):
                found.append(f"{rel}:{node.lineno}: {node.value!r}")
    return found


def test_no_tool_checks_paths_or_words_refusals_itself() -> None:
    assert _offences() == []


async def _text(ws: Path, name: str, args: dict[str, Any]) -> str:
    config = Config(ws, approval_mode=ApprovalMode.YOLO)
    tools = [
        ReadFileTool(config),
        ListDirectoryTool(config),
        GlobTool(config),
        WriteFileTool(config),
        EditTool(config),
    ]
    done = await run_tool_call(ToolRegistry(tools), config, ToolCallRequest(name, args))
    return done.response_text


@pytest.mark.parametrize(
    ("name", "args", "expected"),
    [
        (
            "read_file",
            {"file_path": "rel.txt"},
            "File path must be absolute, but was relative: rel.txt. "
            "You must provide an absolute path.",
        ),
        ("write_file", {"file_path": "rel.txt", "content": "x"}, "File path must be absolute: "),
        (
            "edit",
            {"file_path": "rel.txt", "old_string": "a", "new_string": "b"},
            "File path must be absolute: ",
        ),
        ("list_directory", {"path": " rel\\ dir "}, "Path must be absolute: rel dir"),
    ],
)
async def test_relative_paths_get_the_reference_text(
    ws: Path, name: str, args: dict[str, Any], expected: str
) -> None:
    text = await _text(ws, name, args)
    if expected.endswith(": "):
        expected += "rel.txt"
    assert text == expected


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("read_file", {"file_path": "{out}/secret.txt"}),
        ("write_file", {"file_path": "{out}/new.txt", "content": "x"}),
        ("edit", {"file_path": "{out}/secret.txt", "old_string": "top", "new_string": "x"}),
        ("list_directory", {"path": "{out}"}),
        ("glob", {"pattern": "*", "path": "{out}"}),
    ],
)
async def test_outside_paths_get_the_reference_text(
    ws: Path, outside: Path, name: str, args: dict[str, Any]
) -> None:
    filled = {k: v.replace("{out}", str(outside)) for k, v in args.items()}
    text = await _text(ws, name, filled)
    message = f"File path must be within one of the workspace directories: {ws}"
    assert text == message
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert not (outside / "new.txt").exists()
