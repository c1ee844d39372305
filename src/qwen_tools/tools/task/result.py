"""What the parent model reads when a subagent run ends (Qwen Code 0.24.4's formats).

* ``GOAL``: the report with ``<analysis>`` blocks removed (those outside a ``<summary>``
  entirely, closed ones inside it too) and ``<summary>`` tags dropped; an empty report reads
  ``(subagent produced no model-visible output)``.
* ``ERROR``: the text, or ``Subagent execution failed.``.
* ``CANCELLED``: ``Agent was cancelled by the user. Partial result follows:`` and the partial
  text (``(no partial result captured)`` when there is none).
* any other reason (``MAX_TURNS``, ``TIMEOUT`` …): the text as it is, or the empty-report line.
"""

from __future__ import annotations

import re

__all__ = ["NO_OUTPUT", "llm_text_for", "model_visible_text"]

NO_OUTPUT = "(subagent produced no model-visible output)"
_ANALYSIS_TAG = re.compile(r"</?analysis\b[^>]*>", re.IGNORECASE | re.ASCII)
_ANY_TAG = re.compile(r"</?(?:analysis|summary)\b[^>]*>", re.IGNORECASE | re.ASCII)
_SUMMARY_OPEN = re.compile(r"<summary\b[^>]*>", re.IGNORECASE | re.ASCII)
_SUMMARY_TAG = re.compile(r"</?summary\b[^>]*>", re.IGNORECASE | re.ASCII)
_SPACES = re.compile(r" {2,}")


def _analysis_end(text: str, start: int) -> int:
    """Where the ``<analysis>`` block opened just before ``start`` ends (-1: never closed)."""
    depth = 1
    for match in _ANALYSIS_TAG.finditer(text, start):
        tag = match.group(0)
        if tag.startswith("</"):
            depth -= 1
            if depth == 0:
                return match.end()
        elif not tag.endswith("/>"):
            depth += 1
    return -1


def _drop_closed_analysis(text: str) -> str:
    out: list[str] = []
    index = 0
    while match := _ANALYSIS_TAG.search(text, index):
        tag, start, end = match.group(0), match.start(), match.end()
        if tag.startswith("</"):
            out.append(text[index:end])
            index = end
            continue
        if tag.endswith("/>"):
            out.append(text[index:start] + " ")
            index = end
            continue
        close = _analysis_end(text, end)
        if close == -1:
            out.append(text[index:end])
            index = end
            continue
        out.append(text[index:start] + " ")
        index = close
    out.append(text[index:])
    return "".join(out)


def _drop_analysis_outside_summary(text: str) -> str:
    out: list[str] = []
    index = 0
    depth = 0  # nesting of <summary> blocks
    while match := _ANY_TAG.search(text, index):
        tag, start, end = match.group(0).lower(), match.start(), match.end()
        if depth > 0:
            out.append(text[index:end])
            if tag.startswith("<summary"):
                depth += 1
            elif tag.startswith("</summary"):
                depth -= 1
            index = end
            continue
        if tag.startswith("<summary"):
            out.append(text[index:end])
            depth, index = 1, end
            continue
        if not tag.startswith("<analysis"):
            out.append(text[index:end])
            index = end
            continue
        out.append(text[index:start])
        if tag.endswith("/>"):
            index = end
            continue
        close = _analysis_end(text, end)
        if close != -1:
            index = close
        else:  # unclosed: skip to the next <summary>, or drop the rest
            following = _SUMMARY_OPEN.search(text, end)
            index = following.start() if following else len(text)
    out.append(text[index:])
    return "".join(out)


def model_visible_text(text: str, terminate_reason: str) -> str:
    """The report as the parent model sees it (only a ``GOAL`` report is cleaned up)."""
    if terminate_reason != "GOAL":
        return text
    kept = _drop_analysis_outside_summary(text).strip()
    return _SPACES.sub(" ", _SUMMARY_TAG.sub(" ", _drop_closed_analysis(kept))).strip()


def llm_text_for(text: str, terminate_reason: str) -> str:
    """The tool's text for the parent model, given the visible report and how the run ended."""
    if terminate_reason == "ERROR":
        return text or "Subagent execution failed."
    if terminate_reason == "CANCELLED":
        partial = text or "(no partial result captured)"
        return f"Agent was cancelled by the user. Partial result follows:\n\n{partial}"
    return text or NO_OUTPUT
