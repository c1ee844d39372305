"""The two ``grep_search`` engines side by side: same output for every case, plus the recorded
qwen-diff calls, random trees, cancellation and the time limit."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

import qwen_tools.tools.grep.ripgrep as ripgrep_module
from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import FileFilteringSettings, ToolSettings
from qwen_tools.contract.abort import AbortController, AbortSignal
from qwen_tools.contract.errors import ToolParamsError
from qwen_tools.tools.grep.line_scan import quit_offset
from qwen_tools.tools.grep.python_engine import python_search
from qwen_tools.tools.grep.ripgrep import SearchRequest, find_ripgrep, run_ripgrep, timeout_message
from qwen_tools.tools.grep.tool import GrepTool
from support.workspaces import QWEN_DIFF, git_init, prepare_qwen_diff_workspace

Case = tuple[dict[str, Any], dict[str, Any]]


def write(root: Path, name: str, content: str | bytes) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")


def build_tree(root: Path) -> None:
    """Everything the engines must agree on: ignore files, hidden names, encodings, binaries."""
    git_init(root)
    files: dict[str, str | bytes] = {
        "notes.txt": "alpha\nTODO one\nbeta\n",
        "src/a.py": "def f():\n    return 1  # TODO\n",
        "src/b.py": "x = 1\ninterface{}\n",
        "src/deep/c.ts": "const todo = 1;\nlet Todo = 2\n",
        ".hidden/h.txt": "TODO hidden\n",
        ".env": "TODO env\n",
        "ignored_dir/o.txt": "TODO ignored\n",
        "qi/secret.txt": "TODO secret\n",
        "bin.dat": b"TODO\0bin\n",
        "peek.bin": b"a\nTODO\0",  # ripgrep's first 3-byte read ends a line before the NUL
        "late.bin": b"TODO early\n" + b"y" * 70_000 + b"\nTODO late\n\0tail\n",
        "latin.txt": b"TODO caf\xe9\n",
        "u16.txt": b"\xff\xfe" + "TODO u16\n".encode("utf-16-le"),
        "bom.txt": b"\xef\xbb\xbfTODO bom\n",
        "crlf.txt": b"TODO crlf\r\n",
        "dup.py": "a = 1\nb = 2\na = 1\n",
        ".gitignore": "ignored_dir/\n*.log\n!keep.log\n",
        "app.log": "TODO log\n",
        "keep.log": "TODO keep\n",
        ".qwenignore": "qi/\n",
        "vendor/.ignore": "gen.js\n",
        "vendor/gen.js": "TODO gen\n",
        "vendor/lib.js": "TODO lib\n",
        "nested/.git/HEAD": "ref: refs/heads/main\n",
        "nested/.gitignore": "local.txt\n",
        "nested/local.txt": "TODO local\n",
        "nested/ignored_dir/o.txt": "TODO nested repo keeps this\n",
        "unicode.txt": "Ünïcödé TODO ✓\nΣίσυφος\n",
        "many.txt": "".join(f"TODO {i}\n" for i in range(30)),
        "empty.txt": "",
        "noeol.txt": "x\nTODO end",
    }
    for name, content in files.items():
        write(root, name, content)
    os.symlink("notes.txt", root / "link.txt")
    (root / os.fsdecode(b"bad\xffname.txt")).write_text("TODO odd name\n")


CASES: list[Case] = [
    ({"pattern": "TODO"}, {}),
    ({"pattern": "todo", "glob": "*.py"}, {}),
    ({"pattern": "todo", "glob": "**/*.{ts,txt}"}, {}),
    ({"pattern": "todo", "glob": "!*.txt"}, {}),
    ({"pattern": "todo", "glob": "src/**"}, {}),
    ({"pattern": "todo", "glob": "*.log"}, {}),
    ({"pattern": "todo", "glob": ".hidden/*"}, {}),
    ({"pattern": "todo", "glob": "{a,b"}, {}),
    ({"pattern": "TODO", "limit": 3}, {}),
    ({"pattern": "TODO", "path": "src"}, {}),
    ({"pattern": "TODO", "path": "bin.dat"}, {}),
    ({"pattern": "TODO", "path": ".hidden"}, {}),
    ({"pattern": "TODO", "path": "qi"}, {}),
    ({"pattern": "\\bTODO\\s+\\d+$"}, {}),
    ({"pattern": "^[[:alpha:]]+ = \\d"}, {}),
    ({"pattern": "[\\w&&[^a-z]]{4}"}, {}),
    ({"pattern": "\\p{Lu}\\p{Ll}+|ü"}, {}),
    ({"pattern": "^a$"}, {}),
    ({"pattern": "ünïcödé"}, {}),
    ({"pattern": "interface{}"}, {}),
    ({"pattern": "(?<!return )1"}, {}),
    ({"pattern": "(a) = \\1"}, {}),
    ({"pattern": "a\\nb"}, {}),
    ({"pattern": ""}, {"truncate_tool_output_lines": 5}),
    ({"pattern": "TODO"}, {"truncate_tool_output_threshold": 200}),
    ({"pattern": "TODO"}, {"file_filtering": FileFilteringSettings(respect_git_ignore=False)}),
    ({"pattern": "TODO"}, {"file_filtering": FileFilteringSettings(respect_qwen_ignore=False)}),
    ({"pattern": "zzz", "glob": "*.py"}, {}),
]


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = Path(os.path.realpath(tmp_path_factory.mktemp("engines"))) / "ws"
    root.mkdir()
    build_tree(root)
    return root


async def outcome(
    root: Path, args: dict[str, Any], settings: dict[str, Any], engine: str
) -> tuple[str, Any, list[str]]:
    config = Config(root, settings=ToolSettings(**settings))
    tool = GrepTool(config, engine=engine)  # type: ignore[arg-type]
    try:
        result = await tool.build(dict(args)).execute(AbortSignal())
    except ToolParamsError as exc:
        return str(exc), None, []
    assert isinstance(result.llm_content, str)
    return result.llm_content, result.return_display, result.result_file_paths


@pytest.mark.parametrize(("args", "settings"), CASES, ids=[json.dumps(c[0]) for c in CASES])
async def test_engines_agree(tree: Path, args: dict[str, Any], settings: dict[str, Any]) -> None:
    assert find_ripgrep() is not None
    rg = await outcome(tree, args, settings, "ripgrep")
    py = await outcome(tree, args, settings, "python")
    assert py == rg


async def test_the_tree_exercises_the_rules(tree: Path) -> None:
    text, _, files = await outcome(tree, {"pattern": "TODO"}, {}, "python")
    names = {f.removeprefix(f"{tree}/") for f in files}
    assert {"late.bin", "keep.log", "u16.txt", "bom.txt", "nested/ignored_dir/o.txt"} <= names
    absent = {"bin.dat", "peek.bin", "app.log", ".env", "vendor/gen.js", "nested/local.txt"}
    assert not names & (absent | {"link.txt"})
    assert f"{tree}/late.bin:1:TODO early" in text
    assert "TODO late" not in text
    peek, _, _ = await outcome(tree, {"pattern": "^a$"}, {}, "python")
    assert f"{tree}/peek.bin:1:a" in peek.split("\n")


@pytest.mark.parametrize("seed", range(12))
async def test_random_trees_agree(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    root = tmp_path / "ws"
    names = ["a", "b", ".h", "build", "x.txt", "y.py", "z.md", ".env", "k.log", "n.rs"]
    patterns = [
        "*.log",
        "build/",
        "/x.txt",
        "a/*.py",
        "!k.log",
        "*.md",
        "!.env",
        "a/**",
        "**/b",
        "y.py",
    ]

    def fill(directory: Path, depth: int) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        for name in rng.sample(names, rng.randint(2, 6)):
            if "." not in name.lstrip(".") and depth < 3:
                fill(directory / name, depth + 1)
            else:
                (directory / name).write_text(rng.choice(["foo\n", "x\nfoo bar\n", "none\n"]))
        for ignore in (".gitignore", ".ignore", ".rgignore"):
            if rng.random() < 0.3:
                (directory / ignore).write_text("\n".join(rng.sample(patterns, 2)) + "\n")

    fill(root, 0)
    if rng.random() < 0.7:
        git_init(root)
    glob = rng.choice([None, "*.py", "!*.md", "a/**", "**", "*.{txt,md}", ".h/*"])
    args = {"pattern": "foo", **({"glob": glob} if glob else {})}
    assert await outcome(root, args, {}, "python") == await outcome(root, args, {}, "ripgrep")


async def test_qwen_diff_recording(tmp_path: Path) -> None:
    ws = Path(os.path.realpath(tmp_path)) / "ws"
    prepare_qwen_diff_workspace(ws)
    calls = json.loads((QWEN_DIFF / "results.json").read_text(encoding="utf-8"))["calls"]
    greps = [c for c in calls if c["name"] == "grep_search"]
    assert len(greps) == 4
    for engine in ("ripgrep", "python"):
        for call in greps:
            args = json.loads(json.dumps(call["arguments"]).replace("{{WS}}", str(ws)))
            text, _, _ = await outcome(ws, args, {}, engine)
            assert text == call["result"].replace("{{WS}}", str(ws)), (engine, args)


def test_only_match_events_count() -> None:
    collector = ripgrep_module._Collector()
    collector.feed(b'{"type":"summary","data":{"stats":{}}}\n')
    assert (collector.finish(keep_last_line=True), collector.matches) == (True, [])
    event = {"type": "match", "data": {"path": {"bytes": "L3gv/w=="}, "line_number": 3,
             "lines": {"bytes": "/w=="}}}  # fmt: skip
    collector.feed(json.dumps(event, separators=(",", ":")).encode() + b"\n")
    assert collector.matches == [ripgrep_module.GrepMatch("/x/\ufffd", 3, "")]


def test_quit_offset_models_ripgreps_reads() -> None:
    assert quit_offset(b"\0abc\n", 3) == 0
    assert quit_offset(b"a\nb\0", 3) == 2  # the 3-byte first read completed "a\n"
    assert quit_offset(b"ab\nc\0", 3) == 3
    assert quit_offset(b"abc\0", 3) == 0
    big = b"x\n" * 40_000 + b"\0"
    assert quit_offset(big, 3) == 65_536 + 2  # "x\n" lines of the first buffer, all complete
    assert quit_offset(b"\xef\nabc\0", 10**9) == 0


@pytest.fixture
def fifo_ws(ws: Path) -> Path:
    os.mkfifo(ws / "pipe")  # ripgrep blocks reading a FIFO named on its command line
    return ws


def spy_on_rg(monkeypatch: pytest.MonkeyPatch) -> list[subprocess.Popen[bytes]]:
    """Record every rg process the ripgrep engine starts."""
    started: list[subprocess.Popen[bytes]] = []
    original = ripgrep_module.spawn_confined

    def spy(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        started.append(original(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(ripgrep_module, "spawn_confined", spy)
    return started


async def ended(process: subprocess.Popen[bytes]) -> bool:
    """Whether ``process`` ends (bounded wait: only fails when it never does)."""
    await asyncio.wait_for(asyncio.to_thread(process.wait), 30)
    return process.returncode is not None


async def test_cancellation_kills_ripgrep(fifo_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = spy_on_rg(monkeypatch)
    controller = AbortController()
    tool = GrepTool(Config(fifo_ws), engine="ripgrep")
    invocation = tool.build({"pattern": "x", "path": "pipe"})
    asyncio.get_running_loop().call_later(0.3, controller.abort)
    result = await invocation.execute(controller.signal)  # rg blocks on the FIFO until killed
    assert result.llm_content == "Error during grep search operation: The operation was aborted"
    assert len(started) == 1
    assert started[0].poll() is not None


async def test_cancelling_the_task_kills_ripgrep(
    fifo_ws: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started = spy_on_rg(monkeypatch)
    invocation = GrepTool(Config(fifo_ws), engine="ripgrep").build({"pattern": "x", "path": "pipe"})
    task = asyncio.ensure_future(invocation.execute(AbortSignal()))
    while not started:
        await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await ended(started[0])


async def test_timeout_kills_ripgrep(fifo_ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ripgrep_module, "search_timeout", lambda: 0.3)
    request = SearchRequest("x", (str(fifo_ws / "pipe"),), str(fifo_ws))
    rg = find_ripgrep()
    assert rg is not None
    result = await run_ripgrep(rg, request, AbortSignal())
    assert result.error == request.command_failed()
    assert result.output_empty
    assert not result.matches


def test_python_engine_stops_when_aborted(tree: Path) -> None:
    controller = AbortController()
    controller.abort()
    request = SearchRequest("TODO", (str(tree),), str(tree))
    result = python_search(request, controller.signal, time.monotonic() + 10)
    assert (result.error, result.output_empty) == ("The operation was aborted", True)
    late = python_search(request, AbortSignal(), time.monotonic() - 1)
    assert (late.error, late.output_empty) == (timeout_message(10), True)


def test_python_engine_marks_read_errors_incomplete(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import qwen_tools.tools.grep.python_engine as fallback

    real_read = fallback._read_entry

    def flaky(name: str, directory_fd: int) -> bytes:
        if name == "many.txt":
            raise PermissionError(13, "Permission denied")
        return real_read(name, directory_fd)

    monkeypatch.setattr(fallback, "_read_entry", flaky)
    request = SearchRequest("TODO one", (str(tree),), str(tree), roots=(str(tree),))
    result = python_search(request, AbortSignal(), time.monotonic() + 10)
    assert [m.path for m in result.matches] == [f"{tree}/notes.txt"]
    assert result.incomplete
    assert result.error == request.command_failed()
