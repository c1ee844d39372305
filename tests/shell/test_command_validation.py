"""Tests for the tool-level rejections of ``run_shell_command`` (exact Qwen Code 0.24.4 texts)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.shell.command_analysis import (
    SUBSTITUTION_WARNING,
    analyze_command,
    foreground_sleep_rejection,
    strip_shell_wrapper,
    strip_trailing_ampersand,
    validate_command_text,
    validate_shell_command,
)

EMPTY = "Command cannot be empty."
SELF_KILL = (
    "Blocked: this command may terminate the running qwen-code process because it targets all "
    "node/qwen-code processes. Use task_stop for managed background shells, or kill a specific PID "
    "instead."
)
BARE_AMP = (
    'Background shell commands must not end with a bare "&". Remove the trailing "&" and rely on '
    "is_background: true instead."
)
NO_ROOT = "Could not identify command root to obtain permission from user."
SLEEP_HEAD = (
    "Run blocking commands in the background with is_background: true. For streaming events "
    "(watching logs, polling APIs), use the Monitor tool. "
)
STANDALONE = (
    "If you genuinely need a standalone delay (rate limiting, deliberate pacing), add a trailing "
    "comment like `# intentional-sleep: wait for MCP rate limit reset` (up to 10 minutes)."
)
SPLIT = (
    "Split into two calls: first `sleep N # intentional-sleep: <reason>` (standalone), then the "
    "follow-up command."
)
SHORT_REASON = (
    "The intentional-sleep comment was recognized, but the reason is too short; explain why the "
    "delay is needed after `intentional-sleep:`."
)
TOO_LONG = (
    "The intentional-sleep comment was recognized, but foreground sleeps over 10 minutes are not "
    "allowed; use is_background: true or Monitor for longer waits."
)


def test_substitution_warning_text() -> None:
    assert SUBSTITUTION_WARNING == (
        "Contains command substitution ($(...), backticks, <(...), >(...), or ${parameter@P})."
    )


@pytest.mark.parametrize("command", ["", "   ", "\n\t"])
def test_empty(command: str) -> None:
    assert validate_shell_command(command, is_background=False) == EMPTY
    assert validate_shell_command(command, is_background=True) == EMPTY


@pytest.mark.parametrize(
    "command",
    [
        "pkill node", "killall node", "kill $(pgrep node)", "kill -9 `pgrep -f qwen`",
        "pkill -9 node", "pkill -f qwen-code", "pkill -f 'node'", "pkill -f '^node$'",
        "killall -s KILL node.exe", "sudo -u me pkill node", "env FOO=1 pkill qwen",
        "command pkill node", "pgrep node | xargs kill", "pgrep node | xargs -r kill -9",
        "ls && pkill node", "bash -c 'pkill node'", "echo $(pkill node)", "/usr/bin/pkill NODE",
        "taskkill /IM node.exe /F", "pkill python3", "killall python", "pkill -f qwen_tools",
        "[[ -n x ]] && pkill node",
    ],
)  # fmt: skip
def test_self_kill_is_blocked(command: str) -> None:
    assert validate_shell_command(command, is_background=False) == SELF_KILL
    assert validate_shell_command(command, is_background=True) == SELF_KILL


@pytest.mark.parametrize(
    "command",
    [
        "kill -9 $$", "kill 1234", "pkill -f 'node server.js'", "pkill nodemon", "pkill -u node vim",
        "killall -u node vim", "pgrep node", "echo pkill node", "kill $(cat pid)",
        "pgrep node | wc -l", "pkill -f python3x",
    ],
)  # fmt: skip
def test_other_kills_pass(command: str) -> None:
    assert validate_shell_command(command, is_background=False) is None


@pytest.mark.parametrize(
    "command",
    ["node server.js &", "npm run dev &  ", 'bash -c "node server.js &"', "sh -c 'x &' ",
     "a && b &", "python -m http.server & # serve"],
)  # fmt: skip
def test_bare_trailing_ampersand_in_background(command: str) -> None:
    assert validate_shell_command(command, is_background=True) == BARE_AMP
    assert validate_shell_command(command, is_background=False) is None


@pytest.mark.parametrize(
    "command", ["a && b", "echo '&'", "x \\&", "ls && pwd", "echo $(a &)", 'echo "a &"', "a |&"]
)
def test_ampersands_that_are_not_a_bare_trailing_one(command: str) -> None:
    assert validate_shell_command(command, is_background=True) != BARE_AMP


@pytest.mark.parametrize("command", ["x=1", "# just a comment", "FOO=bar BAZ=1", ";"])
def test_no_command_root(command: str) -> None:
    assert validate_shell_command(command, is_background=False) == NO_ROOT


@pytest.mark.parametrize(
    ("command", "message"),
    [
        ("sleep 5", f"Blocked: standalone sleep 5. {SLEEP_HEAD}{STANDALONE}"),
        ("sleep 2", f"Blocked: standalone sleep 2. {SLEEP_HEAD}{STANDALONE}"),
        ("  sleep 10s  ", f"Blocked: standalone sleep 10s. {SLEEP_HEAD}{STANDALONE}"),
        ("sleep 1m", f"Blocked: standalone sleep 1m. {SLEEP_HEAD}{STANDALONE}"),
        ("sleep 0.5h", f"Blocked: standalone sleep 0.5h. {SLEEP_HEAD}{STANDALONE}"),
        ("sleep 2500ms", f"Blocked: standalone sleep 2500ms. {SLEEP_HEAD}{STANDALONE}"),
        ("sleep 1d;", f"Blocked: standalone sleep 1d. {SLEEP_HEAD}{STANDALONE}"),
        ("sleep 5 && npm test", f"Blocked: sleep 5 followed by: npm test. {SLEEP_HEAD}{SPLIT}"),
        ("sleep 3; curl x", f"Blocked: sleep 3 followed by: curl x. {SLEEP_HEAD}{SPLIT}"),
        ("sleep 3 || true", f"Blocked: sleep 3 followed by: true. {SLEEP_HEAD}{SPLIT}"),
        ("sleep 3\nls", f"Blocked: sleep 3 followed by: ls. {SLEEP_HEAD}{SPLIT}"),
        (
            "sleep 5 && ls # intentional-sleep: waiting on the deploy",
            f"Blocked: sleep 5 followed by: ls. {SLEEP_HEAD}{SPLIT}",
        ),
        (
            "sleep 5 # intentional-sleep: short",
            f"Blocked: standalone sleep 5. {SLEEP_HEAD}{SHORT_REASON}",
        ),
        (
            "sleep 700 # intentional-sleep: wait for rate limit",
            f"Blocked: standalone sleep 700. {SLEEP_HEAD}{TOO_LONG}",
        ),
        ('bash -c "sleep 5"', f"Blocked: standalone sleep 5. {SLEEP_HEAD}{STANDALONE}"),
    ],
)
def test_foreground_sleep_is_blocked(command: str, message: str) -> None:
    assert validate_shell_command(command, is_background=False) == message
    assert validate_shell_command(command, is_background=True) is None


@pytest.mark.parametrize(
    "command",
    [
        "sleep 1", "sleep 1.9", "sleep 1500ms", "sleep 5 # intentional-sleep: wait for rate limit",
        "sleep 600 # intentional-sleep: nightly backup window", "sleep 5 | cat", "sleep 5 &",
        "sleep infinity", "sleep", "sleep 5x", "ls && sleep 5", "echo sleep 5", "sleepy 5",
    ],
)  # fmt: skip
def test_sleeps_that_may_run(command: str) -> None:
    assert foreground_sleep_rejection(command) is None
    assert validate_shell_command(command, is_background=False) is None


def test_order_of_checks() -> None:
    assert validate_shell_command("pkill node &", is_background=True) == SELF_KILL
    assert validate_shell_command("x=1 &", is_background=True) == BARE_AMP
    assert validate_command_text("sleep 5", is_background=False) is None
    assert validate_shell_command("a && b", is_background=False) is None
    assert validate_shell_command("a && b", is_background=True) is None


def test_wrapper_checks_follow_qwen_code_text_rules() -> None:
    # Qwen Code strips "bash -c 'S'" at the text level and ignores what follows the script.
    assert validate_shell_command("bash -c 'ls' &", is_background=True) is None
    assert validate_shell_command("bash -lc 'sleep 5' && cat f", is_background=False) == (
        f"Blocked: standalone sleep 5. {SLEEP_HEAD}{STANDALONE}"
    )
    assert strip_shell_wrapper('FOO=1 bash -c "ls -la" && rm x') == "ls -la"
    assert strip_shell_wrapper("sh -o pipefail -c 'a | b'") == "a | b"
    assert strip_shell_wrapper("  bash script.sh  ") == "bash script.sh"
    assert strip_shell_wrapper("bash -c") == "bash -c"


@pytest.mark.parametrize(
    ("command", "stripped"),
    [
        ("node server.js &", "node server.js"), ("node server.js  &  ", "node server.js"),
        ("a && b", "a && b"), ("x \\&", "x \\&"), ("npm start&", "npm start"), ("ls", "ls"),
        ("a &&", "a &&"),
    ],
)  # fmt: skip
def test_strip_trailing_ampersand(command: str, stripped: str) -> None:
    assert strip_trailing_ampersand(command) == stripped


REFERENCE = Path(__file__).parent / "data" / "qwen_shell_reference.json"
_CODES = {"empty": EMPTY, "self-kill": SELF_KILL, "bare-amp": BARE_AMP, "no-root": NO_ROOT}
_GUIDES = {"standalone": STANDALONE, "split": SPLIT, "short": SHORT_REASON, "long": TOO_LONG}


def _decode(code: str | None) -> str | None:
    if code is None or code in _CODES:
        return _CODES.get(code or "")
    _, guide, description = code.split(":", 2)
    return f"Blocked: {description}. {SLEEP_HEAD}{_GUIDES[guide]}"


def test_reference_corpus() -> None:
    """~3000 commands run through Qwen Code 0.24.4's own functions (validation messages,
    substitution detection, read-only verdict); our deliberate differences are left out."""
    entries: list[dict[str, Any]] = json.loads(REFERENCE.read_text())
    mismatches = []
    for entry in entries:
        command = entry["command"]
        analysis = analyze_command(command)
        got: dict[str, Any] = {
            "fg": validate_shell_command(command, is_background=False),
            "bg": validate_shell_command(command, is_background=True),
            "sub": analysis.has_command_substitution,
            "ro": analysis.is_read_only,
        }
        for key in ("fg", "bg"):
            if key in entry and got[key] != _decode(entry[key]):
                mismatches.append((command, key, got[key], entry[key]))
        for key in ("sub", "ro"):
            if key in entry and got[key] != entry[key]:
                mismatches.append((command, key, got[key], entry[key]))
    assert len(entries) > 2500
    assert mismatches == []
