"""``@path`` in a prompt: completion of workspace paths, and the files attached to the prompt.

As Qwen Code's ``@`` commands: a ``@path`` naming a readable file inside the workspace and not
ignored (``.gitignore``, ``.qwenignore``, as ``context.fileFiltering`` says) is sent with the
prompt, after it, between ``--- Content from referenced files ---`` and ``--- End of content
---``; other ``@`` words stay plain text and the chat says why they were not attached.
A ``@dir`` (or ``@dir/``) naming such a directory attaches its files as Qwen Code does, through
read_many_files with ``dir/**``: its default exclusions, ignore files, line budget per file and
workspace boundary (a symlink leading outside is skipped, never read).
Completion lists one directory level at a time, with the same filtering.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.results import ToolResult

AT_WORD = re.compile(r"(?<!\S)@((?:\\ |[^\s])+)")
MAX_FILE_BYTES = 1_000_000
MAX_COMPLETIONS = 50


def _ignored(config: Config, path: Path, is_dir: bool) -> bool:
    if path.name == ".git":
        return True
    return config.file_service.should_ignore_file(path, config.file_filtering, is_dir)


def path_completions(config: Config, word: str) -> Iterator[str]:
    """Workspace paths (relative, ``/`` after directories) that complete ``word``."""
    root = Path(config.target_dir)
    folder, _, prefix = word.rpartition("/")
    directory = (root / folder) if folder else root
    if not config.workspace.is_path_within_workspace(directory):
        return
    try:
        entries = sorted(os.scandir(directory), key=lambda entry: entry.name)
    except OSError:
        return
    shown = 0
    for entry in entries:
        if not entry.name.startswith(prefix) or (entry.name.startswith(".") and not prefix):
            continue
        is_dir = entry.is_dir()
        if _ignored(config, Path(entry.path), is_dir):
            continue
        yield (f"{folder}/" if folder else "") + entry.name + ("/" if is_dir else "")
        shown += 1
        if shown >= MAX_COMPLETIONS:
            return


@dataclass
class Attachments:
    """The parts sent after the prompt, and a line for each ``@`` word (attached or why not)."""

    parts: list[dict[str, Any]] = field(default_factory=list)
    notes: list[tuple[bool, str]] = field(default_factory=list)


def attach(config: Config, text: str) -> Attachments:
    """Read the files ``text`` names with ``@path`` (a directory: its files, see the module)."""
    result = Attachments()
    contents: list[tuple[str, str]] = []
    for match in AT_WORD.finditer(text):
        name = match.group(1).replace("\\ ", " ")
        why = _refusal(config, name)
        if why is not None:
            result.notes.append((False, f"Not attached @{name}: {why}"))
            continue
        path = Path(config.target_dir) / name
        if path.is_dir():
            files = _directory_files(config, path)
            if not files:
                result.notes.append((False, f"Not attached @{name}: {_NOTHING_READ}"))
                continue
            contents += files
            size = sum(len(content.encode()) for _, content in files)
            result.notes.append((True, f"Attached @{name} ({len(files)} files, {size:,} bytes)"))
            continue
        data = path.read_bytes()[:MAX_FILE_BYTES]
        contents.append((name, data.decode("utf-8", "replace")))
        result.notes.append((True, f"Attached @{name} ({len(data):,} bytes)"))
    if contents:
        texts = ["\n--- Content from referenced files ---"]
        for name, content in contents:
            texts += [f"\nContent from @{name}:\n", content]
        texts.append("\n--- End of content ---")
        result.parts = [{"type": "text", "text": piece} for piece in texts]
    return result


def _refusal(config: Config, name: str) -> str | None:
    """Why ``@name`` is not attached (``None``: it is)."""
    path = Path(config.target_dir) / name
    if not config.workspace.is_path_within_workspace(path):
        return "outside the workspace"
    if not path.exists():
        return "no such file"
    if _ignored(config, path, path.is_dir()):
        return "ignored"
    if path.is_dir():
        return None
    try:
        with path.open("rb"):
            pass
    except OSError as error:
        return error.strerror or "unreadable"
    return None


_NOTHING_READ = "no file in it can be sent (all excluded, ignored or outside the workspace)"
_FILE_PART = re.compile(r"--- (.*?) ---\n\n(.*)\n\n", re.DOTALL)


def _directory_files(config: Config, directory: Path) -> list[tuple[str, str]]:
    """``(name relative to the target dir, content)`` of the files read_many_files reads
    under ``directory`` (the text parts; media is only read when named)."""
    from concurrent.futures import ThreadPoolExecutor

    import anyio

    from qwen_tools.contract.abort import AbortSignal
    from qwen_tools.tools.common.glob_patterns import escape_glob
    from qwen_tools.tools.read_many_files.tool import ReadManyFilesTool

    pattern = escape_glob(str(directory.resolve()).replace(os.sep, "/")) + "/**"
    invocation = ReadManyFilesTool(config).build({"paths": [pattern]})

    # attach() runs on the chat's event loop thread, before the turn: the tool's own loop
    # runs in a worker thread so the reading stays the tool's, unchanged.
    async def read() -> ToolResult:
        return await invocation.execute(AbortSignal())

    with ThreadPoolExecutor(max_workers=1) as pool:
        result = pool.submit(anyio.run, read).result()
    parts = result.llm_content if isinstance(result.llm_content, list) else []
    root = os.path.realpath(config.target_dir)
    files: list[tuple[str, str]] = []
    for part in parts:
        found = _FILE_PART.fullmatch(part) if isinstance(part, str) else None
        if found is not None:
            name = os.path.relpath(found[1], root).replace(os.sep, "/")
            files.append((name, found[2]))
    return files
