"""Context files (``QWEN.md``, ``AGENTS.md``) collected as Qwen Code 0.24.4's ``memoryDiscovery`` does.

For each configured file name (``context.fileName``: a string or a list; default
``["QWEN.md", "AGENTS.md"]``), in that order:

1. the global file in the Qwen home (``~/.qwen`` or ``$QWEN_HOME``);
2. when the directory is the user's home, ``~/<name>``; otherwise, in a trusted folder, every
   ``<name>`` from the directory up to the parent of the git root (or up to the file-system
   root when there is no git root), outermost first; the Qwen home is never entered.

Then ``.qwen/QWEN.local.md`` at the git root, and the rules in ``<qwen home>/rules/`` and
``.qwen/rules/`` without a ``paths`` front matter (sorted). The directories are the working
directory and, with ``context.loadMemoryFromIncludeDirectories``, the workspace's other
directories first. Duplicates (same real path) are read once.

Files are joined as ``--- Context from: <path relative to cwd> ---`` … ``--- End of Context
from: <path> ---`` blocks separated by a blank line; rules as ``--- Rule from: <path> ---``
blocks. ``@path`` imports (tree format, up to 5 levels, inside the importing file's git root,
not in code) are inlined between ``<!-- Imported from: path -->`` comments.

When the workspace may not configure the session (``Config.workspace_settings`` false: the
session pool's untrusted templates), only files whose real path (symlinks resolved) is inside
a workspace directory or the Qwen home are read, imports and rules included: a template's
symlink cannot put the host's files (``/proc/self/environ``…) into the model's context.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["ContextFiles", "context_file_names", "find_project_root", "load_context"]

DEFAULT_NAMES = ("QWEN.md", "AGENTS.md")
LOCAL_NAME = "QWEN.local.md"
MAX_IMPORT_DEPTH = 5


@dataclass
class ContextFiles:
    """The concatenated context and the files it came from."""

    text: str = ""
    paths: list[Path] = field(default_factory=list)


def context_file_names(config: Config) -> list[str]:
    """``context.fileName`` as a list (blank entries ignored), or the defaults."""
    raw = config.loaded_settings.get("context.fileName") if config.loaded_settings else None
    if isinstance(raw, str) and raw.strip():
        return [raw.strip()]
    if isinstance(raw, list):
        names = [n.strip() for n in raw if isinstance(n, str) and n.strip()]
        if names:
            return names
    return list(DEFAULT_NAMES)


def find_project_root(start: Path) -> Path | None:
    """The nearest directory at or above ``start`` holding a ``.git`` entry."""
    current = Path(os.path.abspath(start))
    while True:
        if os.path.lexists(current / ".git"):
            return current
        if current.parent == current:
            return None
        current = current.parent


def _readable(path: Path) -> bool:
    return os.access(path, os.R_OK) and path.is_file()


def _paths_for_dir(
    directory: Path, names: list[str], qwen_home: Path, user_home: Path, trusted: bool
) -> list[Path]:
    found: list[Path] = []
    for name in names:
        global_file = qwen_home / name
        if _readable(global_file):
            found.append(global_file)
        if directory == user_home:
            home_file = user_home / name
            if home_file != global_file and _readable(home_file):
                found.append(home_file)
            continue
        if not trusted:
            continue
        root = find_project_root(directory)
        stop = root.parent if root is not None else user_home.parent
        upward: list[Path] = []
        current = directory
        while current != current.parent:
            if current in (qwen_home, user_home / ".qwen"):
                break
            candidate = current / name
            if candidate != global_file and _readable(candidate):
                upward.insert(0, candidate)
            if current == stop:
                break
            current = current.parent
        found.extend(upward)
    return found


# -- imports ----------------------------------------------------------------------------------

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def _code_regions(text: str) -> list[tuple[int, int]]:
    """Fenced code blocks and inline code spans (where ``@path`` is not an import)."""
    regions: list[tuple[int, int]] = []
    offset, fence_start, fence = 0, -1, ""
    for line in text.splitlines(keepends=True):
        match = _FENCE.match(line)
        if fence:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                regions.append((fence_start, offset + len(line)))
                fence = ""
        elif match:
            fence, fence_start = match.group(1), offset
        offset += len(line)
    if fence:
        regions.append((fence_start, len(text)))
    for span in re.finditer(r"(`+)(?!`).+?(?<!`)\1(?!`)", text, re.DOTALL):
        if not any(start <= span.start() < end for start, end in regions):
            regions.append((span.start(), span.end()))
    return regions


def _find_imports(text: str) -> list[tuple[int, int, str]]:
    found: list[tuple[int, int, str]] = []
    i = 0
    while True:
        i = text.find("@", i)
        if i < 0:
            return found
        if i > 0 and text[i - 1] not in " \t\r\n":
            i += 1
            continue
        j = i + 1
        while j < len(text) and text[j] not in " \t\r\n":
            j += 1
        path = text[i + 1 : j]
        if path and (path[0] in "./" or ("a" <= path[0].lower() <= "z" and path[0].isascii())):
            found.append((i, j, path))
        i = j + 1


def _inside(path: Path, root: Path) -> bool:
    try:
        path.relative_to(root)
    except ValueError:
        return False
    return True


def _within(path: Path, roots: tuple[str, ...] | None) -> bool:
    """Whether ``path``, its symlinks resolved, is inside one of ``roots`` (``None``: anywhere)."""
    if roots is None:
        return True
    real = os.path.realpath(path)
    return any(real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def process_imports(
    text: str,
    base: Path,
    seen: frozenset[Path],
    depth: int = 0,
    within: tuple[str, ...] | None = None,
) -> str:
    """Inline ``@path`` imports of ``text`` (a file in ``base``) as the reference's tree format;
    ``within``: the real directories imports must resolve into (default: no such limit)."""
    if depth >= MAX_IMPORT_DEPTH:
        return text
    root = find_project_root(base) or base
    regions = _code_regions(text)
    out: list[str] = []
    last = 0
    for start, end, raw in _find_imports(text):
        out.append(text[last:start])
        last = end
        target = Path(os.path.normpath(base / raw))
        if any(a <= start < b for a, b in regions):
            out.append(f"@{raw}")
        elif (
            re.match(r"^(file|https?)://", raw)
            or not _inside(target, root)
            or not _within(target, within)
        ):
            out.append(f"<!-- Import failed: {raw} - Path traversal attempt -->")
        elif target in seen:
            out.append(f"<!-- File already processed: {raw} -->")
        else:
            try:
                content = target.read_text(encoding="utf-8")
            except FileNotFoundError:
                out.append(f"@{raw}")
                continue
            except (OSError, UnicodeDecodeError) as exc:
                out.append(f"<!-- Import failed: {raw} - {exc} -->")
                continue
            inner = process_imports(content, target.parent, seen | {target}, depth + 1, within)
            out.append(
                f"<!-- Imported from: {raw} -->\n{inner}\n<!-- End of import from: {raw} -->"
            )
    out.append(text[last:])
    return "".join(out)


# -- rules ------------------------------------------------------------------------------------

_FRONT_MATTER = re.compile(r"^---\n([\s\S]*?)\n---(?:\n|$)([\s\S]*)$")


def _rule_text(raw: str) -> str | None:
    """A rule file's body, or ``None`` when it is conditional (``paths``) or empty."""
    text = raw.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    match = _FRONT_MATTER.match(text)
    if match:
        if re.search(r"^paths\s*:", match.group(1), re.MULTILINE):
            return None
        text = match.group(2)
    text = re.sub(r"<!--[\s\S]*?-->", "", text).strip()
    return text or None


def _rules(directory: Path, project_root: Path, within: tuple[str, ...] | None = None) -> list[str]:
    if not directory.is_dir():
        return []
    blocks = []
    found = (p for p in directory.rglob("*.md") if p.is_file() and _within(p, within))
    for path in sorted(str(p) for p in found):
        try:
            body = _rule_text(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError):
            continue
        if body is not None:
            shown = os.path.relpath(path, project_root).replace(os.sep, "/")
            blocks.append(f"--- Rule from: {shown} ---\n{body}\n--- End of Rule from: {shown} ---")
    return blocks


# -- loading ----------------------------------------------------------------------------------


def load_context(config: Config, *, user_home: Path | None = None) -> ContextFiles:
    """Discover, read and concatenate the context files and rules for ``config``'s workspace."""
    cwd = config.target_dir
    home = Path(os.path.abspath(user_home or Path.home()))
    qwen_home = Path(os.path.abspath(config.home_dir))
    loaded = config.loaded_settings
    trusted = loaded.trusted if loaded is not None else True
    names = context_file_names(config)
    within = None
    if not config.workspace_settings:  # an untrusted workspace: no symlink out of it
        within = tuple(os.path.realpath(d) for d in (*config.workspace.directories, qwen_home))
    dirs: list[Path] = []
    if loaded is not None and loaded.get("context.loadMemoryFromIncludeDirectories") is True:
        dirs.extend(Path(d) for d in config.workspace.directories)
    dirs.append(cwd)
    paths: list[Path] = []
    for directory in dict.fromkeys(dirs):
        paths.extend(_paths_for_dir(directory, names, qwen_home, home, trusted))
    root = find_project_root(cwd)
    if trusted and root is not None and _readable(root / ".qwen" / LOCAL_NAME):
        paths.append(root / ".qwen" / LOCAL_NAME)
    unique: list[Path] = []
    identities: set[str] = set()
    for path in paths:
        identity = os.path.realpath(path)
        if identity not in identities and _within(path, within):
            identities.add(identity)
            unique.append(path)
    blocks: list[str] = []
    used: list[Path] = []
    for path in unique:
        try:
            raw = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        content = process_imports(raw, path.parent, frozenset({path}), within=within).strip()
        if not content:
            continue
        shown = os.path.relpath(path, cwd)
        blocks.append(
            f"--- Context from: {shown} ---\n{content}\n--- End of Context from: {shown} ---"
        )
        used.append(path)
    text = "\n\n".join(blocks)
    project_root = root or cwd
    rules = _rules(qwen_home / "rules", project_root, within)
    if trusted and (project_root / ".qwen" / "rules").resolve() != (qwen_home / "rules").resolve():
        rules += _rules(project_root / ".qwen" / "rules", project_root, within)
    if rules:
        joined = "\n\n".join(rules)
        text = f"{text}\n\n{joined}" if text else joined
    return ContextFiles(text=text, paths=used)
