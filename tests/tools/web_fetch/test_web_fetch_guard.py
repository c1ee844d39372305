"""web_fetch's SSRF guard and redirect policy, against a real server on 127.0.0.1.

Redirects to other private addresses are refused before any connection is made: no traffic
ever leaves the loopback interface.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import pytest

from qwen_tools import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.config.web_settings import WebFetchSettings, WebSettings
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.web_fetch.address import IPAddress
from qwen_tools.tools.web_fetch.tool import WebFetchTool
from support.web_server import LocalServer, Reply, local_server

REFUSED = (
    "private, loopback, link-local and other non-public addresses are blocked (the "
    "tools.webFetch.allowPrivateAddresses setting allows them)"
)


def make_config(ws: Path, allow: bool | tuple[str, ...] = ("127.0.0.1/32",)) -> Config:
    fetch = (
        WebFetchSettings(allow_all_private=allow)
        if isinstance(allow, bool)
        else WebFetchSettings(allowed_networks=allow)
    )
    return Config(ws, settings=ToolSettings(web=WebSettings(fetch=fetch)))


@pytest.fixture
def server() -> Iterator[LocalServer]:
    with local_server() as running:
        yield running


async def fetch(tool: WebFetchTool, url: str) -> ToolResult:
    invocation = tool.build({"url": url, "prompt": "Summarise"})
    return await invocation.execute(AbortSignal.never())


async def test_the_guard_refuses_loopback_by_default(ws: Path, server: LocalServer) -> None:
    url = server.url("/t")
    result = await fetch(WebFetchTool(Config(ws)), url)
    assert result.error is not None
    assert result.error.message == (
        f"Error during fetch for {url}: Refused to connect to 127.0.0.1: {REFUSED}"
    )
    assert server.requests == []


async def test_allowing_every_private_address(ws: Path, server: LocalServer) -> None:
    server.routes["/t"] = Reply(200, "ok", {"Content-Type": "text/plain"})
    result = await fetch(WebFetchTool(make_config(ws, allow=True)), server.url("/t"))
    assert result.error is None
    assert len(server.requests) == 1


async def test_a_same_host_redirect_is_followed(ws: Path, server: LocalServer) -> None:
    server.routes["/old"] = Reply(301, "", {"Location": "/new?x=1"})
    server.routes["/new"] = Reply(200, "moved here", {"Content-Type": "text/plain"})
    url = server.url("/old")
    result = await fetch(WebFetchTool(make_config(ws)), url)
    assert isinstance(result.llm_content, str)
    assert result.llm_content.startswith(f"URL: {url} (final: {server.url('/new?x=1')})\n")
    assert result.llm_content.endswith("\n\nmoved here")


async def test_a_cross_host_redirect_is_reported_not_followed(
    ws: Path, server: LocalServer
) -> None:
    target = "http://93.184.215.14/next"
    server.routes["/go"] = Reply(302, "", {"Location": target})
    url = server.url("/go")
    result = await fetch(WebFetchTool(make_config(ws)), url)
    assert result.error is None
    assert result.llm_content == (
        "REDIRECT DETECTED: The URL redirects to a different host (or scheme/port), which was "
        f"not followed automatically.\n\nOriginal URL: {url}\nRedirect URL: {target}\n"
        "Status: 302\n\nTo fetch the redirected content, call web_fetch again with:\n"
        f'- url: "{target}"\n- prompt: "Summarise"'
    )
    assert isinstance(result.return_display, str)
    assert result.return_display.startswith(
        "Redirected to 93.184.215.14 (302) \u2014 not followed (different host or scheme/port). in "
    )


@pytest.mark.parametrize(
    ("location", "shown"),
    [
        ("http://10.0.0.7/admin", "10.0.0.7"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254"),
        ("http://[::1]:8080/", "::1"),
        ("http://[::ffff:192.168.1.1]/", "::ffff:192.168.1.1"),
        ("http://100.64.0.1/", "100.64.0.1"),
    ],
)
async def test_a_redirect_to_a_private_address_is_refused(
    ws: Path, server: LocalServer, location: str, shown: str
) -> None:
    server.routes["/go"] = Reply(302, "", {"Location": location})
    url = server.url("/go")
    result = await fetch(WebFetchTool(make_config(ws)), url)
    assert result.error is not None
    assert result.error.message == (
        f"Error during fetch for {url}: Refused to connect to {shown}: {REFUSED}"
    )
    assert [r.path for r in server.requests] == ["/go"]


async def test_each_hop_is_checked_after_name_resolution(ws: Path, server: LocalServer) -> None:
    """``site.test`` resolves to the server, ``www.site.test`` (same site) to a private address."""
    answers = {"site.test": "127.0.0.1", "www.site.test": "10.9.8.7"}
    looked_up: list[str] = []

    async def resolver(host: str, port: int) -> Sequence[IPAddress]:
        looked_up.append(host)
        return [ipaddress.ip_address(answers[host])]

    port = server.port
    server.routes["/a"] = Reply(302, "", {"Location": f"http://www.site.test:{port}/b"})
    url = f"http://site.test:{port}/a"
    result = await fetch(WebFetchTool(make_config(ws), resolver=resolver), url)
    assert result.error is not None
    assert result.error.message == (
        f"Error during fetch for {url}: Refused to connect to www.site.test (10.9.8.7): {REFUSED}"
    )
    assert looked_up == ["site.test", "www.site.test"]
    (request,) = server.requests  # sent to the checked address, under the original name
    assert request.headers["host"] == f"site.test:{port}"


async def test_every_address_of_a_name_must_be_allowed(ws: Path, server: LocalServer) -> None:
    async def resolver(host: str, port: int) -> Sequence[IPAddress]:
        return [ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("192.168.0.9")]

    url = f"http://split.test:{server.port}/"
    result = await fetch(WebFetchTool(make_config(ws), resolver=resolver), url)
    assert result.error is not None
    assert "Refused to connect to split.test (192.168.0.9)" in result.error.message
    assert server.requests == []


async def test_the_redirect_limit(ws: Path, server: LocalServer) -> None:
    for n in range(20):
        server.routes[f"/r{n}"] = Reply(307, "", {"Location": f"/r{n + 1}"})
    url = server.url("/r0")
    result = await fetch(WebFetchTool(make_config(ws)), url)
    assert result.error is not None
    assert result.error.message == f"Error during fetch for {url}: Too many redirects (exceeded 10)"
    assert len(server.requests) == 11


async def test_a_redirect_without_location(ws: Path, server: LocalServer) -> None:
    server.routes["/r"] = Reply(302, "")
    url = server.url("/r")
    result = await fetch(WebFetchTool(make_config(ws)), url)
    assert result.error is not None
    assert result.error.message == (
        f"Error during fetch for {url}: Redirect response missing Location header"
    )


async def test_a_closed_port_fails_cleanly(ws: Path) -> None:
    with local_server() as gone:
        url = gone.url("/")
    result = await fetch(WebFetchTool(make_config(ws)), url)
    assert result.error is not None
    assert result.error.message == (  # 0.24.4's words (qwen-diff, manual web_fetch run)
        f"Error during fetch for {url}: fetch failed (cause: connect ECONNREFUSED "
        f"127.0.0.1:{gone.port})"
    )


@contextmanager
def raw_server(reply: bytes) -> Iterator[int]:
    """A TCP server on 127.0.0.1 that reads a request, sends ``reply`` and hangs up."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = listener.accept()
                with conn:
                    conn.recv(65536)
                    conn.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    try:
        yield int(listener.getsockname()[1])
    finally:
        listener.close()


@pytest.mark.parametrize(
    ("reply", "cause"),
    [
        (b"", "UND_ERR_SOCKET: other side closed"),
        (
            b"garbage\r\n\r\n",
            "Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)",
        ),
    ],
)
async def test_broken_responses_in_undici_words(ws: Path, reply: bytes, cause: str) -> None:
    with raw_server(reply) as port:
        url = f"http://127.0.0.1:{port}/"
        result = await fetch(WebFetchTool(make_config(ws)), url)
    assert result.error is not None
    assert result.error.message == f"Error during fetch for {url}: fetch failed (cause: {cause})"


async def test_blocked_ports_are_refused_as_fetch_does(ws: Path) -> None:
    url = "http://127.0.0.1:6000/x"  # on the Fetch standard's bad-port list, like 9 or 6667
    result = await fetch(WebFetchTool(make_config(ws)), url)
    assert result.error is not None
    assert result.error.message == f"Error during fetch for {url}: fetch failed (cause: bad port)"
