"""``qwen-tools call`` answers malformed input with one clear error per call, and goes on.

Real subprocesses, bytes in and bytes out: ARGS on the command line and on stdin, and batches
from a file and from stdin, holding lone surrogates, invalid UTF-8, nesting far past the limit,
numbers JSON can write but no tool can use, lines that are not call objects, and every built-in
tool with the malformed-arguments corpus. Every non-blank batch line gets exactly one object, in
order; stdout is always valid UTF-8 (and valid JSON lines with ``--json``); nothing prints a
traceback. Results holding lone surrogates (a file name that is not UTF-8) print too.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.cli_env import isolated_env
from support.malformed_args import base_args, cases

EXE = Path(sys.executable).with_name("qwen-tools")
PYTHON_INTERNALS = re.compile(
    r"codec can't|surrogates not allowed|recursion|Traceback|object has no attribute|"
    r"unhashable|not subscriptable|Exceeds the limit|cannot convert float|OverflowError|"
    r"NoneType|takes \d+ positional|unsupported operand|not supported between"
)
INTEGER_OR_NULL = "params/offset must be integer,null"


def depth_error(key: str) -> str:
    return f"params/{key} must NOT be nested more than 100 levels deep"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return isolated_env(tmp_path)


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = Path(os.path.realpath(tmp_path)) / "ws"
    root.mkdir()
    (root / "notes.txt").write_text("line 1\nline 2\nline 3\n")
    return root


def run(
    args: list[str | bytes], env: dict[str, str], cwd: Path, stdin: bytes = b""
) -> subprocess.CompletedProcess[bytes]:
    done = subprocess.run(
        [os.fsencode(EXE), *(a if isinstance(a, bytes) else a.encode() for a in args)],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        timeout=300,
    )
    err = done.stderr.decode("utf-8", "replace")
    assert "Traceback" not in err, err[-3000:]
    done.stdout.decode("utf-8")  # strict: whatever we print is UTF-8
    done.stderr.decode("utf-8")
    return done


def objects(done: subprocess.CompletedProcess[bytes]) -> list[dict[str, Any]]:
    """The ``--json`` lines, parsed strictly (no NaN, no Infinity)."""

    def strict(name: str) -> Any:
        raise AssertionError(f"{name} in --json output")

    lines = done.stdout.decode("utf-8").splitlines()
    return [json.loads(line, parse_constant=strict) for line in lines]


def message(obj: dict[str, Any]) -> str:
    assert obj["error"] is not None, obj
    text = obj["error"]["message"]
    assert isinstance(text, str)
    return text


def read_args(ws: Path, offset_json: str) -> str:
    return '{"file_path": ' + json.dumps(str(ws / "notes.txt")) + ', "offset": ' + offset_json + "}"


# -- one call: ARGS on the command line and on stdin -------------------------------------------


@pytest.mark.parametrize("via", ["argv", "stdin"])
def test_lone_surrogate_in_args(env: dict[str, str], ws: Path, via: str) -> None:
    text = '{"file_path": "' + str(ws / "notes.txt") + '\\ud800"}'
    argv = ["call", "read_file", text if via == "argv" else "-", "--json"]
    done = run(argv, env, ws, text.encode() if via == "stdin" else b"")
    assert done.returncode == 1
    (obj,) = objects(done)
    assert message(obj) == f"File not found: {ws}/notes.txt\ufffd"
    done = run(argv[:-1], env, ws, text.encode() if via == "stdin" else b"")
    assert done.returncode == 1
    assert "File not found" in done.stderr.decode()


@pytest.mark.parametrize("levels", [150, 600, 1200, 50_000])
def test_deep_args_on_the_command_line(env: dict[str, str], ws: Path, levels: int) -> None:
    done = run(["call", "read_file", read_args(ws, "[" * levels + "]" * levels), "--json"], env, ws)
    assert done.returncode == 1
    (obj,) = objects(done)
    assert message(obj) == depth_error("offset")


def test_deep_args_on_stdin(env: dict[str, str], ws: Path) -> None:
    text = read_args(ws, "[" * 1_000_000 + "]" * 1_000_000)
    done = run(["call", "read_file", "-", "--json"], env, ws, text.encode())
    assert done.returncode == 1
    (obj,) = objects(done)
    assert message(obj) == depth_error("offset")


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1" + "0" * 5000, "-1" + "0" * 400])
def test_numbers_no_tool_can_use(env: dict[str, str], ws: Path, number: str) -> None:
    done = run(["call", "read_file", read_args(ws, number), "--json"], env, ws)
    assert done.returncode == 1
    (obj,) = objects(done)
    assert message(obj) == INTEGER_OR_NULL


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_are_not_json(env: dict[str, str], ws: Path, literal: str) -> None:
    done = run(["call", "read_file", read_args(ws, literal)], env, ws)
    assert done.returncode == 2
    assert f"ARGS is not valid JSON: {literal} is not valid JSON" in done.stderr.decode()


@pytest.mark.parametrize("via", ["argv", "stdin"])
def test_args_that_are_not_utf8(env: dict[str, str], ws: Path, via: str) -> None:
    raw = b'{"file_path": "' + os.fsencode(ws) + b'/caf\xe9.txt"}'
    argv: list[str | bytes] = ["call", "read_file", raw if via == "argv" else "-"]
    done = run(argv, env, ws, raw if via == "stdin" else b"")
    assert done.returncode == 2
    assert "ARGS is not valid UTF-8" in done.stderr.decode()


# -- batches ------------------------------------------------------------------------------------


def batch_lines(ws: Path) -> list[tuple[bytes, str | None]]:
    """Lines of a batch and the exact error each must get (``None``: any answer)."""
    notes = json.dumps(str(ws / "notes.txt"))
    read = b'{"name": "read_file", "args": {"file_path": ' + notes.encode()
    deep = b"[" * 200_000 + b"]" * 200_000
    return [
        (read + b"}}", None),
        (read[:-1] + b'\xff"}}', f"Line 2: not valid UTF-8 (byte 0xff at offset {len(read) - 1})"),
        (b'{"name": "read_file", "args": {"file_path": "\\ud800"}}', None),
        (read + b', "offset": ' + deep + b"}}", depth_error("offset")),
        (deep, 'Line 5: expected an object {"name": "...", "args": {...}}'),
        (b'{"name": "read_file", "args": ' + deep + b"}", "Value of params must be an object"),
        (read + b', "offset": NaN}}', "Line 7: invalid JSON: NaN is not valid JSON"),
        (read + b', "offset": 1e400}}', INTEGER_OR_NULL),
        (read + b', "offset": 1' + b"0" * 5000 + b"}}", INTEGER_OR_NULL),
        (b"[1, 2]", 'Line 10: expected an object {"name": "...", "args": {...}}'),
        (b'"read_file"', 'Line 11: expected an object {"name": "...", "args": {...}}'),
        (b"null", 'Line 12: expected an object {"name": "...", "args": {...}}'),
        (b'{"name": 5, "args": {}}', 'Line 13: expected an object {"name": "...", "args": {...}}'),
        (b'{"args": {}}', 'Line 14: expected an object {"name": "...", "args": {...}}'),
        (b'{"name": "read_file", "args": [1]}', "Value of params must be an object"),
        (b'{"name": "read_file", "args": "x"}', "Value of params must be an object"),
        (b'{"name": "read\\udfffd_file", "args": {}}', None),
        (b'{"name": "read_file", "id": "\\ud800", "args": {"file_path": 1}}', None),
        (b'{"name": "read_file", "args": {"file_path": "x"', None),
        (b"", None),  # blank lines are skipped
        (read + b', "pad": "' + b"a" * 16_000_000 + b'"}}', None),
        (read + b"}}", None),
    ]


def check_batch(
    done: subprocess.CompletedProcess[bytes], lines: list[tuple[bytes, str | None]]
) -> None:
    answered = [expected for raw, expected in lines if raw.strip()]
    got = objects(done)
    assert len(got) == len(answered), done.stderr.decode()[-2000:]
    assert got[0]["error"] is None and got[-1]["error"] is None
    for obj, expected in zip(got, answered, strict=True):
        if expected is not None:
            assert message(obj) == expected
        if obj["error"] is not None:
            assert not PYTHON_INTERNALS.search(message(obj)), message(obj)


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_batch_answers_every_line(
    env: dict[str, str], ws: Path, tmp_path: Path, source: str
) -> None:
    lines = batch_lines(ws)
    data = b"\n".join(raw for raw, _ in lines) + b"\n"
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(data)
    argv = ["call", "--batch", str(batch) if source == "file" else "-", "--json"]
    done = run(argv, env, ws, data if source == "stdin" else b"")
    assert done.returncode == 1
    check_batch(done, lines)


def test_batch_in_text_mode_goes_on(env: dict[str, str], ws: Path, tmp_path: Path) -> None:
    lines = batch_lines(ws)
    batch = tmp_path / "batch.jsonl"
    batch.write_bytes(b"\n".join(raw for raw, _ in lines) + b"\n")
    done = run(["call", "--batch", str(batch)], env, ws)
    assert done.returncode == 1
    out = done.stdout.decode()
    assert out.startswith("── 1: read_file ──\nline 1\n")  # the first line was read, the last too:
    assert "unchanged since last read" in out
    err = done.stderr.decode()
    for expected in ("Line 2: not valid UTF-8", "Line 7: invalid JSON", depth_error("offset")):
        assert expected in err


def test_every_builtin_tool_with_the_corpus(env: dict[str, str], ws: Path, tmp_path: Path) -> None:
    search = {"provider": [{"type": "tavily", "apiKey": "k", "baseUrl": "http://127.0.0.1:9"}]}
    settings = Path(env["QWEN_HOME"]) / "settings.json"
    settings.write_text(json.dumps({"tools": {"webSearch": search}}))
    listed = run(["tools", "--json"], env, ws)
    registered = {tool["name"] for tool in json.loads(listed.stdout)}
    tools = sorted(set(base_args(ws)) & registered)
    assert {"read_file", "write_file", "run_shell_command", "web_search"} <= set(tools)
    corpus = cases(ws, tools)
    batch = tmp_path / "corpus.jsonl"
    batch.write_text("\n".join(case.line() for case in corpus) + "\n", encoding="ascii")
    done = run(["call", "--batch", str(batch), "--json", "--approval-mode", "yolo"], env, ws)
    got = objects(done)
    assert len(got) == len(corpus), done.stderr.decode()[-2000:]
    for case, obj in zip(corpus, got, strict=True):
        if obj["error"] is not None and "not found in registry" in message(obj):
            continue  # registered for listing, not in a non-interactive call (plan mode)
        if obj["error"] is not None:
            text = message(obj)
            assert not PYTHON_INTERNALS.search(text), (case.label, text)
            assert obj["error"]["type"] != "unhandled_exception", (case.label, text)
        if case.deep_key is not None:
            assert message(obj) == depth_error(case.deep_key), case.label


# -- results that hold lone surrogates ----------------------------------------------------------


def test_results_with_undecodable_names_print(env: dict[str, str], ws: Path) -> None:
    (ws / os.fsdecode(b"caf\xe9.txt")).write_text("x\n")
    done = run(["call", "glob", '{"pattern": "*.txt"}'], env, ws)
    assert done.returncode == 0
    assert "caf" in done.stdout.decode()
    done = run(["call", "list_directory", json.dumps({"path": str(ws)}), "--json"], env, ws)
    assert done.returncode == 0
    (obj,) = objects(done)
    assert "caf" in obj["llmContent"]


PRINT_RESULT = """
import sys
from qwen_tools import ToolCallRequest
from qwen_tools.cli.call_cmd import _emit, _print_human, completed_to_json
from qwen_tools.cli.render import printable_streams
from qwen_tools.execution.call_types import CompletedToolCall, failed
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.function_response import function_response_for_result
from qwen_tools.contract.results import ToolResult

printable_streams()
request = ToolCallRequest("t\\ud800", {}, "c1")
result = ToolResult(llm_content="caf\\udce9 \\ud83d", return_display="shown \\udfff")
ok = CompletedToolCall(
    request, "success", function_response_for_result("t", "c1", result), result,
    display=result.return_display,
)
bad = failed(request, "no \\ud800 here", ToolErrorType.EXECUTION_FAILED)
json_mode = sys.argv[1] == "json"
class Args:
    json = json_mode
for done in (ok, bad):
    if json_mode:
        _emit(Args, completed_to_json(done))
    else:
        _print_human(done)
"""


@pytest.mark.parametrize("mode", ["text", "json"])
def test_printing_never_fails_on_lone_surrogates(tmp_path: Path, mode: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PRINT_RESULT, mode],
        env=isolated_env(tmp_path),
        capture_output=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    out, err = done.stdout.decode("utf-8"), done.stderr.decode("utf-8")
    if mode == "json":
        first, second = (json.loads(line) for line in out.splitlines())
        assert first["llmContent"] == "caf\udce9 \ud83d"  # read back exactly
        assert first["returnDisplay"] == "shown \udfff"
        assert second["error"]["message"] == "no \ud800 here"
    else:
        assert out == "caf\\udce9 \\ud83d\n"
        assert "no \\ud800 here" in err and "shown \\udfff" in err


def test_a_huge_tool_name_is_answered_and_the_batch_goes_on(env: dict[str, str], ws: Path) -> None:
    """A 20 MB "tool name" gets the not-found answer (suggestions included) and the next line runs.

    The old pure-Python edit distance needed about ten minutes for this line; the subprocess's
    generous limit only fails the test when the answer never comes in that time.
    """
    huge = "r" * 20_000_000
    lines = [
        json.dumps({"name": huge, "args": {}}).encode(),
        json.dumps(
            {"name": "read_file", "args": {"absolute_path": str(ws / "notes.txt")}}
        ).encode(),
    ]
    done = subprocess.run(
        [EXE, "call", "--batch", "-", "--json"],
        env=env,
        cwd=ws,
        input=b"\n".join(lines) + b"\n",
        capture_output=True,
        timeout=300,
        check=False,
    )
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(objects) == 2
    assert "not found in registry" in objects[0]["responseText"]
    assert "Did you mean" in objects[0]["responseText"]
    assert "line 2" in objects[1]["responseText"]
