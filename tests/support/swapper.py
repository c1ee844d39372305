"""A real race for path-check tests: a thread that keeps swapping a name between an inside
regular file (or directory) and a symlink to something outside the workspace.

Each swap is one atomic ``rename`` of a prepared entry over the name, so at every instant the
name is either the harmless inside object or the outside symlink, as an attacker's process
would make it. Use as a context manager; it stops and joins on exit.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from types import TracebackType


class Swapper:
    """Swap ``name`` between ``inside`` content and a symlink to ``outside_target``, forever."""

    def __init__(self, name: Path, outside_target: Path, *, directory: bool = False) -> None:
        self.name = name
        self.outside_target = outside_target
        self.directory = directory
        self.swaps = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._spare_link = name.parent / f".{name.name}.link"
        self._spare_real = name.parent / f".{name.name}.real"

    def _make_real(self, path: Path) -> None:
        if self.directory:
            path.mkdir()
            (path / "inside.txt").write_text("inside needle\n")
        else:
            path.write_text("inside needle\n")

    def _run(self) -> None:
        while not self._stop.is_set():
            for spare in (self._spare_link, self._spare_real):
                if not os.path.lexists(spare):
                    if spare is self._spare_link:
                        spare.symlink_to(self.outside_target)
                    else:
                        self._make_real(spare)
                    os.replace(spare, self.name) if not self.directory else self._swap_dir(spare)
                    self.swaps += 1

    def _swap_dir(self, spare: Path) -> None:
        # rename(2) cannot replace a non-empty directory: move the old one aside first, so the
        # name is briefly missing, then rename the spare in (each step atomic).
        aside = self.name.parent / f".{self.name.name}.old"
        if os.path.lexists(self.name):
            os.rename(self.name, aside)
        os.rename(spare, self.name)
        if os.path.islink(aside) or aside.is_file():
            aside.unlink()
        elif aside.exists():
            for child in aside.iterdir():
                child.unlink()
            aside.rmdir()

    def __enter__(self) -> Swapper:
        self._make_real(self.name)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        self._thread.join(timeout=30)
