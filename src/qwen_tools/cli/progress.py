"""Progress for a person: a spinner line on stderr while a long operation runs.

Shown only when stderr is a terminal (a pipe or a file gets nothing extra), and transient: the
line is erased when the operation ends. Built on rich's ``Live`` with stdout and stderr left
alone (rich's ``Console.status`` would redirect stdout, where results go), imported only when
a spinner is actually shown.
"""

from __future__ import annotations

import sys
from types import TracebackType
from typing import Any

__all__ = ["Spinner"]


class Spinner:
    """``with Spinner("Connecting…"):`` — or :meth:`start`/:meth:`stop` around the work."""

    def __init__(self, text: str, *, enabled: bool | None = None) -> None:
        self.text = text
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self._live: Any = None

    def start(self, text: str | None = None) -> None:
        """Show the spinner (with ``text``, if given); nothing without a terminal."""
        if text is not None:
            self.text = text
        if not self.enabled or self._live is not None:
            return
        from rich.console import Console
        from rich.live import Live
        from rich.spinner import Spinner as RichSpinner

        live = Live(
            RichSpinner("dots", text=self.text),
            console=Console(file=sys.stderr),
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
            refresh_per_second=10,
        )
        live.start(refresh=True)
        self._live = live

    def stop(self) -> None:
        """Erase the spinner line (idempotent)."""
        live, self._live = self._live, None
        if live is not None:
            live.stop()

    def __enter__(self) -> Spinner:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
