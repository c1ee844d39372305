"""The ``lsp`` tool against a real ``pylsp`` (python-lsp-server), one server for the module.

The fixture project has a definition in one file used from another, a class hierarchy, an
undefined name and an unused import (pyflakes' diagnostics), and a call into the standard
library (a definition outside the workspace: shown relative to the project, never read).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.lsp_session import ThreadSession, lsp_json, pylsp_server

SHAPES = '''class Shape:
    def area(self):
        return 0


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


def make_square(side):
    """Build a square of the given side."""
    return Square(side)
'''

MAIN = """import json
import os

from pkg.shapes import make_square


def total(sides):
    return sum(make_square(s).area() for s in sides)


print(json.dumps(total([1, 2])))
print(undefined_name)
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("pyproj")
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "shapes.py").write_text(SHAPES)
    (root / "main.py").write_text(MAIN)
    lsp_json(root, {"python": pylsp_server()})
    return root


@pytest.fixture(scope="module")
def ts(project: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ThreadSession]:
    session = ThreadSession(project, tmp_path_factory.mktemp("home"))
    yield session
    session.close()


def test_definition_in_another_file(ts: ThreadSession) -> None:
    text = ts.lsp(operation="goToDefinition", filePath="main.py", line=8, character=16)
    assert text == "Definitions for main.py:8:16:\n1. pkg/shapes.py:14:5 [pylsp]"


def test_definition_by_absolute_path_and_file_uri(ts: ThreadSession, project: Path) -> None:
    for given in (str(project / "main.py"), (project / "main.py").as_uri()):
        text = ts.lsp(operation="goToDefinition", filePath=given, line=8, character=16)
        assert text.endswith("\n1. pkg/shapes.py:14:5 [pylsp]"), text


def test_references_across_files(ts: ThreadSession) -> None:
    text = ts.lsp(operation="findReferences", filePath="pkg/shapes.py", line=14, character=5)
    assert text.startswith("References for pkg/shapes.py:14:5:\n")
    assert "main.py:8:16 [pylsp]" in text
    with_decl = ts.lsp(
        operation="findReferences",
        filePath="pkg/shapes.py",
        line=14,
        character=5,
        includeDeclaration=True,
    )
    assert "pkg/shapes.py:14:5 [pylsp]" in with_decl.split("\n", 1)[1]


def test_limit_caps_the_results(ts: ThreadSession) -> None:
    text = ts.lsp(
        operation="findReferences", filePath="pkg/shapes.py", line=14, character=5, limit=1
    )
    assert len(text.splitlines()) == 2


def test_hover_shows_the_docstring(ts: ThreadSession) -> None:
    text = ts.lsp(operation="hover", filePath="main.py", line=8, character=16)
    assert text.startswith("Hover for main.py:8:16:\n")
    assert "make_square(side)" in text
    assert "Build a square of the given side." in text


def test_document_symbols(ts: ThreadSession) -> None:
    # what Qwen Code 0.24.4 answered for this fixture with the same pylsp (recorded)
    assert ts.lsp(operation="documentSymbol", filePath="pkg/shapes.py") == (
        "Document symbols for pkg/shapes.py:\n"
        "1. Shape (Class) - pkg/shapes.py:1:1 [pylsp]\n"
        "2. area (Method) in Shape - pkg/shapes.py:2:5 [pylsp]\n"
        "3. Square (Class) - pkg/shapes.py:6:1 [pylsp]\n"
        "4. __init__ (Method) in Square - pkg/shapes.py:7:5 [pylsp]\n"
        "5. area (Method) in Square - pkg/shapes.py:10:5 [pylsp]\n"
        "6. side (Field) in __init__ - pkg/shapes.py:8:9 [pylsp]\n"
        "7. make_square (Function) - pkg/shapes.py:14:1 [pylsp]"
    )


def test_diagnostics_from_pyflakes(ts: ThreadSession) -> None:
    text = ts.lsp(operation="diagnostics", filePath="main.py")
    lines = text.splitlines()
    assert re.fullmatch(r"Diagnostics for main\.py \(\d+ issues\):", lines[0]), text
    assert "[ERROR] 12:7 [pyflakes]: undefined name 'undefined_name'" in text
    assert "[WARNING] 2:1 [pyflakes]: 'os' imported but unused" in text


def test_workspace_diagnostics_cover_the_files_seen(ts: ThreadSession) -> None:
    ts.lsp(operation="diagnostics", filePath="main.py")
    text = ts.lsp(operation="workspaceDiagnostics")
    assert text.startswith("Workspace diagnostics (")
    assert "\n\nmain.py [pylsp]:\n" in text
    assert "  [ERROR] 12:7: undefined name 'undefined_name'" in text


def test_unsupported_requests_say_so(ts: ThreadSession) -> None:
    # pylsp has neither call hierarchy nor workspace symbols
    text = ts.lsp(operation="prepareCallHierarchy", filePath="main.py", line=7, character=5)
    assert text == (
        "LSP call hierarchy prepare failed: "
        "LSP server pylsp does not support textDocument/prepareCallHierarchy"
    )
    text = ts.lsp(operation="workspaceSymbol", query="Square")
    assert text == (
        "LSP workspace symbol search failed: LSP server pylsp does not support workspace/symbol"
    )


def test_nothing_found(ts: ThreadSession) -> None:
    text = ts.lsp(operation="goToDefinition", filePath="main.py", line=5, character=1)
    assert text == "No definitions found for main.py:5:1."
    text = ts.lsp(operation="goToDefinition", filePath="main.py", line=5, serverName="pylsp")
    assert text == "No definitions found for main.py:5:1 [pylsp]."


def test_definition_outside_the_workspace_is_shown_relative(ts: ThreadSession) -> None:
    text = ts.lsp(operation="goToDefinition", filePath="main.py", line=11, character=12)
    heading, first = text.splitlines()[:2]
    assert heading == "Definitions for main.py:11:12:"
    assert first.startswith("1. ../"), first
    assert re.search(r"json/__init__\.pyi?:\d+:\d+ \[pylsp\]$", first), first
    running = ts.session.config.services.lsp.active
    assert running is not None
    (connection,) = running.manager.running().values()
    assert all("/json/" not in uri for uri in connection.tracked_uris())


def test_a_file_outside_the_workspace_is_refused(ts: ThreadSession, tmp_path: Path) -> None:
    outside = tmp_path / "secret.py"
    outside.write_text("SECRET = 1\n")
    expected = (
        f"File path must be within one of the workspace directories: {ts.session.config.target_dir}"
    )
    for op in ("goToDefinition", "diagnostics", "documentSymbol"):
        text = ts.lsp(operation=op, filePath=str(outside), line=1, character=1)
        assert text == expected
    running = ts.session.config.services.lsp.active
    assert running is not None
    for connection in running.manager.running().values():
        assert all("secret" not in uri for uri in connection.tracked_uris())


def test_a_symlink_pointing_out_is_refused(
    ts: ThreadSession, project: Path, tmp_path: Path
) -> None:
    target = tmp_path / "elsewhere.py"
    target.write_text("X = 1\n")
    link = project / "link_out.py"
    os.symlink(target, link)
    try:
        text = ts.lsp(operation="documentSymbol", filePath="link_out.py")
    finally:
        link.unlink()
    assert text.startswith("File path must be within one of the workspace directories")


def test_edits_on_disk_are_seen(ts: ThreadSession, project: Path) -> None:
    path = project / "later.py"
    path.write_text("from pkg.shapes import Square\n")
    try:
        assert ts.lsp(operation="documentSymbol", filePath="later.py").count("\n") == 1
        path.write_text("from pkg.shapes import Square\n\n\ndef extra():\n    return Square(2)\n")
        text = ts.lsp(operation="documentSymbol", filePath="later.py")
        assert "extra (Function) - later.py:4:1 [pylsp]" in text
        text = ts.lsp(operation="goToDefinition", filePath="later.py", line=5, character=12)
        assert text.endswith("1. pkg/shapes.py:6:7 [pylsp]")
    finally:
        path.unlink()


def test_a_file_no_server_handles(ts: ThreadSession, project: Path) -> None:
    (project / "notes.txt").write_text("hello\n")
    text = ts.lsp(operation="hover", filePath="notes.txt", line=1, character=1)
    assert (
        text
        == 'LSP hover failed: No LSP server is configured for ".txt" files (configured: pylsp).'
    )
    text = ts.lsp(operation="hover", filePath="main.py", line=1, serverName="clangd")
    assert text == (
        "LSP hover failed: No LSP server named clangd is configured (configured: pylsp)."
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"operation": "goToDefinition", "line": 1}, "filePath is required for goToDefinition."),
        ({"operation": "hover", "filePath": "main.py"}, "line is required for hover."),
        ({"operation": "documentSymbol"}, "filePath is required for documentSymbol."),
        ({"operation": "diagnostics", "filePath": "  "}, "filePath is required for diagnostics."),
        ({"operation": "workspaceSymbol", "query": "  "}, "query is required for workspaceSymbol."),
        ({"operation": "incomingCalls"}, "callHierarchyItem is required for incomingCalls."),
        (
            {"operation": "findReferences", "filePath": "main.py", "line": 0},
            "line must be a positive number.",
        ),
        (
            {"operation": "hover", "filePath": "main.py", "line": 2, "character": 0},
            "character must be a positive number.",
        ),
    ],
)
def test_validation_messages(ts: ThreadSession, args: dict[str, object], message: str) -> None:
    assert message in ts.call("lsp", args)


def test_declaration_is_the_reference_schema(ts: ThreadSession) -> None:
    (declaration,) = [
        d for d in ts.session.declarations("openai") if d["function"]["name"] == "lsp"
    ]
    schema = declaration["function"]["parameters"]
    assert schema["required"] == ["operation"]
    assert set(schema["properties"]) == {
        "operation", "filePath", "line", "character", "includeDeclaration", "query",
        "callHierarchyItem", "serverName", "limit",
    }  # fmt: skip
    assert json.dumps(schema["properties"]["operation"]["enum"]).count('"') == 22
