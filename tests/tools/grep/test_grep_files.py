"""``grep_search``: which files are searched (paths, globs, ignore files, workspace directories),
through both engines, with Qwen Code 0.24.4's texts (recorded with the qwen-diff harness)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import FileFilteringSettings
from support.grep_tools import ENGINES, build_probe_tree, result_of, run, text_of, write
from support.workspaces import git_init


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def tree(git_ws: Path) -> Path:
    return build_probe_tree(git_ws)


async def test_workspace_search(tree: Path, engine: str) -> None:
    ws = str(tree)
    assert await run(tree, {"pattern": "TODO"}, engine) == (
        'Found 18 matches for pattern "TODO" in the workspace directory:\n---\n'
        f"{ws}/crlf.txt:1:TODO crlf\n"
        f"{ws}/latin.txt:1:\n"
        f"{ws}/long.txt:1:TODO {'x' * 300}\n"
        + "".join(f"{ws}/many.txt:{i + 1}:TODO {i}\n" for i in range(12))
        + f"{ws}/notes.txt:2:TODO one\n"
        f"{ws}/src/a.py:2:    return 1  # TODO\n"
        f"{ws}/u16.txt:1:TODO u16"
    )


async def test_filters_and_globs(tree: Path, engine: str) -> None:
    ws = str(tree)
    text = await run(tree, {"pattern": "\\d+", "glob": "*.py"}, engine)
    assert text == (
        'Found 5 matches for pattern "\\d+" in the workspace directory (filter: "*.py"):\n---\n'
        f"{ws}/dup.py:1:a = 1\n{ws}/dup.py:2:b = 2\n{ws}/dup.py:3:a = 1\n"
        f"{ws}/src/a.py:2:    return 1  # TODO\n{ws}/src/b.py:1:x = 1"
    )
    assert await run(tree, {"pattern": "todo", "glob": "!*.txt"}, engine) == (
        'Found 1 match for pattern "todo" in the workspace directory (filter: "!*.txt"):\n---\n'
        f"{ws}/src/a.py:2:    return 1  # TODO"
    )
    braces = await run(tree, {"pattern": "TODO", "glob": "*.{py,txt}"}, engine)
    assert braces.startswith('Found 18 matches for pattern "TODO" in the workspace directory ')
    assert await run(tree, {"pattern": "zzz", "glob": "*.py"}, engine) == (
        'No matches found for pattern "zzz" in the workspace directory (filter: "*.py").'
    )
    # An included glob overrides the ignore files, as in ripgrep: the git-ignored log is found.
    assert await run(tree, {"pattern": "todo", "glob": "*.log"}, engine) == (
        'Found 1 match for pattern "todo" in the workspace directory (filter: "*.log"):\n---\n'
        f"{ws}/app.log:1:TODO log"
    )
    assert await run(tree, {"pattern": "x", "glob": ""}, engine) == (
        'Found 2 matches for pattern "x" in the workspace directory:\n---\n'
        f"{ws}/long.txt:1:TODO {'x' * 300}\n{ws}/src/b.py:1:x = 1"
    )


async def test_invalid_glob(tree: Path, engine: str) -> None:
    assert await run(tree, {"pattern": "TODO", "glob": "[a"}, engine) == (
        "Error during grep search operation: Command failed: rg --json --no-messages "
        f"--path-separator / --ignore-case --regexp TODO --ignore-file {tree}/.qwenignore "
        f"--glob [a --threads 4 {tree}\nrg: error parsing glob '[a': unclosed character class; "
        "missing ']'\n"
    )


async def test_paths(tree: Path, engine: str) -> None:
    ws = str(tree)
    assert await run(tree, {"pattern": "a = 1", "path": "dup.py"}, engine) == (
        f'Found 2 matches for pattern "a = 1" in path "dup.py":\n---\n'
        f"{ws}/dup.py:1:a = 1\n{ws}/dup.py:3:a = 1"
    )
    line = f"{ws}/src/a.py:2:    return 1  # TODO"
    assert await run(tree, {"pattern": "todo", "path": f"{ws}/src/"}, engine) == (
        f'Found 1 match for pattern "todo" in path "{ws}/src/":\n---\n{line}'
    )
    assert await run(tree, {"pattern": "todo", "path": "  src  "}, engine) == (
        f'Found 1 match for pattern "todo" in path "src":\n---\n{line}'
    )
    assert await run(tree, {"pattern": "", "path": "dup.py"}, engine) == (
        f'Found 3 matches for pattern "" in path "dup.py":\n---\n'
        f"{ws}/dup.py:1:a = 1\n{ws}/dup.py:2:b = 2\n{ws}/dup.py:3:a = 1"
    )


async def test_explicit_paths_bypass_hidden_and_ignore(tree: Path, engine: str) -> None:
    ws = str(tree)
    assert await run(tree, {"pattern": "TODO", "path": f"{ws}/.hidden"}, engine) == (
        f'Found 1 match for pattern "TODO" in path "{ws}/.hidden":\n---\n'
        f"{ws}/.hidden/h.txt:1:TODO hidden"
    )
    assert await run(tree, {"pattern": "TODO", "path": f"{ws}/ignored_dir/o.txt"}, engine) == (
        f'Found 1 match for pattern "TODO" in path "{ws}/ignored_dir/o.txt":\n---\n'
        f"{ws}/ignored_dir/o.txt:1:TODO ignored"
    )
    # Qwen-ignored files are filtered again after the search.
    assert await run(tree, {"pattern": "TODO", "path": f"{ws}/qi"}, engine) == (
        f'No matches found for pattern "TODO" in path "{ws}/qi".'
    )
    # An explicitly named binary file is searched as text.
    assert await run(tree, {"pattern": "bin", "path": "bin.dat"}, engine) == (
        f'Found 1 match for pattern "bin" in path "bin.dat":\n---\n{ws}/bin.dat:1:TODO\0bin'
    )


async def test_gitignore_only_inside_git_repositories(ws: Path, engine: str) -> None:
    write(ws, ".gitignore", "skip.txt\n")
    write(ws, "skip.txt", "needle\n")
    found = f'Found 1 match for pattern "needle" in the workspace directory:\n---\n{ws}/skip.txt:1:needle'
    assert await run(ws, {"pattern": "needle"}, engine) == found
    git_init(ws)
    none = 'No matches found for pattern "needle" in the workspace directory.'
    assert await run(ws, {"pattern": "needle"}, engine) == none
    filtering = FileFilteringSettings(respect_git_ignore=False)
    assert await run(ws, {"pattern": "needle"}, engine, file_filtering=filtering) == found


async def test_qwen_ignore_files(git_ws: Path, engine: str) -> None:
    write(git_ws, ".qwenignore", "secret/\n/anchored.txt\n")
    write(git_ws, ".aiignore", "*.gen\n")
    for name in ("secret/s.txt", "anchored.txt", "sub/anchored.txt", "x.gen", "ok.txt"):
        write(git_ws, name, "needle\n")
    text = await run(git_ws, {"pattern": "needle"}, engine)
    assert text == (
        'Found 2 matches for pattern "needle" in the workspace directory:\n---\n'
        f"{git_ws}/ok.txt:1:needle\n{git_ws}/sub/anchored.txt:1:needle"
    )
    filtering = FileFilteringSettings(respect_qwen_ignore=False)
    everything = await run(git_ws, {"pattern": "needle"}, engine, file_filtering=filtering)
    assert everything.startswith('Found 5 matches for pattern "needle"')


async def test_several_workspace_directories(tree: Path, tmp_path: Path, engine: str) -> None:
    extra = tmp_path / "extra"
    write(extra, "e.txt", "TODO extra one\n")
    write(extra, "sub/s.txt", "TODO extra sub\n")
    write(extra, ".qwenignore", "e.txt\n")
    config = Config(tree, include_directories=[extra, tree / "src"])
    assert await run(tree, {"pattern": "TODO extra"}, engine, config) == (
        'Found 1 match for pattern "TODO extra" across 3 workspace directories:\n---\n'
        f"{extra}/sub/s.txt:1:TODO extra sub"
    )
    # src is searched twice (inside the project and as its own directory): no duplicates.
    text = await run(tree, {"pattern": "return"}, engine, config)
    assert text == (
        'Found 1 match for pattern "return" across 3 workspace directories:\n---\n'
        f"{tree}/src/a.py:2:    return 1  # TODO"
    )
    assert await run(tree, {"pattern": "zzzz"}, engine, config) == (
        'No matches found for pattern "zzzz" across 3 workspace directories.'
    )


async def test_patterns_ripgrep_rejects(tree: Path, engine: str) -> None:
    ws = str(tree)
    # 0.24.4 fails on these (ripgrep has no look-around, ``{`` must start a repetition); we
    # search them with their JavaScript meaning instead.
    assert await run(tree, {"pattern": "interface{}"}, engine) == (
        'Found 1 match for pattern "interface{}" in the workspace directory:\n---\n'
        f"{ws}/src/b.py:2:interface{{}}"
    )
    assert await run(tree, {"pattern": "(?<=return )1", "path": "src"}, engine) == (
        'Found 1 match for pattern "(?<=return )1" in path "src":\n---\n'
        f"{ws}/src/a.py:2:    return 1  # TODO"
    )
    assert await run(tree, {"pattern": "a\\nb"}, engine) == (
        "Error during grep search operation: Command failed: rg --json --no-messages "
        "--path-separator / --ignore-case --regexp a\\nb --ignore-file "
        f'{ws}/.qwenignore --threads 4 {ws}\nrg: the literal "\\n" is not allowed in a regex\n\n'
        "Consider enabling multiline mode with the --multiline flag (or -U for short).\n"
        "When multiline mode is enabled, new line characters can be matched.\n"
    )


async def test_incomplete_search(tree: Path, tmp_path: Path, engine: str) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    config = Config(tree, include_directories=[gone])
    gone.rmdir()  # ripgrep reports the missing root and exits with status 2
    result = await result_of(tree, {"pattern": "TODO", "glob": "notes.txt"}, engine, config)
    assert text_of(result) == (
        'Found 1 match for pattern "TODO" across 2 workspace directories (filter: "notes.txt"):'
        f"\n---\n{tree}/notes.txt:2:TODO one\n---\n"
        "[Search did not complete: the results above may not include all matches.]"
    )
    assert result.return_display == "Found 1 match (incomplete)"
    none = await result_of(tree, {"pattern": "zzzz"}, engine, config)
    assert text_of(none) == (
        'Search did not complete for pattern "zzzz" across 2 workspace directories. No valid '
        "matches were returned; do not treat this as no matches. Error: Command failed: rg "
        "--json --no-messages --path-separator / --ignore-case --regexp zzzz --ignore-file "
        f"{tree}/.qwenignore --threads 4 {tree} {gone}\n"
    )
    assert none.return_display == "Error: Search incomplete"
    assert none.error is None


async def test_use_ripgrep_off_selects_the_python_engine(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import qwen_tools.tools.grep.ripgrep as ripgrep_module

    def no_rg(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("rg must not run")

    monkeypatch.setattr(ripgrep_module, "spawn_confined", no_rg)
    text = await run(tree, {"pattern": "a = 1", "path": "dup.py"}, "auto", use_ripgrep=False)
    assert text.startswith('Found 2 matches for pattern "a = 1" in path "dup.py":')
