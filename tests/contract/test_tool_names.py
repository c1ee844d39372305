"""One place for tool names: ``contract/tool_names.py``.

Every registered built-in takes its name and display name from there, the table names every
built-in and nothing else, and no other module spells a built-in's name, display name or
legacy name as a string of its own (read as Python syntax, docstrings aside; names inside a
longer model-facing sentence are not looked at).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import os
from pathlib import Path

import pytest

import qwen_tools
from qwen_tools import tools
from qwen_tools.config.config import Config
from qwen_tools.contract.tool_names import (
    LEGACY_TOOL_NAMES,
    ToolDisplayNames,
    ToolNames,
    canonical_tool_name,
    tool_name_for,
)
from qwen_tools.tools import builtin_tool_factories

SRC = Path(__file__).resolve().parents[2] / "src" / "qwen_tools"
HOME = "contract/tool_names.py"

KEYS = [key for key in vars(ToolNames) if key.isupper()]

# Names that are also ordinary words of the code ("edit" is a Kind and a confirmation type,
# "glob" a grep parameter, "replace" a decoding mode, "agent" a Kind): the static check below
# cannot tell them apart, so it leaves them out; the tool classes are checked on their values.
_AMBIGUOUS = {"edit", "glob", "task", "agent", "replace", "Edit", "Glob", "Grep", "Shell", "Task"}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return Path(os.path.realpath(tmp_path))


def _classes() -> dict[str, type]:
    """Every built-in tool class, by the name it registers under."""
    return {name: getattr(tools, cls) for name, (_module, cls) in tools._TOOLS.items()}


def test_the_table_names_every_builtin_and_nothing_else() -> None:
    values = [getattr(ToolNames, key) for key in KEYS]
    assert values == list(_classes())  # the same names, in the registration order
    assert sorted(KEYS) == sorted(k for k in vars(ToolDisplayNames) if k.isupper())
    assert len(set(values)) == len(values)
    displays = [getattr(ToolDisplayNames, key) for key in KEYS]
    assert len(set(displays)) == len(displays)


@pytest.mark.parametrize("key", KEYS)
def test_each_builtin_takes_its_names_from_the_table(ws: Path, key: str) -> None:
    name = getattr(ToolNames, key)
    tool_class = _classes()[name]
    tool = tool_class(Config(ws))
    assert (tool_class.Name, tool.name, tool.display_name) == (
        name,
        name,
        getattr(ToolDisplayNames, key),
    )


def test_the_factories_register_under_the_table_names(ws: Path) -> None:
    config = Config(ws, interactive=True)
    names = [factory.name for factory in builtin_tool_factories(config)]
    assert set(names) <= {getattr(ToolNames, key) for key in KEYS}
    assert [tool.name for tool in (f.build() for f in builtin_tool_factories(config))] == names


def test_legacy_names_reach_the_current_tool() -> None:
    assert canonical_tool_name("search_file_content") == ToolNames.GREP
    assert canonical_tool_name("replace") == ToolNames.EDIT
    assert canonical_tool_name("agent") == ToolNames.TASK
    assert canonical_tool_name("read_file") == "read_file"
    for key in KEYS:
        assert tool_name_for(getattr(ToolDisplayNames, key)) == getattr(ToolNames, key)
    assert tool_name_for("ReadFolder") == ToolNames.LIST_DIRECTORY
    assert tool_name_for("TodoWrite") == ToolNames.TODO_WRITE
    assert tool_name_for("no_such_tool") == "no_such_tool"


def test_the_public_exports_are_the_table() -> None:
    assert qwen_tools.ToolNames is ToolNames
    assert qwen_tools.ToolDisplayNames is ToolDisplayNames
    assert qwen_tools.canonical_tool_name is canonical_tool_name


def _spelled_names() -> set[str]:
    names = {getattr(ToolNames, k) for k in KEYS} | {getattr(ToolDisplayNames, k) for k in KEYS}
    # Legacy display names stay out: they are also words of the alias vocabularies that hook
    # matchers and permission rules accept (``Agent``, ``SearchFiles``...), as in the reference.
    return (names | set(LEGACY_TOOL_NAMES)) - _AMBIGUOUS


def _is_tool_module(value: str) -> bool:
    """``"read_file"`` in ``tools/__init__.py``'s table names the module ``tools/read_file.py``."""
    return importlib.util.find_spec(f"qwen_tools.tools.{value}") is not None


def _docstrings(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _offences() -> list[str]:
    spelled = _spelled_names()
    found: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == HOME:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = _docstrings(tree)
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and node.value in spelled
                and id(node) not in docstrings
                and not (rel == "tools/__init__.py" and _is_tool_module(node.value))
            ):
                found.append(f"{rel}:{node.lineno}: {node.value!r}")
    return found


def test_no_module_spells_a_builtin_name_of_its_own() -> None:
    assert _offences() == []


def test_no_tool_class_spells_its_names(ws: Path) -> None:
    """The ambiguous names too: a tool class names itself only through the table."""
    for name, tool_class in _classes().items():
        tree = ast.parse(Path(inspect.getsourcefile(tool_class) or "").read_text(encoding="utf-8"))
        body = next(
            n
            for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef) and n.name == tool_class.__name__
        )
        literals = {n.value for n in ast.walk(body) if isinstance(n, ast.Constant)}
        display = tool_class(Config(ws)).display_name
        assert not literals & {name, display}, tool_class
