"""OAuth 2.1 for a remote server: ``qwen-tools mcp auth`` against a real authorization server
(``servers/oauth_server.py``: discovery, dynamic registration, code + PKCE, refresh), the
redirect received on 127.0.0.1, tokens stored 0600 and refreshed when the server rejects them.
The browser is played by an HTTP client that follows the authorization server's redirect."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from support.processes import MARK_VAR, process_guard

EXE = Path(sys.executable).with_name("qwen-tools")
SERVER = Path(__file__).resolve().parent / "servers" / "oauth_server.py"


@pytest.fixture(autouse=True)
def process_mark(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    yield from process_guard(monkeypatch, timeout=10.0)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Setup:
    root: Path
    home: Path
    env: dict[str, str]
    grants: Path

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(EXE), *args], cwd=self.root, env=self.env, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip

    def start_login(self) -> tuple[subprocess.Popen[str], str]:
        """``mcp auth sec`` running, and the authorization URL it printed."""
        process = subprocess.Popen(
            [str(EXE), "mcp", "auth", "sec", "--timeout", "60"],
            cwd=self.root, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert process.stdout is not None
        first = process.stdout.readline()
        assert first == 'To log in to MCP server "sec", open this URL in a browser:\n', first + (
            process.stderr.read() if process.stderr else ""
        )
        return process, process.stdout.readline().strip()

    @property
    def tokens(self) -> Path:
        return self.home / ".qwen" / "mcp-oauth-tokens.json"


@pytest.fixture
def setup(tmp_path: Path, process_mark: str) -> Iterator[Setup]:
    port = _free_port()
    grants = tmp_path / "grants.log"
    server = subprocess.Popen(
        [sys.executable, str(SERVER), "--port", str(port), "--log", str(grants)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert server.poll() is None and time.monotonic() < deadline, "no OAuth server"
                time.sleep(0.05)
        home, root = tmp_path / "home", tmp_path / "project"
        (home / ".qwen").mkdir(parents=True)
        root.mkdir()
        entry = {"httpUrl": f"http://127.0.0.1:{port}/mcp", "trust": True}
        (home / ".qwen" / "settings.json").write_text(json.dumps({"mcpServers": {"sec": entry}}))
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": str(home),
            "QWEN_HOME": str(home / ".qwen"),
            "QWEN_CODE_SYSTEM_SETTINGS_PATH": str(tmp_path / "system.json"),
            "QWEN_CODE_SYSTEM_DEFAULTS_PATH": str(tmp_path / "defaults.json"),
            MARK_VAR: process_mark,
        }
        yield Setup(root, home, env, grants)
    finally:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def test_login_store_use_refresh_and_logout(setup: Setup) -> None:
    before = setup.run("call", "sec__whoami", "{}", "--json")
    assert before.returncode != 0 and not setup.tokens.exists()
    assert json.loads(before.stdout)["responseText"].endswith(
        "MCP server 'sec' is not connected: requires OAuth authentication: run "
        "'qwen-tools mcp auth sec'."
    )

    login, url = setup.start_login()
    query = parse_qs(urlsplit(url).query)
    assert query["code_challenge_method"] == ["S256"] and query["code_challenge"]
    redirect = urlsplit(query["redirect_uri"][0])
    assert (redirect.scheme, redirect.hostname, redirect.path) == (
        "http",
        "127.0.0.1",
        "/oauth/callback",
    )
    page = httpx.get(url, follow_redirects=True)  # the browser: AS approves, redirects to us
    assert page.status_code == 200 and "Logged in." in page.text
    out, err = login.communicate(timeout=60)
    assert login.returncode == 0, err
    assert out.strip() == 'Logged in to MCP server "sec".'

    assert stat.S_IMODE(setup.tokens.stat().st_mode) == 0o600
    stored = json.loads(setup.tokens.read_text())["sec"]
    assert stored["url"].endswith("/mcp") and stored["tokens"]["refresh_token"]
    assert stored["client_info"]["client_id"]  # registered dynamically

    done = setup.run("call", "sec__whoami", "{}", "--json")
    assert json.loads(done.stdout)["responseText"] == "authorized", done.stderr
    assert setup.grants.read_text().splitlines() == ["authorization_code"]

    # the access token's time is up (as if an hour had passed): the next process refreshes it
    # before use, and stores the new tokens
    data = json.loads(setup.tokens.read_text())
    data["sec"]["expires_at"]["epoch"] = 1
    setup.tokens.write_text(json.dumps(data))
    done = setup.run("call", "sec__whoami", "{}", "--json")
    assert json.loads(done.stdout)["responseText"] == "authorized", done.stderr
    assert setup.grants.read_text().splitlines() == ["authorization_code", "refresh_token"]
    renewed = json.loads(setup.tokens.read_text())["sec"]
    assert renewed["tokens"]["refresh_token"] != stored["tokens"]["refresh_token"]
    assert renewed["expires_at"]["epoch"] > 1
    assert stat.S_IMODE(setup.tokens.stat().st_mode) == 0o600

    assert setup.run("mcp", "auth", "sec", "--logout").stdout.strip() == (
        'Removed stored OAuth tokens for "sec".'
    )
    assert "sec" not in json.loads(setup.tokens.read_text())
    assert setup.run("call", "sec__whoami", "{}").returncode != 0


def test_removing_a_server_forgets_its_tokens(setup: Setup) -> None:
    login, url = setup.start_login()
    httpx.get(url, follow_redirects=True)
    assert login.wait(timeout=60) == 0
    assert "sec" in json.loads(setup.tokens.read_text())
    removed = setup.run("mcp", "remove", "sec")
    assert removed.stdout.strip() == 'Server "sec" removed from user settings.'
    assert "sec" not in json.loads(setup.tokens.read_text())


def test_a_forged_redirect_is_refused(setup: Setup) -> None:
    login, url = setup.start_login()
    redirect = parse_qs(urlsplit(url).query)["redirect_uri"][0]
    # someone else's page sends the browser to our listener with a code and a wrong state
    httpx.get(redirect, params={"code": "stolen", "state": "not-ours"})
    _, err = login.communicate(timeout=60)
    assert login.returncode != 0
    assert 'Login to "sec" failed' in err
    assert not setup.tokens.exists() or "tokens" not in json.loads(setup.tokens.read_text()).get(
        "sec", {}
    )


def test_auth_refuses_what_is_not_a_remote_server(setup: Setup) -> None:
    done = setup.run("mcp", "auth", "ghost")
    assert done.returncode == 2
    assert done.stderr.strip() == 'Error: Server "ghost" not found in configuration.'
