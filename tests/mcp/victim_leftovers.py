"""Not collected by default: a test that holds an SSE server, run by ``test_leftovers.py``.

``VICTIM_PID_FILE`` receives the server's pid once it accepts connections; ``VICTIM_MODE`` says
what the test then does: ``fail`` (an assertion error) or ``hang`` (waits until it is killed or
interrupted).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any


def test_hold_a_server(servers: Any) -> None:
    _port, process = servers.start_remote("sse")
    Path(os.environ["VICTIM_PID_FILE"]).write_text(str(process.pid))
    if os.environ["VICTIM_MODE"] == "fail":
        raise AssertionError("failing on purpose, with a server running")
    time.sleep(3600)
