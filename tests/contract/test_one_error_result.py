"""One error-result helper: every failed ``ToolResult`` is built by ``ToolResult.failure``.

The source is read as Python syntax (not grepped), so an error result built any other way --
``ToolResult(..., error=...)`` or a ``ToolError`` put together by hand -- fails here with its
file and line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.results import ToolResult

SRC = Path(__file__).resolve().parents[2] / "src" / "qwen_tools"

# Where a ToolError may be constructed: the helper itself, and FileContent's failure (a file
# read that failed, carried to read_file / read_many_files, which report it via failure()).
TOOL_ERROR_HOMES = {"contract/results.py", "tools/file_reading/content.py"}


def _called_name(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _offences() -> list[str]:
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            name = _called_name(node)
            if name == "ToolResult" and (
                len(node.args) >= 3 or any(k.arg == "error" for k in node.keywords)
            ):
                found.append(f"{rel}:{node.lineno}: ToolResult(..., error=...)")
            if name == "ToolError" and rel not in TOOL_ERROR_HOMES:
                found.append(f"{rel}:{node.lineno}: ToolError(...)")
    return found


def test_every_error_result_comes_from_tool_result_failure() -> None:
    assert _offences() == []


@pytest.mark.parametrize(
    ("llm_content", "display", "expected_llm", "expected_display"),
    [
        (None, None, "boom", "boom"),
        ("Error: boom", "Error writing file: boom", "Error: boom", "Error writing file: boom"),
        ("", "", "", ""),  # empty texts are kept, not replaced by the message
    ],
)
def test_failure_builds_the_reference_shape(
    llm_content: str | None, display: str | None, expected_llm: str, expected_display: str
) -> None:
    result = ToolResult.failure(
        "boom", ToolErrorType.EXECUTION_FAILED, llm_content=llm_content, display=display
    )
    assert result.to_dict() == {
        "llmContent": expected_llm,
        "returnDisplay": expected_display,
        "error": {"message": "boom", "type": "execution_failed"},
    }
    assert result.is_error
