"""Which subagents a session has: project files, then user files, then the built-ins.

Files are ``<project>/.qwen/agents/*.md`` and ``<qwen home>/agents/*.md`` (``~/.qwen/agents``
or ``$QWEN_HOME/agents``), read in name order. The project level is skipped when the project
is the home directory (its ``.qwen`` is the user's), or when the workspace may not configure
the session (``Config.workspace_settings`` false: the session pool). Names are matched case-insensitively and
the first level that has a name wins: project > user > built-in. An invalid file is skipped
and logged (``Skipped invalid file <path>: <reason>``); one that claims an external executor
or a container backend but is invalid refuses its name, so a lower level's definition of that
name is not run in its place.

:class:`SubagentLoader` re-reads the folders only when a file in them was added, removed or
modified since the last look.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from qwen_tools.subagents.builtin_agents import BUILTIN_AGENTS
from qwen_tools.subagents.definitions import (
    Level,
    SubagentDefinition,
    SubagentDefinitionError,
    parse_subagent_definition,
)

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = ["LevelContents", "SkippedFile", "SubagentCatalog", "SubagentLoader", "load_level"]

_log = logging.getLogger("qwen_tools")

_FileStamp = tuple[str, int, int]


@dataclass(frozen=True)
class SkippedFile:
    """A definition file that was not loaded, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class LevelContents:
    """What one level holds: its definitions, the names it refuses, the files it skipped."""

    definitions: tuple[SubagentDefinition, ...] = ()
    refusals: dict[str, str] = field(default_factory=dict)
    skipped: tuple[SkippedFile, ...] = ()


def load_level(directory: Path, level: Level) -> LevelContents:
    """Every ``*.md`` definition in ``directory`` (missing folder: none), in name order."""
    try:
        names = sorted(entry.name for entry in os.scandir(directory) if entry.name.endswith(".md"))
    except OSError:
        return LevelContents()
    found: list[SubagentDefinition] = []
    refusals: dict[str, str] = {}
    skipped: list[SkippedFile] = []
    for name in names:
        path = str(directory / name)
        try:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    content = handle.read()
            except OSError as exc:
                raise SubagentDefinitionError(
                    f"Failed to read subagent file: {exc.strerror or exc}"
                ) from None
            found.append(parse_subagent_definition(content, path, level))
        except SubagentDefinitionError as exc:
            _log.warning("Skipped invalid file %s: %s", path, exc.message)
            skipped.append(SkippedFile(path, exc.message))
            if exc.refused_name:
                refusals.setdefault(exc.refused_name.lower(), exc.message)
    return LevelContents(tuple(found), refusals, tuple(skipped))


@dataclass(frozen=True)
class SubagentCatalog:
    """The subagents of a session, with the files that were skipped."""

    levels: tuple[tuple[Level, LevelContents], ...]

    @property
    def definitions(self) -> list[SubagentDefinition]:
        """One definition per name (case-insensitive), in listing order: project, user, built-in."""
        seen: set[str] = set()
        listed: list[SubagentDefinition] = []
        for definition in self._all():
            key = definition.name.lower()
            if key not in seen:
                seen.add(key)
                listed.append(definition)
        return listed

    @property
    def names(self) -> list[str]:
        """The names of :attr:`definitions`."""
        return [definition.name for definition in self.definitions]

    @property
    def skipped(self) -> list[SkippedFile]:
        """Files that failed to load, project level first."""
        return [item for _, contents in self.levels for item in contents.skipped]

    def _all(self) -> Iterator[SubagentDefinition]:
        for _, contents in self.levels:
            yield from contents.definitions

    def resolve(self, name: str) -> SubagentDefinition | None:
        """The definition ``name`` runs (case-insensitive), or ``None`` when there is none.

        Raises :class:`SubagentDefinitionError` when a higher level refused the name.
        """
        wanted = name.lower()
        for _, contents in self.levels:
            for definition in contents.definitions:
                if definition.name.lower() == wanted:
                    return definition
            refusal = contents.refusals.get(wanted)
            if refusal is not None:
                raise SubagentDefinitionError(refusal, refused_name=name)
        return None


def _same_path(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _stamp(directory: Path) -> tuple[_FileStamp, ...] | None:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return None
    stamps: list[_FileStamp] = []
    for entry in entries:
        if entry.name.endswith(".md"):
            try:
                info = entry.stat()
            except OSError:
                stamps.append((entry.name, -1, -1))
                continue
            stamps.append((entry.name, info.st_mtime_ns, info.st_size))
    return tuple(sorted(stamps))


class SubagentLoader:
    """Loads the :class:`SubagentCatalog` of a :class:`Config`, cached until files change."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self._cached: tuple[object, SubagentCatalog] | None = None

    def directories(self) -> list[tuple[Level, Path]]:
        """The folders read, highest precedence first."""
        user = Path(self.config.home_dir) / "agents"
        project_root = Path(self.config.target_dir)
        project = project_root / ".qwen" / "agents"
        folders: list[tuple[Level, Path]] = []
        at_home = _same_path(project_root, Path.home()) or _same_path(project, user)
        if self.config.workspace_settings and not at_home:
            folders.append(("project", project))
        folders.append(("user", user))
        return folders

    def catalog(self) -> SubagentCatalog:
        """The current catalogue (re-read only when a definition file changed)."""
        folders = self.directories()
        key = tuple((level, str(path), _stamp(path)) for level, path in folders)
        if self._cached is not None and self._cached[0] == key:
            return self._cached[1]
        levels = [(level, load_level(path, level)) for level, path in folders]
        levels.append(("builtin", LevelContents(BUILTIN_AGENTS)))
        catalog = SubagentCatalog(tuple(levels))
        self._cached = (key, catalog)
        return catalog
