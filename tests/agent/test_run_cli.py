"""``qwen-tools run`` as a real subprocess against the fake model server."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from support.cli_env import isolated_env
from support.fake_openai import FakeOpenAI, Reply, call

EXE = Path(sys.executable).with_name("qwen-tools")
TURN_LIMIT = (
    "Reached max session turns for this session. Increase the number of turns by specifying "
    "maxSessionTurns in settings.json."
)


@pytest.fixture
def env(tmp_path: Path, server: FakeOpenAI) -> dict[str, str]:
    return isolated_env(
        tmp_path,
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=server.url,
        OPENAI_MODEL="fake-model",
        NO_PROXY="127.0.0.1",
    )


def run(
    args: list[str], env: dict[str, str], cwd: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(EXE), *args],
        env=env,
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def script(server: FakeOpenAI, ws: Path) -> None:
    server.script = [
        Reply(content="Let me look.", tool_calls=[call("list_directory", {"path": str(ws)}, "c1")]),
        Reply(content="Two entries."),
    ]


def test_text_output(server: FakeOpenAI, env: dict[str, str], ws: Path) -> None:
    script(server, ws)
    done = run(["run", "--approval-mode", "yolo", "what is here?"], env, ws)
    assert (done.returncode, done.stdout) == (0, "Two entries.\n"), done.stderr
    prompt = server.requests[0]["messages"][1]["content"]
    assert prompt[-1] == {"type": "text", "text": "what is here?"}
    assert [p["text"].startswith("<system-reminder>") for p in prompt] == [True, True, False]


def test_json_output(server: FakeOpenAI, env: dict[str, str], ws: Path) -> None:
    script(server, ws)
    done = run(["--approval-mode", "yolo", "--output-format", "json", "look"], env, ws)
    assert done.returncode == 0, done.stderr
    messages = json.loads(done.stdout)
    assert [(m["type"], m.get("subtype")) for m in messages] == [
        ("system", "init"),
        ("assistant", None),
        ("assistant", None),
        ("user", None),
        ("assistant", None),
        ("result", "success"),
    ]
    init, text, tool_use, tool_result, answer, result = messages
    assert init["cwd"] == str(ws) and init["permission_mode"] == "yolo"
    assert init["model"] == "fake-model" and "read_file" in init["tools"]
    assert text["message"]["content"] == [{"type": "text", "text": "Let me look."}]
    assert text["message"]["stop_reason"] is None
    assert text["message"]["usage"] == {"input_tokens": 0, "output_tokens": 0}
    assert tool_use["message"]["content"] == [
        {"type": "tool_use", "id": "c1", "name": "list_directory", "input": {"path": str(ws)}}
    ]
    assert tool_use["message"]["stop_reason"] == "tool_use"
    assert tool_use["message"]["usage"] == {
        "input_tokens": 100,
        "output_tokens": 10,
        "cache_read_input_tokens": 0,
        "total_tokens": 110,
    }
    assert tool_use["uuid"] == tool_use["message"]["id"]
    assert tool_result["message"] == {
        "role": "user",
        "content": [
            {
                "type": "tool_result",
                "tool_use_id": "c1",
                "is_error": False,
                "content": "Listed 2 item(s)",
            }
        ],
    }
    assert answer["message"]["content"] == [{"type": "text", "text": "Two entries."}]
    assert result["result"] == "Two entries."
    assert (result["is_error"], result["num_turns"]) == (False, 2)
    assert result["usage"] == {
        "input_tokens": 200,
        "output_tokens": 20,
        "cache_read_input_tokens": 0,
        "total_tokens": 220,
    }
    assert result["permission_denials"] == []
    stats = result["stats"]
    assert stats["models"]["fake-model"]["api"]["totalRequests"] == 2
    assert stats["tools"]["byName"]["list_directory"]["decisions"]["auto_accept"] == 1
    assert {m["session_id"] for m in messages} == {init["session_id"]}


def test_stream_json_with_partial_messages(
    server: FakeOpenAI, env: dict[str, str], ws: Path
) -> None:
    script(server, ws)
    done = run(
        ["run", "-y", "-o", "stream-json", "--include-partial-messages", "-p", "look"], env, ws
    )
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines[0]["subtype"] == "init" and lines[-1]["type"] == "result"
    assert "stats" not in lines[-1]
    events = [line["event"] for line in lines if line["type"] == "stream_event"]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "message_start"
    assert kinds.count("message_start") == kinds.count("message_stop") == 2
    text = "".join(
        e["delta"]["text"]
        for e in events
        if e["type"] == "content_block_delta" and e["delta"]["type"] == "text_delta"
    )
    assert text == "Let me look.Two entries."
    tool_delta = [e for e in events if e.get("delta", {}).get("type") == "input_json_delta"]
    assert tool_delta[0]["delta"]["partial_json"] == json.dumps(
        {"path": str(ws)}, separators=(",", ":")
    )


def test_stdin_is_prepended_to_the_prompt(
    server: FakeOpenAI, env: dict[str, str], ws: Path
) -> None:
    server.script = [Reply(content="a"), Reply(content="b")]
    assert run(["run", "-p", "Summarise."], env, ws, stdin="some log\n").returncode == 0
    assert run(["run"], env, ws, stdin="only stdin").returncode == 0
    texts = [r["messages"][1]["content"][-1]["text"] for r in server.requests]
    assert texts == ["some log\n\n\nSummarise.", "only stdin"]


def test_usage_errors(env: dict[str, str], ws: Path) -> None:
    assert run(["run"], env, ws).returncode == 2
    done = run(["run", "-p", "x", "y"], env, ws)
    assert done.returncode == 2 and "not both" in done.stderr


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_no_model_configured(env: dict[str, str], ws: Path, fmt: str) -> None:
    for key in ("OPENAI_API_KEY", "OPENAI_MODEL", "OPENAI_BASE_URL"):
        del env[key]
    done = run(["run", "-o", fmt, "hello"], env, ws)
    assert done.returncode == 3
    for name in ("OPENAI_API_KEY", "OPENAI_MODEL", "OPENAI_BASE_URL", '"apiKey"', "--model"):
        assert name in done.stderr
    if fmt == "json":
        (result,) = json.loads(done.stdout)
        assert result["is_error"] and "No model is configured" in result["error"]["message"]
    else:
        assert done.stdout == ""


def test_turn_limit(server: FakeOpenAI, env: dict[str, str], ws: Path) -> None:
    server.script = lambda _body: Reply(tool_calls=[call("glob", {"pattern": "*"})])
    done = run(["-y", "--output-format", "json", "--max-session-turns", "2", "go"], env, ws)
    assert (done.returncode, done.stdout) == (53, "")
    assert json.loads(done.stderr) == {
        "error": {"type": "FatalTurnLimitedError", "message": TURN_LIMIT, "code": 53}
    }
    assert len(server.requests) == 2
    text = run(["-y", "--max-session-turns", "1", "go"], env, ws)
    assert (text.returncode, text.stderr) == (53, TURN_LIMIT + "\n")


def test_api_error(server: FakeOpenAI, env: dict[str, str], ws: Path) -> None:
    server.script = lambda _body: Reply(status=401, error={"error": {"message": "bad key"}})
    done = run(["run", "hi"], env, ws)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", "[API Error: 401 bad key]\n")
    done = run(["run", "-o", "json", "hi"], env, ws)
    assert done.returncode == 1
    *_, failed, result = json.loads(done.stdout)
    assert failed["message"]["content"] == [{"type": "text", "text": "[API Error: 401 bad key]"}]
    assert result["subtype"] == "error_during_execution"
    assert result["error"] == {"message": "[API Error: 401 bad key]"}
    assert "result" not in result and "stats" not in result
    assert json.loads(done.stderr)["error"]["type"] == "AlreadyReportedError"


def test_refusal_without_a_terminal(server: FakeOpenAI, env: dict[str, str], ws: Path) -> None:
    server.script = [
        Reply(tool_calls=[call("write_file", {"file_path": f"{ws}/x.txt", "content": "x"}, "w")]),
        Reply(content="I could not write."),
    ]
    done = run(["run", "-o", "json", "write x"], env, ws)
    assert done.returncode == 0, done.stderr
    assert not (ws / "x.txt").exists()
    messages: list[dict[str, Any]] = json.loads(done.stdout)
    result = messages[-1]
    assert result["permission_denials"] == [
        {
            "tool_name": "write_file",
            "tool_use_id": "w",
            "tool_input": {"file_path": f"{ws}/x.txt", "content": "x"},
        }
    ]
    block = messages[-3]["message"]["content"][0]
    assert block["is_error"] is True


def test_run_help_stays_light(env: dict[str, str], ws: Path) -> None:
    code = (
        "import sys\nfrom qwen_tools.cli.main import main\n"
        "try:\n    main(['run', '--help'])\nexcept SystemExit:\n    pass\n"
        "print(sorted({k.split('.')[0] for k in sys.modules} & {'httpx', 'json_repair', 'anyio', 'rich'}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"
    assert "--max-session-turns" in done.stdout


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_interrupt_cancels_the_request(
    server: FakeOpenAI, env: dict[str, str], ws: Path, fmt: str
) -> None:
    import signal
    import threading
    import time

    release = threading.Event()
    server.script = [Reply(content="streaming forever", hold=release)]
    proc = subprocess.Popen(
        [str(EXE), "run", "-o", fmt, "talk"],
        env=env,
        cwd=ws,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        while not server.requests and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        release.set()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130
    assert out == ""
    if fmt == "json":
        assert json.loads(err) == {
            "error": {
                "type": "FatalCancellationError",
                "message": "Operation cancelled.",
                "code": 130,
            }
        }
    else:
        assert err == "Operation cancelled.\n"


def test_run_compresses_a_conversation_that_nears_the_window(
    server: FakeOpenAI, env: dict[str, str], ws: Path
) -> None:
    (ws / ".qwen").mkdir(exist_ok=True)
    window = {"model": {"generationConfig": {"contextWindowSize": 4000}}}
    (ws / ".qwen" / "settings.json").write_text(json.dumps(window))
    big = {"prompt_tokens": 3600, "completion_tokens": 10, "total_tokens": 3610}
    server.script = [
        Reply(tool_calls=[call("list_directory", {"path": str(ws)}, "c1")], usage=big),
        Reply(
            content="<state_snapshot>looked at the workspace</state_snapshot>",
            usage={"prompt_tokens": 1500, "completion_tokens": 50, "total_tokens": 1550},
        ),
        Reply(content="Two entries."),
    ]
    done = run(["run", "--approval-mode", "yolo", "what is here?"], env, ws)
    assert (done.returncode, done.stdout) == (0, "Two entries.\n"), done.stderr
    summary_request, after = server.requests[1:]
    assert summary_request["messages"][0]["content"].startswith("You are the component")
    assert [m["role"] for m in after["messages"]] == ["system", "user", "assistant", "tool"]
    assert "looked at the workspace" in json.dumps(after["messages"][1])
    assert "what is here?" not in json.dumps(after["messages"])
