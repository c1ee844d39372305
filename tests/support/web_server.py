"""A real HTTP server on 127.0.0.1 for the web tool tests: scripted routes, recorded requests."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


@dataclass
class Reply:
    """What a route answers."""

    status: int = 200
    body: bytes | str = b""
    headers: dict[str, str] = field(default_factory=dict)
    reason: str | None = None


@dataclass
class Recorded:
    """One request the server received."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


Route = Reply | Callable[[Recorded], Reply]


class LocalServer:
    """Routes by path (query ignored); unknown paths get 404. ``release`` frees hanging routes."""

    def __init__(self, server: ThreadingHTTPServer) -> None:
        self.server = server
        self.routes: dict[str, Route] = {}
        self.requests: list[Recorded] = []
        self.release = threading.Event()

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    def url(self, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def hang(self, _request: Recorded) -> Reply:
        """A route that answers only when the test ends."""
        self.release.wait(30)
        return Reply(200, b"late")


def _handler(state: LocalServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:
            return

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            parts = urlsplit(self.path)
            recorded = Recorded(
                self.command,
                parts.path,
                parse_qs(parts.query),
                {k.lower(): v for k, v in self.headers.items()},
                body,
            )
            state.requests.append(recorded)
            route = state.routes.get(parts.path)
            reply = Reply(404, b"not here") if route is None else route
            if callable(reply):
                reply = reply(recorded)
            data = reply.body.encode() if isinstance(reply.body, str) else reply.body
            try:
                self.send_response(reply.status, reply.reason)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                if "Content-Length" not in reply.headers:
                    self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

        do_GET = _serve
        do_POST = _serve

    return Handler


@contextmanager
def local_server() -> Iterator[LocalServer]:
    """Start a server on an ephemeral port of 127.0.0.1 in a thread; stop it afterwards."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    server.daemon_threads = True
    state = LocalServer(server)
    server.RequestHandlerClass = _handler(state)
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield state
    finally:
        state.release.set()
        server.shutdown()
        server.server_close()
        thread.join(5)
