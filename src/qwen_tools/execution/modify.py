"""Modify with editor: let the user rewrite a proposed file change in an external editor.

When the user answers a file-change confirmation with "modify with external editor", the
tool's :class:`~qwen_tools.contract.modifiable.ModifyContext` gives the current and the
proposed content. Both are written to temp files under
``<tempdir>/qwen-tools-modify-diffs/`` (``qwen-tools-modify-<base>-old-<ms><ext>`` and
``…-new-…``), the editor is run on the **new** file and waited for, both files are read back
(a deleted file reads as ``""``) and removed, and the tool turns the result into updated
params. The pipeline then rebuilds the call and asks again.

The editor is ``$VISUAL``, else ``$EDITOR``, split like a shell word list; it receives the path
of the proposed file as its last argument, and the path of the current content in the
environment variable ``QWEN_TOOLS_ORIGINAL`` (for editors that can show a diff). Qwen Code
instead picks from a list of known editors (``vim``, ``code --wait --diff`` …) configured in
its settings.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import tempfile
import time
from collections.abc import Mapping
from typing import Any

from qwen_tools.contract.abort import AbortError, AbortSignal
from qwen_tools.contract.modifiable import ModifiableTool

__all__ = [
    "MODIFY_DIR_NAME",
    "ORIGINAL_ENV_VAR",
    "EditorError",
    "modify_with_editor",
    "resolve_editor_command",
]

MODIFY_DIR_NAME = "qwen-tools-modify-diffs"
"""Directory under the system temp dir that holds the files being edited."""

ORIGINAL_ENV_VAR = "QWEN_TOOLS_ORIGINAL"
"""Environment variable naming the temp file with the current content."""


class EditorError(Exception):
    """The editor could not be started or exited with a failure status."""


def resolve_editor_command(env: Mapping[str, str] | None = None) -> list[str] | None:
    """The configured editor as an argument list (``$VISUAL``, else ``$EDITOR``), or ``None``."""
    env = os.environ if env is None else env
    for name in ("VISUAL", "EDITOR"):
        raw = env.get(name, "").strip()
        if not raw:
            continue
        try:
            words = shlex.split(raw)
        except ValueError:
            words = raw.split()
        if words:
            return words
    return None


def _temp_paths(file_path: str) -> tuple[str, str]:
    """Fresh ``-old-`` / ``-new-`` paths for ``file_path`` (the directory is created)."""
    directory = os.path.join(tempfile.gettempdir(), MODIFY_DIR_NAME)
    os.makedirs(directory, exist_ok=True)
    base = os.path.basename(file_path)
    stem, ext = os.path.splitext(base)
    if not stem:  # ".bashrc": Node's extname is "" and the whole name is the base
        stem, ext = base, ""
    stamp = int(time.time() * 1000)
    while True:
        old = os.path.join(directory, f"qwen-tools-modify-{stem}-old-{stamp}{ext}")
        new = os.path.join(directory, f"qwen-tools-modify-{stem}-new-{stamp}{ext}")
        if not os.path.lexists(old) and not os.path.lexists(new):
            return old, new
        stamp += 1


def _write_new(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with open(fd, "w", encoding="utf-8", errors="surrogatepass", newline="") as handle:
        handle.write(text)


def _read_back(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace", newline="") as handle:
            return handle.read()
    except FileNotFoundError:
        return ""


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


async def _run_editor(
    command: list[str], old_path: str, new_path: str, signal: AbortSignal
) -> None:
    env = {**os.environ, ORIGINAL_ENV_VAR: old_path}
    try:
        process = await asyncio.create_subprocess_exec(*command, new_path, env=env)
    except OSError as exc:
        raise EditorError(f"Cannot start the editor {command[0]!r}: {exc.strerror or exc}") from exc
    waiter = asyncio.ensure_future(process.wait())
    aborted = asyncio.ensure_future(signal.wait())
    try:
        await asyncio.wait({waiter, aborted}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        aborted.cancel()
        if not waiter.done():
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await asyncio.wait_for(asyncio.shield(waiter), 2)
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()
                await waiter
    if signal.aborted:
        raise AbortError(signal.reason or "The operation was aborted.")
    if process.returncode != 0:
        raise EditorError(f"{command[0]} exited with code {process.returncode}")


async def modify_with_editor(
    tool: ModifiableTool,
    params: dict[str, Any],
    signal: AbortSignal,
    editor_command: list[str] | None = None,
) -> dict[str, Any] | None:
    """Let the user rewrite the proposed content of a call; return the updated params.

    Returns ``None`` (nothing done) when no editor is configured. Raises :class:`EditorError`
    when the editor cannot start or fails, and :class:`AbortError` when ``signal`` fires while
    it runs (the editor is terminated). The temp files are removed in every case.
    """
    command = editor_command or resolve_editor_command()
    if not command:
        return None
    context = tool.get_modify_context()
    current = await context.get_current_content(params)
    proposed = await context.get_proposed_content(params)
    old_path, new_path = _temp_paths(context.get_file_path(params))
    try:
        _write_new(old_path, current)
        _write_new(new_path, proposed)
        await _run_editor(command, old_path, new_path, signal)
        old_content = _read_back(old_path)
        new_content = _read_back(new_path)
    finally:
        _remove(old_path)
        _remove(new_path)
    return context.create_updated_params(old_content, new_content, params)
