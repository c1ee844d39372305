"""``read_many_files``: the content of every file matching some glob patterns, concatenated.

Qwen Code 0.24.4 no longer registers this tool (it became the helper behind ``@path``
mentions); this is its last tool version, as older Qwen Code and gemini-cli shipped it:

* **Search.** ``paths`` and ``include`` are glob patterns relative to each workspace directory
  (see :mod:`~qwen_tools.tools.read_many_files.patterns`); the default exclusions (dependency, build and IDE directories,
  binary, archive and office files, ``.env``, ``QWEN.md``) apply unless
  ``useDefaultExcludes`` is false, plus ``exclude``. Matches ignored by ``.gitignore`` or the
  Qwen ignore files (``file_filtering_options``, default from the settings) are dropped and
  counted; files outside the workspace (through symlinks, ``..`` or absolute paths) are
  skipped. The rest is sorted by UTF-16 code units, as JavaScript sorts.
* **Reading.** Each file goes through the read_file engine (:mod:`~qwen_tools.tools.file_reading.content`) with
  ``limit = floor(truncate_tool_output_lines / number of files)`` (at least 1, a deliberate
  difference: the reference's 0 shows nothing), in a thread pool. Images, PDF, audio and video
  are included only when one of ``paths`` contains their extension or their name without it;
  otherwise they are skipped as ``asset file (image/pdf) was not explicitly requested by name
  or extension``. A read error skips the file with ``Read error: <message>``.
* **Output.** One part per file, ``--- <absolute path> ---\\n\\n<content>\\n\\n`` (a cut file's
  content starts with ``Showing lines A-B of N total lines.\\n---\\n``), media as inline parts,
  then ``\\n--- End of content ---``; with nothing read, ``No files matching the criteria were
  found or all were skipped.`` The display is a Markdown summary of the files read and skipped.
* Every file read is recorded in the session's read cache (full unless cut).
* **Boundary.** Directories are walked through descriptors checked to lie inside the
  workspace (or a read-only directory such as the saved tool output), and each file is read
  through one checked descriptor: a name swapped for an outside symlink at any moment is
  skipped as outside, never read. File names are shown with control characters escaped.
"""

from __future__ import annotations

from typing import Any, ClassVar

import anyio

from qwen_tools.config.config import Config
from qwen_tools.config.file_service import FileFilteringOptions
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.parts import PartUnion
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.tools.common.paths import escape_control_chars
from qwen_tools.tools.file_reading.content import FileContent
from qwen_tools.tools.read_many_files.params import ReadManyFilesParams
from qwen_tools.tools.read_many_files.patterns import DEFAULT_EXCLUDES, SearchAborted, search_files
from qwen_tools.tools.read_many_files.reader import outside_reason, read_all

__all__ = ["ReadManyFilesParams", "ReadManyFilesTool"]

_TERMINATOR = "\n--- End of content ---"
_NOTHING = "No files matching the criteria were found or all were skipped."
_ABORTED = "This operation was aborted"

_DESCRIPTION = (
    "Reads several files at once, chosen by paths or glob patterns relative to the project "
    "root (for example ['src/**/*.ts'] or ['README.md', 'docs/*.md']), and returns their "
    "contents one after the other, each under a '--- <absolute path> ---' line, followed by "
    "'--- End of content ---'. Meant for text: images, PDF, audio and video files are only "
    "returned (as media) when a path names their extension or file name, other binary files "
    "are skipped. Dependency and build directories, binary and archive files are excluded "
    "unless useDefaultExcludes is false, and files ignored by .gitignore/.qwenignore are "
    "left out. With many files each one is cut to a share of the line budget; use read_file "
    "for the rest of a cut file. A bare directory path matches nothing: use 'dir/*' or "
    "'dir/**'."
)

_STRINGS: dict[str, Any] = {"type": "array", "items": {"type": "string", "minLength": 1}}

_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "paths": {
            **_STRINGS,
            "minItems": 1,
            "description": "Glob patterns or paths relative to the project root, e.g. "
            "['src/**/*.py'] or ['README.md', 'docs/*'].",
        },
        "include": {
            **_STRINGS,
            "description": "More patterns to read, added to 'paths' (e.g. to bring back files "
            "the exclusions would drop).",
            "default": [],
        },
        "exclude": {
            **_STRINGS,
            "description": "Patterns of files to leave out, e.g. ['**/*.log']; a pattern "
            "ending in '/**' leaves out a whole directory.",
            "default": [],
        },
        "recursive": {
            "type": "boolean",
            "description": "Kept for compatibility; recursion is decided by '**' in the patterns.",
            "default": True,
        },
        "useDefaultExcludes": {
            "type": "boolean",
            "description": "Leave out dependency/build directories and binary or archive "
            "files (node_modules, .git, dist, *.zip ...). Defaults to true.",
            "default": True,
        },
        "file_filtering_options": {
            "type": "object",
            "description": "Which ignore files to honour.",
            "properties": {
                "respect_git_ignore": {
                    "type": "boolean",
                    "description": "Leave out files .gitignore ignores (git repositories "
                    "only). Defaults to the setting, normally true.",
                },
                "respect_qwen_ignore": {
                    "type": "boolean",
                    "description": "Leave out files .qwenignore ignores. Defaults to the "
                    "setting, normally true.",
                },
            },
        },
    },
    "required": ["paths"],
}


def _utf16_sorted(paths: list[str]) -> list[str]:
    """JavaScript's default ``sort()``: by UTF-16 code units."""
    if all(p.isascii() for p in paths):
        return sorted(paths)
    return sorted(paths, key=lambda p: p.encode("utf-16-be", "surrogatepass"))


class ReadManyFilesInvocation(BaseToolInvocation[ReadManyFilesParams]):
    """One validated ``read_many_files`` call."""

    def __init__(self, config: Config, params: ReadManyFilesParams) -> None:
        super().__init__(params)
        self.config = config

    def _excludes(self) -> list[str]:
        extra: list[str] = list(self.params.get("exclude") or [])
        if self.params.get("useDefaultExcludes", True) is False:
            return extra
        return [*DEFAULT_EXCLUDES, *extra]

    def get_description(self) -> str:
        """The patterns, the target directory and the first exclusions."""
        patterns = [*self.params["paths"], *(self.params.get("include") or [])]
        excludes = self._excludes()
        shown = "`, `".join(excludes[:2]) + ("...`" if len(excludes) > 2 else "`")
        excluding = f"patterns like `{shown}" if excludes else "none specified"
        return (
            f"Will attempt to read and concatenate files using patterns: "
            f"`{'`, `'.join(patterns)}` (within target directory: `{self.config.target_dir}`). "
            f'Excluding: {excluding}. File encoding: utf-8. Separator: "--- path/to/file.ext ---".'
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Search and read in worker threads."""
        return await anyio.to_thread.run_sync(self._run, signal)

    def _filtering(self) -> FileFilteringOptions:
        given = self.params.get("file_filtering_options") or {}
        default = self.config.file_filtering
        git = given.get("respect_git_ignore")
        qwen = given.get("respect_qwen_ignore")
        return FileFilteringOptions(
            respect_git_ignore=default.respect_git_ignore if git is None else git,
            respect_qwen_ignore=default.respect_qwen_ignore if qwen is None else qwen,
        )

    def _run(self, signal: AbortSignal) -> ToolResult:
        workspace = self.config.workspace
        patterns = [*self.params["paths"], *(self.params.get("include") or [])]
        directories = [str(d) for d in workspace.directories]
        try:
            found = search_files(
                patterns,
                self._excludes(),
                directories,
                workspace.is_path_readable,
                signal,
                workspace.roots(readable=True),
            )
        except Exception as exc:  # the reference reports any failure of the search this way
            reason = _ABORTED if isinstance(exc, SearchAborted) else str(exc)
            message = f"Error during file search: {reason}"
            return ToolResult.failure(
                message,
                ToolErrorType.READ_MANY_FILES_SEARCH_ERROR,
                display="## File Search Error\n\nAn error occurred while searching for "
                f"files:\n```\n{reason}\n```",
            )
        skipped: list[tuple[str, str]] = [
            (escape_control_chars(p), outside_reason(p)) for p in found.outside
        ]
        files, git_ignored, qwen_ignored = self._filter(found.files, skipped)
        if git_ignored:
            skipped.append((f"{git_ignored} file(s)", "git ignored"))
        if qwen_ignored:
            skipped.append((f"{qwen_ignored} file(s)", "qwen ignored"))
        ordered = _utf16_sorted(files)
        lines = self.config.truncate_tool_output_lines
        limit = max(1, lines // max(1, len(ordered))) if lines > 0 else None
        results = read_all(self.config, ordered, list(self.params["paths"]), limit, signal)
        signal.throw_if_aborted()
        parts: list[PartUnion] = []
        processed: list[str] = []
        for path, rel, outcome in results:
            if isinstance(outcome, str):
                skipped.append((rel, outcome))
                continue
            parts.append(self._part(path, outcome))
            processed.append(rel)
        parts.append(_TERMINATOR if parts else _NOTHING)
        return ToolResult(llm_content=parts, return_display=self._summary(processed, skipped))

    def _filter(
        self, files: dict[str, tuple[bool, bool]], skipped: list[tuple[str, str]]
    ) -> tuple[list[str], int, int]:
        """Drop ignored files (counted) and files outside the workspace (listed)."""
        options = self._filtering()
        service = self.config.file_service
        inside = self.config.workspace.is_path_readable
        kept: list[str] = []
        git_ignored = qwen_ignored = 0
        for path, (clean, _regular) in files.items():
            if options.respect_git_ignore and service.should_git_ignore_file(path, False):
                git_ignored += 1
            elif options.respect_qwen_ignore and service.should_qwen_ignore_file(path, False):
                qwen_ignored += 1
            elif clean or inside(path):
                kept.append(path)
            else:
                skipped.append((escape_control_chars(path), outside_reason(path)))
        return kept, git_ignored, qwen_ignored

    @staticmethod
    def _part(path: str, content: FileContent) -> PartUnion:
        text = content.llm_content
        if not isinstance(text, str):
            return text  # media, as an inline part
        if content.is_truncated and content.lines_shown is not None:
            first, last = content.lines_shown
            header = f"Showing lines {first}-{last} of {content.total_label()} total lines."
            text = f"{header}\n---\n{text}"
        return f"--- {escape_control_chars(path)} ---\n\n{text}\n\n"

    def _summary(self, processed: list[str], skipped: list[tuple[str, str]]) -> str:
        message = f"### ReadManyFiles Result (Target Dir: `{self.config.target_dir}`)\n\n"
        if processed:
            message += (
                f"Successfully read and concatenated content from **{len(processed)} file(s)**.\n"
            )
            shown = "" if len(processed) <= 10 else " (first 10 shown)"
            message += f"\n**Processed Files{shown}:**\n"
            message += "".join(f"- `{p}`\n" for p in processed[:10])
            if len(processed) > 10:
                message += f"- ...and {len(processed) - 10} more.\n"
        if skipped:
            if not processed:
                message += "No files were read and concatenated based on the criteria.\n"
            shown = "" if len(skipped) <= 5 else " (first 5 shown)"
            message += f"\n**Skipped {len(skipped)} item(s){shown}:**\n"
            message += "".join(f"- `{p}` (Reason: {reason})\n" for p, reason in skipped[:5])
            if len(skipped) > 5:
                message += f"- ...and {len(skipped) - 5} more.\n"
        elif not processed:
            message += "No files were read and concatenated based on the criteria.\n"
        return message.strip()


class ReadManyFilesTool(BaseDeclarativeTool[ReadManyFilesParams]):
    """The ``read_many_files`` tool (display name ``ReadManyFiles``, kind ``read``)."""

    Name: ClassVar[str] = ToolNames.READ_MANY_FILES

    def __init__(self, config: Config) -> None:
        super().__init__(
            self.Name, ToolDisplayNames.READ_MANY_FILES, _DESCRIPTION, Kind.READ, _SCHEMA
        )
        self.config = config

    def create_invocation(self, params: ReadManyFilesParams) -> ToolInvocation[ReadManyFilesParams]:
        """Build the invocation for validated params."""
        return ReadManyFilesInvocation(self.config, params)
