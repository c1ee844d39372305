"""Path and string helpers shared by the file-system tools.

Qwen Code runs on Node, so the text it shows the model follows Node's rules: ``path.resolve``
and ``path.relative`` normalise without touching the disk, error messages look like
``ENOENT: no such file or directory, stat '<p>'``, ``trim()`` strips JavaScript's whitespace
set, and string lengths count UTF-16 code units. These helpers reproduce those rules (POSIX
only), plus the reference's path unescaping and its shortened, relative display paths.

This module is also the one path check of the tools: a path a model gives is trimmed and
unescaped (:func:`clean_path_param`), must be absolute (:func:`check_absolute`, in the
wording of the tool) and inside the workspace (:func:`check_inside`, :func:`is_outside`); a
path that is or turns out to be outside gets the one refusal text (:func:`outside_message`,
as a result :func:`outside_result`, as an exception :func:`outside_exception`).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from typing import TYPE_CHECKING, Literal, TypeAlias, TypedDict

from qwen_tools.contract.errors import StructuredToolError, ToolErrorType
from qwen_tools.contract.results import ToolResult
from qwen_tools.jscompat.jstext import js_trim

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = [
    "RelativeWording",
    "check_absolute",
    "check_inside",
    "check_search_path",
    "clean_path_param",
    "display_relative",
    "escape_control_chars",
    "expand_tilde",
    "format_display_path",
    "is_outside",
    "is_subpath",
    "js_join",
    "js_relative",
    "js_resolve",
    "js_to_fixed",
    "make_relative",
    "node_error_message",
    "outside_exception",
    "outside_message",
    "outside_result",
    "resolve_path",
    "shorten_path",
    "tildeify_path",
    "unescape_path",
]

_UNESCAPE = re.compile(r"\\([ \t()\[\]{};|*?$`'\"#&<>!~,])")

# Characters a listed name may not carry raw: C0 controls, DEL, C1 controls, the Unicode line
# and paragraph separators, and lone surrogates (``\udc80``-``\udcff`` stand for undecodable
# bytes of a file name, see ``os.fsdecode``).
_UNSAFE = r"\x00-\x1f\x7f-\x9f\u2028\u2029\ud800-\udfff"
_NEEDS_ESCAPE = re.compile(f"[{_UNSAFE}]")
_TO_ESCAPE = re.compile(rf"[{_UNSAFE}\\]")
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\\": "\\\\"}

# libuv's wording for the errors file-system calls commonly raise.
_UV_MESSAGES = {
    "EACCES": "permission denied",
    "EBUSY": "resource busy or locked",
    "EEXIST": "file already exists",
    "EINVAL": "invalid argument",
    "EIO": "i/o error",
    "EISDIR": "illegal operation on a directory",
    "ELOOP": "too many symbolic links encountered",
    "EMFILE": "too many open files",
    "ENAMETOOLONG": "name too long",
    "ENODEV": "no such device",
    "ENOENT": "no such file or directory",
    "ENOTDIR": "not a directory",
    "EPERM": "operation not permitted",
}


def unescape_path(path: str) -> str:
    """Turn shell-escaped characters (``\\ ``, ``\\(``, ``\\[`` …) into the plain character.

    Windows paths use backslashes as separators, so they are returned unchanged there.
    """
    if os.name == "nt":
        return path
    return _UNESCAPE.sub(r"\1", path)


def _escape_char(match: re.Match[str]) -> str:
    char = match.group(0)
    named = _NAMED_ESCAPES.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code < 0x80:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of the name
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def escape_control_chars(name: str) -> str:
    """``name`` made safe to show on one line of a listing the model reads.

    A name holding a control character (C0, DEL, C1), U+2028/U+2029 or an undecodable byte is
    written as an escaped string: ``\\n``, ``\\r``, ``\\t``, ``\\xNN`` for other C0 controls
    and DEL, ``\\uNNNN`` for C1 controls, separators and stray surrogates, ``\\xNN`` for a raw
    byte (>= 0x80) that is not UTF-8, and ``\\\\`` for a backslash, so the escaped form decodes
    back to exactly one name. Any other name, backslashes included, is returned unchanged (the
    same object), as the reference prints it.
    """
    if _NEEDS_ESCAPE.search(name) is None:
        return name
    return _TO_ESCAPE.sub(_escape_char, name)


def js_to_fixed(value: float, digits: int) -> str:
    """``Number.prototype.toFixed``: round the exact binary value half away from zero."""
    from decimal import ROUND_HALF_UP, Decimal  # a size in a message: most calls never need it

    quantum = Decimal(1).scaleb(-digits)
    return str(Decimal(value).quantize(quantum, rounding=ROUND_HALF_UP))


def node_error_message(exc: OSError, syscall: str, path: str) -> str:
    """The message Node gives a failed fs call, e.g. ``ENOENT: no such file or directory, stat '/x'``."""
    code = errno.errorcode.get(exc.errno or 0, "UNKNOWN")
    detail = _UV_MESSAGES.get(code) or (exc.strerror or "unknown error").lower()
    return f"{code}: {detail}, {syscall} '{path}'"


def _normalise(path: str) -> str:
    normalised = os.path.normpath(path)
    return "/" + normalised.lstrip("/") if normalised.startswith("//") else normalised


def js_resolve(*parts: str) -> str:
    """``path.resolve``: an absolute, normalised path (relative to the cwd); no symlinks read."""
    return _normalise(os.path.join(os.getcwd(), *parts))


def js_join(*parts: str) -> str:
    """``path.join``: glue every part with ``/`` (absolute parts do not restart) and normalise."""
    joined = "/".join(p for p in parts if p)
    return _normalise(joined) if joined else "."


def js_relative(start: str, target: str) -> str:
    """``path.relative``: ``""`` when both resolve to the same place."""
    relative = os.path.relpath(js_resolve(target), js_resolve(start))
    return "" if relative == "." else relative


def is_subpath(parent: str, child: str) -> bool:
    """Whether ``child`` equals or lies below ``parent`` (lexically, after normalising)."""
    relative = js_relative(parent, child)
    return not relative.startswith("../") and relative != ".." and not os.path.isabs(relative)


def make_relative(target: str, root: str) -> str:
    """``target`` relative to ``root`` (``"."`` for the root itself); absolute when outside it."""
    resolved_target, resolved_root = js_resolve(target), js_resolve(root)
    if not is_subpath(resolved_root, resolved_target):
        return resolved_target
    return js_relative(resolved_root, resolved_target) or "."


def display_relative(path: str, root: str) -> str:
    """The path shown in read_file messages: ``path.relative(root, path)`` with ``/`` separators."""
    return js_relative(root, path).replace("\\", "/")


def expand_tilde(path: str) -> str:
    """Expand a leading ``~`` or ``~/`` to the home directory (nothing else)."""
    home = os.path.expanduser("~")
    if path == "~":
        return home
    if path == "~/":
        return home + os.sep
    if path.startswith("~/"):
        return js_join(home, path[2:])
    return path


def tildeify_path(path: str, home: str | None = None) -> str:
    """Replace a leading home directory with ``~``."""
    home_dir = os.path.normpath(home if home is not None else os.path.expanduser("~"))
    normalised = os.path.normpath(path)
    if normalised == home_dir:
        return "~"
    if normalised.startswith(home_dir + os.sep):
        return "~" + normalised[len(home_dir) :]
    return path


def resolve_path(base_dir: str, path: str) -> str:
    """``~`` expanded; absolute paths kept as they are; relative ones resolved against ``base_dir``."""
    expanded = expand_tilde(path)
    if os.path.isabs(expanded):
        return expanded
    return js_resolve(base_dir, expanded)


def shorten_path(path: str, max_len: int = 80) -> str:
    """Fit ``path`` into ``max_len`` characters by eliding middle directories with ``...``.

    The first segment and as many trailing segments as fit are kept; a path that cannot be
    shortened that way keeps its beginning and end around the ellipsis.
    """
    if len(path) <= max_len:
        return path
    ellipsis = "..."
    if max_len < 10:
        return path[: max_len - 3] + ellipsis

    def middle_cut(text: str) -> str:
        keep = (max_len - 3) // 2
        return text[:keep] + ellipsis + text[len(text) - keep :]

    root = "/" if path.startswith("/") else ""
    segments = [s for s in path[len(root) :].split("/") if s]
    if not segments:
        return root if len(root) <= max_len else root[: max_len - 3] + ellipsis
    if len(segments) == 1:
        whole = root + segments[0]
        return whole if len(whole) <= max_len else middle_cut(whole)
    head = root + segments[0]
    tail: list[str] = []
    for index in range(len(segments) - 1, 0, -1):
        joined = "/".join([segments[index], *tail])
        candidate = f"{head}/{ellipsis}/{joined}" if index > 1 else f"{head}/{joined}"
        if len(candidate) > max_len:
            break
        tail.insert(0, segments[index])
        if index == 1:
            return candidate
    if not tail:
        return middle_cut(path)
    return f"{head}/{ellipsis}/" + "/".join(tail)


def format_display_path(path: str, root: str, max_len: int = 80) -> str:
    """A short display form: relative to ``root`` when inside it, else absolute with ``~``."""
    relative = make_relative(resolve_path(root, path), root)
    display = tildeify_path(relative) if os.path.isabs(relative) else relative
    return shorten_path(display, max_len)


# -- the one path check -------------------------------------------------------------------------

RelativeWording: TypeAlias = Literal["file", "read", "directory"]
"""Whose words refuse a relative path: edit and write_file, read_file, list_directory."""

_RELATIVE: dict[RelativeWording, str] = {
    "file": "File path must be absolute: {path}",
    "read": (
        "File path must be absolute, but was relative: {path}. You must provide an absolute path."
    ),
    "directory": "Path must be absolute: {path}",
}


def clean_path_param(raw: str) -> str:
    """A path param as the reference takes it: trimmed (JavaScript's ``trim``), unescaped."""
    return unescape_path(js_trim(raw))


def check_absolute(path: str, wording: RelativeWording = "file") -> str | None:
    """The reference's refusal of a relative ``path``, in the tool's ``wording``; else ``None``."""
    return None if os.path.isabs(path) else _RELATIVE[wording].format(path=path)


def is_outside(config: Config, path: str, *, readable: bool = False) -> bool:
    """Whether ``path`` resolves outside the workspace directories (symlinks followed).

    ``readable`` also admits the read-only directories (such as the session's saved output).
    """
    workspace = config.workspace
    if readable:
        return not workspace.is_path_readable(path)
    return not workspace.is_path_within_workspace(path)


def outside_message(config: Config) -> str:
    """The one model-facing refusal of a path outside the workspace."""
    return config.workspace_error()


def check_inside(config: Config, path: str, *, readable: bool = False) -> str | None:
    """:func:`outside_message` when ``path`` is outside (see :func:`is_outside`); else ``None``."""
    return outside_message(config) if is_outside(config, path, readable=readable) else None


def outside_result(config: Config) -> ToolResult:
    """The result of a call whose path is (or, once opened, turns out to be) outside."""
    return ToolResult.failure(outside_message(config), ToolErrorType.PATH_NOT_IN_WORKSPACE)


def outside_exception(config: Config) -> StructuredToolError:
    """The same refusal, to raise where a step cannot return a result (confirmation details)."""
    return StructuredToolError(outside_message(config), ToolErrorType.PATH_NOT_IN_WORKSPACE)


class SearchPathParams(TypedDict, total=False):
    """The optional ``path`` param that glob's and grep's params share."""

    path: str


def check_search_path(
    config: Config, params: SearchPathParams, *, directory_only: bool
) -> str | None:
    """Normalise an optional ``path`` param of glob/grep and check it (the reference's messages).

    The path is trimmed, unescaped and resolved against the target dir; it must lie inside the
    workspace and exist (and be a directory when ``directory_only``).
    """
    if not params.get("path"):
        return None
    params["path"] = clean_path_param(params["path"])
    if not params["path"]:
        return None
    resolved = resolve_path(str(config.target_dir), params["path"])
    if is_outside(config, resolved):
        return outside_message(config)
    try:
        info = os.stat(resolved)
    except FileNotFoundError:
        return f"Path does not exist: {resolved}"
    except OSError as exc:
        return node_error_message(exc, "stat", resolved)
    if directory_only and not stat.S_ISDIR(info.st_mode):
        return f"Path is not a directory: {resolved}"
    return None
