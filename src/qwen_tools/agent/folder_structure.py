"""The workspace tree shown to the model at the start of a conversation.

Qwen Code 0.24.4 (``utils/getFolderStructure.ts``) lists each workspace directory
breadth-first, at most 20 entries in all, and the model sees exactly that text, so this
module reproduces it character for character:

* each directory's entries are sorted with JavaScript's ``localeCompare`` (ICU root collation,
  :mod:`qwen_tools.jscompat.collation`), then its files are listed before its folders;
* only regular files and directories count: symbolic links and other entries are left out;
* a file ignored by ``.gitignore`` or the Qwen ignore files is left out without counting;
  a directory is tested by its bare path (so a directory-only pattern such as ``build/`` does
  not hide the directory itself, only its contents);
* ``node_modules``, ``.git`` and ``dist``, and ignored directories, are shown as ``name/...``
  and never opened;
* once 20 entries are listed, a directory's remaining files become one ``...`` entry, its
  remaining folders another, and queued folders that were never opened show ``...`` inside;
* unreadable directories (permission denied, vanished) are shown empty.

The text is ``Showing up to 20 items:``, a blank line, the directory's absolute path with a
trailing ``/``, then one line per entry drawn with ``├───``, ``└───`` and ``│   ``.
"""

from __future__ import annotations

import errno
import os
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qwen_tools.config.file_service import FileFilteringOptions
from qwen_tools.jscompat.collation import collation_key

if TYPE_CHECKING:
    from qwen_tools.config.file_service import FileDiscoveryService

__all__ = ["DEFAULT_IGNORED_FOLDERS", "MAX_ITEMS", "folder_structure", "folder_structures"]

MAX_ITEMS = 20
DEFAULT_IGNORED_FOLDERS = frozenset({"node_modules", ".git", "dist"})
_MORE = "..."
_BRANCH = "\u251c\u2500\u2500\u2500"
_LAST = "\u2514\u2500\u2500\u2500"
_PIPE = "\u2502   "

# libuv's wording for the errors Node reports as "CODE: text, scandir 'path'".
_UV_TEXT = {
    errno.ENOTDIR: "not a directory",
    errno.ELOOP: "too many symbolic links encountered",
    errno.EPERM: "operation not permitted",
    errno.EMFILE: "too many open files",
    errno.ENAMETOOLONG: "name too long",
    errno.EIO: "i/o error",
}


@dataclass
class _Folder:
    name: str
    path: str
    files: list[str] = field(default_factory=list)
    folders: list[_Folder] = field(default_factory=list)
    ignored: bool = False
    more_files: bool = False
    more_folders: bool = False


class _RootMissing(Exception):
    pass


def _node_name(name: str) -> str:
    """The name as Node decodes it: undecodable bytes become U+FFFD."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(name).decode("utf-8", "replace")
    return name


def _entries(path: str) -> list[tuple[str, bool, bool]]:
    """``(name, is_file, is_dir)`` for each entry, in the order Node's ``readdir`` + sort gives.

    libuv returns the names sorted byte-wise; the reference then sorts them (stably) with
    ``localeCompare``, so names that collate equal stay in byte order.
    """
    with os.scandir(path) as scan:
        found = [
            (
                collation_key(name := _node_name(e.name)),
                os.fsencode(e.name),
                name,
                e.is_file(follow_symlinks=False),
                e.is_dir(follow_symlinks=False),
            )
            for e in scan
        ]
    found.sort(key=lambda entry: (entry[0], entry[1]))
    return [(name, is_file, is_dir) for _, _, name, is_file, is_dir in found]


def _read(
    root_path: str,
    max_items: int,
    ignored_folders: Iterable[str],
    file_service: FileDiscoveryService | None,
    options: FileFilteringOptions,
) -> _Folder:
    """The breadth-first walk, stopping once ``max_items`` entries are listed."""
    skip = frozenset(ignored_folders)
    root = _Folder(os.path.basename(root_path), root_path)
    queue: deque[_Folder] = deque([root])
    seen: set[str] = set()
    count = 0

    def ignored(path: str) -> bool:
        return file_service is not None and file_service.should_ignore_file(
            path, options, is_dir=False
        )

    while queue:
        folder = queue.popleft()
        if folder.path in seen:  # two undecodable names can decode alike
            continue
        seen.add(folder.path)
        if count >= max_items:
            folder.more_folders = True
            continue
        try:
            entries = _entries(folder.path)
        except OSError as error:
            if error.errno in (errno.EACCES, errno.ENOENT):
                if folder is root and error.errno == errno.ENOENT:
                    raise _RootMissing from error
                continue
            raise
        for name, is_file, _ in entries:
            if not is_file:
                continue
            if count >= max_items:
                folder.more_files = True
                break
            if not ignored(os.path.join(folder.path, name)):
                folder.files.append(name)
                count += 1
        for name, _, is_dir in entries:
            if not is_dir:
                continue
            if count >= max_items:
                folder.more_folders = True
                break
            path = os.path.join(folder.path, name)
            child = _Folder(name, path, ignored=name in skip or ignored(path))
            folder.folders.append(child)
            count += 1
            if not child.ignored:
                queue.append(child)
    return root


def _format(folder: _Folder, indent: str, last: bool, is_root: bool, lines: list[str]) -> None:
    if not is_root or folder.ignored:
        more = _MORE if folder.ignored else ""
        lines.append(f"{indent}{_LAST if last else _BRANCH}{folder.name}/{more}")
    inner = "" if is_root else indent + ("    " if last else _PIPE)
    closes_files = not folder.folders and not folder.more_folders
    for index, name in enumerate(folder.files):
        final = index == len(folder.files) - 1 and closes_files
        lines.append(f"{inner}{_LAST if final else _BRANCH}{name}")
    if folder.more_files:
        lines.append(f"{inner}{_LAST if closes_files else _BRANCH}{_MORE}")
    for index, child in enumerate(folder.folders):
        final = index == len(folder.folders) - 1 and not folder.more_folders
        _format(child, inner, final, False, lines)
    if folder.more_folders:
        lines.append(f"{inner}{_LAST}{_MORE}")


def _error_text(error: OSError, path: str) -> str:
    code = errno.errorcode.get(error.errno or 0, "UNKNOWN")
    text = _UV_TEXT.get(error.errno or 0) or (error.strerror or "unknown error").lower()
    where = error.filename if isinstance(error.filename, str) else path
    return f"{code}: {text}, scandir '{where}'"


def folder_structure(
    directory: str | os.PathLike[str],
    *,
    file_service: FileDiscoveryService | None = None,
    options: FileFilteringOptions | None = None,
    max_items: int = MAX_ITEMS,
    ignored_folders: Iterable[str] = DEFAULT_IGNORED_FOLDERS,
) -> str:
    """The tree of ``directory`` as 0.24.4's ``getFolderStructure`` writes it.

    ``file_service`` supplies the ignore rules (none without it); ``options`` says which of
    them apply (default: both git and Qwen ignore files, whatever the settings say, as the
    reference does). Never raises: a missing or unreadable directory gives an error line.
    """
    path = os.path.abspath(os.fspath(directory))
    try:
        root = _read(
            path, max_items, ignored_folders, file_service, options or FileFilteringOptions()
        )
    except _RootMissing:
        return f'Error: Could not read directory "{path}". Check path and permissions.'
    except OSError as error:
        return f'Error processing directory "{path}": {_error_text(error, path)}'
    except Exception as error:  # as the reference: the tree never breaks the conversation
        return f'Error processing directory "{path}": {error}'
    lines: list[str] = []
    _format(root, "", True, True, lines)
    body = "\n".join(lines)
    return f"Showing up to {max_items} items:\n\n{path}{os.sep}\n{body}"


def folder_structures(
    directories: Iterable[str | os.PathLike[str]],
    *,
    file_service: FileDiscoveryService | None = None,
) -> str:
    """The trees of several directories, one after the other (joined by a newline)."""
    return "\n".join(folder_structure(d, file_service=file_service) for d in directories)
