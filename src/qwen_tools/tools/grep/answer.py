"""What the model and the user read of a ``grep_search``, as Qwen Code 0.24.4 words it.

Output, as the model receives it::

    Found <N> match|matches for pattern "<pattern>" <location>[ (filter: "<glob>")]:
    ---
    <absolute path>:<line number>:<line text>
    ---                                            (only when lines were left out)
    [<k> line|lines truncated] ...
    ---                                            (only when the search was cut short)
    [Search did not complete: the results above may not include all matches.]

``<location>`` is ``in the workspace directory``, ``across <K> workspace directories`` or
``in path "<path as given>"``. Lines are shown up to ``min(truncate_tool_output_lines, limit)``
and within ``truncate_tool_output_threshold`` characters (JavaScript lengths): the line that
would overflow is cut to ``max(room left, 10)`` characters plus ``...``. The whole text is
trimmed. Without matches: ``No matches found for pattern "<pattern>" <location>[ (filter…)].``;
a search that was cut short before any match gives ``Search did not complete for pattern …``;
a failure gives ``Error during grep search operation: <message>`` (not marked as an error,
as in the reference). The user sees ``Found N matches`` (`` (truncated)``, `` (incomplete)``).
Control characters in file names are escaped (``\\n``, ``\\x1b``…), so a name cannot add a
line to the output.
"""

from __future__ import annotations

from qwen_tools.contract.results import ToolResult
from qwen_tools.jscompat.jstext import js_trim, utf16_len, utf16_prefix
from qwen_tools.tools.common.paths import escape_control_chars
from qwen_tools.tools.grep.ripgrep import AnyMatch

_INCOMPLETE_NOTICE = "Search did not complete: the results above may not include all matches."


def search_failed(error: str) -> ToolResult:
    """A search that failed before any output (not marked as an error, as in the reference)."""
    message = f"Error during grep search operation: {error}"
    return ToolResult(llm_content=message, return_display=f"Error: {error}")


def no_matches(pattern: str, where: str, *, incomplete: bool, error: str | None) -> ToolResult:
    """No line to show: none found, or the search was cut short before any."""
    if incomplete:
        detail = f" Error: {error}" if error else ""
        message = (
            f'Search did not complete for pattern "{pattern}" {where}. No valid matches '
            f"were returned; do not treat this as no matches.{detail}"
        )
        return ToolResult(llm_content=message, return_display="Error: Search incomplete")
    message = f'No matches found for pattern "{pattern}" {where}.'
    return ToolResult(llm_content=message, return_display="No matches found")


def found_matches(
    pattern: str,
    where: str,
    matches: list[AnyMatch],
    *,
    incomplete: bool,
    line_limit: int | None,
    char_limit: int | None,
) -> ToolResult:
    """The matched lines within the limits; ``result_file_paths`` are the files shown."""
    total = len(matches)
    term = "match" if total == 1 else "matches"
    header = f'Found {total} {term} for pattern "{pattern}" {where}:\n---\n'
    shown = matches if line_limit is None else matches[:line_limit]
    by_lines = len(shown) < total
    parts: list[str] = []
    visible: list[AnyMatch] = []
    length, by_chars = 0, False
    for match in shown:
        raw = f"{escape_control_chars(match.path)}:{match.line}:{match.text}"
        sep = 1 if parts else 0
        size = utf16_len(raw)
        visible.append(match)
        if char_limit is None or length + size + sep <= char_limit:
            parts.append(raw)
            length += size + sep
            continue
        parts.append(utf16_prefix(raw, max(char_limit - length - sep, 10)) + "...")
        by_chars = True
        break
    included = len(parts) - by_chars
    content = header + "\n".join(parts)
    if by_lines or by_chars:
        omitted = total - included
        content += f"\n---\n[{omitted} {'line' if omitted == 1 else 'lines'} truncated] ..."
    if incomplete:
        content += f"\n---\n[{_INCOMPLETE_NOTICE}]"
    tags = [t for t, on in (("truncated", by_lines or by_chars), ("incomplete", incomplete)) if on]
    display = f"Found {total} {term}" + (f" ({', '.join(tags)})" if tags else "")
    files = list(dict.fromkeys(m.path for m in visible))
    return ToolResult(llm_content=js_trim(content), return_display=display, result_file_paths=files)
