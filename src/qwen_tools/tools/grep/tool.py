"""``grep_search``: lines matching a regular expression, as Qwen Code 0.24.4's ripgrep backend.

The answer (found lines, limits, the texts without matches or on failure) is worded in
:mod:`.answer`; which Qwen ignore files apply and how the lines are ordered, in :mod:`.scope`.

The search: ``rg --json --no-messages --path-separator / --ignore-case --regexp <pattern>``
with ``--no-ignore-vcs`` when .gitignore is not respected, ``--ignore-file`` for each Qwen
ignore file of the searched workspace directories, ``--glob <glob>``, ``--threads 4`` and the
absolute search paths; see :mod:`.ripgrep`. Matches in Qwen-ignored files are dropped again
afterwards, duplicates across workspace directories removed, and every file with a shown line
is recorded in the session's read cache as a partial read (notebooks as non-text).

Where we differ from 0.24.4:

* Without a working ``rg`` (or with ``tools.useRipgrep`` off) the pure-Python engine of
  :mod:`.python_engine` runs; its output is the same, where 0.24.4 switches to a tool with
  another format.
* ripgrep's output order across files depends on its threads; lines are ordered by search
  path, then by path component (ripgrep's sorted walk order), then by line number.
* Patterns ripgrep rejects but JavaScript accepts (look-around, back-references,
  ``interface{}``…) are searched by the Python engine with their JavaScript meaning instead
  of failing.
* A ``path`` outside the workspace directories is refused at validation time, and what is
  read is checked as it is opened: ``rg`` runs confined by the kernel to the workspace
  directories (Landlock, :mod:`.rg_sandbox`); where that is not possible (no Landlock, not
  Linux, ``QWEN_TOOLS_LANDLOCK=off``) the Python engine searches instead, even with
  ``engine="ripgrep"``, since it checks every descriptor it reads. A symlink swapped in by
  another process during a search is never followed outside.
* The Python engine runs in a worker process (:mod:`.worker`): a runaway pattern never
  blocks the event loop, an abort kills it, and its time limit ends with
  ``Search timed out after N s: …`` instead of ripgrep's ``Command failed`` text.
"""

from __future__ import annotations

import os
import stat
from typing import Any, ClassVar, Literal

import anyio

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.jscompat.v8_regex import js_regex_error
from qwen_tools.sandbox.landlock import LandlockError
from qwen_tools.tools.common.paths import check_search_path, format_display_path, resolve_path
from qwen_tools.tools.grep.answer import found_matches, no_matches, search_failed
from qwen_tools.tools.grep.params import GrepParams
from qwen_tools.tools.grep.rg_sandbox import confinement_works
from qwen_tools.tools.grep.ripgrep import (
    ABORTED_MESSAGE,
    SearchOutcome,
    SearchRequest,
    find_ripgrep,
    run_ripgrep,
)
from qwen_tools.tools.grep.scope import SearchScope
from qwen_tools.tools.grep.worker import run_python_search

__all__ = ["GrepEngine", "GrepParams", "GrepTool"]

GrepEngine = Literal["auto", "ripgrep", "python"]
"""``auto``: ripgrep when one runs (and ``tools.useRipgrep`` is on), else Python."""

_DESCRIPTION = (
    "Searches file contents for a regular expression, powered by ripgrep.\n\n"
    "- Use this tool for every content search instead of running grep or rg in the shell.\n"
    '- Full regex syntax, always case-insensitive (e.g. "log.*Error", "function\\s+\\w+"); '
    "escape regex metacharacters to match them literally (`interface\\{\\}` for "
    "`interface{}`).\n"
    '- Narrow the files with `glob` (e.g. "*.js", "**/*.tsx") or search a single file or '
    "directory with `path`.\n"
    "- Each hit is reported as `<absolute path>:<line>:<text>`.\n"
    "- For open-ended investigations that need several rounds of searching, hand the work to "
    "the Agent tool."
)

_SCHEMA: dict[str, Any] = {
    "properties": {
        "pattern": {
            "type": "string",
            "description": "Regular expression to look for in file contents.",
        },
        "glob": {
            "type": "string",
            "description": 'Only search files whose path matches this glob, e.g. "*.py" or '
            '"src/**/*.{ts,tsx}" (ripgrep --glob syntax).',
        },
        "path": {
            "type": "string",
            "description": "File or directory to search, absolute or relative to the project "
            "root. Leave it out to search every workspace directory.",
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "description": "Show at most this many matching lines (a positive integer). "
            "Leave it out to show them all.",
        },
    },
    "required": ["pattern"],
    "type": "object",
}


class GrepInvocation(BaseToolInvocation[GrepParams]):
    """One validated ``grep_search`` call."""

    def __init__(
        self,
        config: Config,
        params: GrepParams,
        engine: GrepEngine,
        time_limit: float | None = None,
    ) -> None:
        super().__init__(params)
        self.config = config
        self.engine = engine
        self.time_limit = time_limit
        self._scope = SearchScope(config)

    def get_description(self) -> str:
        """``'<pattern>'``, then `` in <path>`` and `` (filter: '<glob>')`` when given."""
        description = f"'{self.params['pattern']}'"
        if self.params.get("path"):
            root = str(self.config.target_dir)
            description += f" in {format_display_path(self.params['path'], root)}"
        if self.params.get("glob"):
            description += f" (filter: '{self.params['glob']}')"
        return description

    async def _search(self, request: SearchRequest, signal: AbortSignal) -> SearchOutcome:
        use_rg = self.engine == "ripgrep" or (
            self.engine == "auto" and self.config.settings.use_ripgrep
        )
        command = await anyio.to_thread.run_sync(confined_ripgrep) if use_rg else None
        if command is not None:
            try:
                outcome = await run_ripgrep(command, request, signal)
            except LandlockError:  # the ruleset could not be built: never run rg unconfined
                pass
            else:
                if not outcome.regex_rejected:
                    return outcome
        return await run_python_search(request, signal)

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Search, then format the lines as the reference does."""
        pattern: str = self.params["pattern"]
        given: str = self.params.get("path") or ""
        glob: str = self.params.get("glob") or ""
        if given:
            paths = [resolve_path(str(self.config.target_dir), given)]
            location = f'in path "{given}"'
        else:
            paths = [str(d) for d in self.config.workspace.directories]
            count = len(paths)
            location = (
                f"across {count} workspace directories"
                if count > 1
                else "in the workspace directory"
            )
        where = location + (f' (filter: "{glob}")' if glob else "")
        filtering = self.config.file_filtering
        request = SearchRequest(
            pattern=pattern,
            paths=tuple(paths),
            cwd=str(self.config.target_dir),
            glob=glob or None,
            respect_git_ignore=filtering.respect_git_ignore,
            ignore_files=self._scope.ignore_files(paths) if filtering.respect_qwen_ignore else (),
            roots=self.config.workspace.roots(readable=True),
            timeout=self.time_limit,
        )
        try:
            outcome = await self._search(request, signal)
        except Exception as exc:  # e.g. rg could not be started
            outcome = SearchOutcome(error=str(exc), output_empty=True)
        if outcome.error is not None and outcome.output_empty:
            result = search_failed(outcome.error)
        else:
            result = await self._answer(pattern, where, paths, outcome)
        result.interrupted = outcome.error == ABORTED_MESSAGE  # stopped by the abort: no result
        return result

    async def _answer(
        self, pattern: str, where: str, paths: list[str], outcome: SearchOutcome
    ) -> ToolResult:
        matches = self._scope.filter(outcome.matches, paths)
        if not matches:
            return no_matches(pattern, where, incomplete=outcome.incomplete, error=outcome.error)
        threshold = self.config.truncate_tool_output_threshold
        limits = [self.params.get("limit"), self.config.truncate_tool_output_lines]
        result = found_matches(
            pattern,
            where,
            matches,
            incomplete=outcome.incomplete,
            line_limit=min((n for n in limits if n is not None and n > 0), default=None),
            char_limit=threshold if threshold > 0 else None,
        )
        await anyio.to_thread.run_sync(self._record_reads, result.result_file_paths)
        return result

    def _record_reads(self, files: list[str]) -> None:
        """Record each shown file as a partial read (notebooks as non-text), as 0.24.4 does."""
        cache = getattr(self.config.session, "read_cache", None)
        if cache is None:
            return
        for path in files:
            try:
                info = os.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                cacheable = not path.lower().endswith(".ipynb")
                cache.record_read(path, full=False, cacheable=cacheable, stat_result=info)


def confined_ripgrep() -> str | None:
    """The ``rg`` to run, when there is one and it can run confined to the workspace."""
    command = find_ripgrep()
    return command if command is not None and confinement_works(command) else None


class GrepTool(BaseDeclarativeTool[GrepParams]):
    """The ``grep_search`` tool (display name ``Grep``, kind ``search``).

    ``engine`` forces the search engine (tests, benchmarks): ``"ripgrep"`` or ``"python"``
    (ripgrep only where it can be confined, else Python). ``time_limit`` replaces the default
    time limit of a search (seconds).
    """

    Name: ClassVar[str] = ToolNames.GREP
    max_output_chars = 20_000
    """The per-tool output budget the scheduler applies (the reference's ``maxOutputChars``)."""

    def __init__(
        self, config: Config, *, engine: GrepEngine = "auto", time_limit: float | None = None
    ) -> None:
        super().__init__(self.Name, ToolDisplayNames.GREP, _DESCRIPTION, Kind.SEARCH, _SCHEMA)
        self.config = config
        self.engine: GrepEngine = engine
        self.time_limit = time_limit

    def validate_tool_param_values(self, params: GrepParams) -> str | None:
        """A positive limit, a pattern JavaScript compiles, an existing path in the workspace."""
        limit = params.get("limit")
        if limit is not None and (not isinstance(limit, int) or limit <= 0):
            return "limit must be a positive integer"
        error = js_regex_error(params["pattern"])
        if error is not None:
            return f"Invalid regular expression pattern: {params['pattern']}. Error: {error}"
        return check_search_path(self.config, params, directory_only=False)

    def create_invocation(self, params: GrepParams) -> ToolInvocation[GrepParams]:
        """Build the invocation for validated params."""
        return GrepInvocation(self.config, params, self.engine, self.time_limit)
