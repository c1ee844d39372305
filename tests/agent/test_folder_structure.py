"""The workspace tree against Qwen Code 0.24.4's ``getFolderStructure``.

``data/folder_structure_cases.json`` holds trees (files with their text, directories, symbolic
links, the workspace directories; ``.git``, ``.gitignore`` and ``.qwenignore`` included) and
the text 0.24.4's function gave for each under node (``{{ROOT}}`` standing for the tree's
location): the hand-written edge cases first, then random trees. Each is built again in a temp
directory and must come out identical.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.agent.folder_structure import folder_structure, folder_structures
from qwen_tools.config.file_service import FileDiscoveryService, FileFilteringOptions

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "data" / "folder_structure_cases.json").read_text()
)


def build(case: dict[str, Any], root: Path) -> list[str]:
    """Create the case's tree under ``root``; its workspace directories."""
    for directory in case["dirs"]:
        (root / directory).mkdir(parents=True, exist_ok=True)
    for name, text in case["files"].items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for name, target in case["links"].items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(target, root / name)
    return [os.path.normpath(root / d) for d in case.get("workspace", ["."])]


def test_the_data_covers_the_edge_cases() -> None:
    names = {case["name"] for case in CASES}
    assert {"fixture", "21-files", "symlinks", "unicode", "multi-workspace", "file-root"} <= names
    assert len(CASES) > 150


@pytest.mark.parametrize("case", CASES, ids=[case["name"] for case in CASES])
def test_matches_the_reference(case: dict[str, Any], tmp_path: Path) -> None:
    root = Path(os.path.realpath(tmp_path)) / "t"
    root.mkdir()
    directories = build(case, root)
    service = FileDiscoveryService(directories[0])
    got = folder_structures(directories, file_service=service)
    assert got == case["expected"].replace("{{ROOT}}", str(root))


def test_limits_and_rules_can_be_chosen(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("*.log\n")
    for name in ("a.log", "b", "c"):
        (tmp_path / name).write_text("")
    (tmp_path / "vendor").mkdir()
    service = FileDiscoveryService(tmp_path)
    shown = folder_structure(tmp_path, file_service=service, max_items=2)
    assert shown.splitlines() == [
        "Showing up to 2 items:",
        "",
        f"{tmp_path}/",
        "├───.gitignore",
        "├───b",
        "├───...",  # the files left out (c)
        "└───...",  # the folders left out
    ]
    everything = folder_structure(
        tmp_path,
        file_service=service,
        options=FileFilteringOptions(respect_git_ignore=False),
        ignored_folders={"vendor"},
    )
    assert everything.splitlines()[3:] == [
        "├───.gitignore",
        "├───a.log",
        "├───b",
        "├───c",
        "├───.git/",
        "└───vendor/...",
    ]
