"""An "MCP server" that never answers: it reads what it is sent and says nothing.

Usage: ``python silent_server.py LOG`` (stdio: every line read from stdin is appended to
``LOG``, and the file is created at start, so a test can tell "never started" from "started
and received nothing"); ``python silent_server.py LOG --tcp PORT_FILE`` (listens on
127.0.0.1, writes its port to ``PORT_FILE``, accepts every connection and appends what it
receives to ``LOG``, answering nothing, ever). It exits when stdin ends (stdio) or when it is
killed (TCP).
"""

from __future__ import annotations

import socket
import sys
import threading
from pathlib import Path


def _append(log: Path, data: bytes) -> None:
    with log.open("ab") as handle:
        handle.write(data)


def _serve_stdio(log: Path) -> None:
    for line in sys.stdin.buffer:
        _append(log, line)


def _drain(conn: socket.socket, log: Path) -> None:
    with conn:
        while data := conn.recv(65536):
            _append(log, data)


def _serve_tcp(log: Path, port_file: Path) -> None:
    listener = socket.create_server(("127.0.0.1", 0))
    port_file.write_text(str(listener.getsockname()[1]))
    while True:
        conn, _addr = listener.accept()
        _append(log, b"[connection]\n")
        threading.Thread(target=_drain, args=(conn, log), daemon=True).start()


def main() -> None:
    log = Path(sys.argv[1])
    log.touch()
    if len(sys.argv) > 3 and sys.argv[2] == "--tcp":
        _serve_tcp(log, Path(sys.argv[3]))
    else:
        _serve_stdio(log)


if __name__ == "__main__":
    main()
