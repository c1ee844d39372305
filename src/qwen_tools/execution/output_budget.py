"""Output size control after a tool returns: persistence, per-tool truncation, batch budget.

This is the scheduler's part of Qwen Code 0.24.4's output handling (framework spec §6.9):

1. :func:`apply_output_budget` on each successful result: the persistence gate, then the
   per-tool truncation (texts and arithmetic in :mod:`.persisted_output`).
2. :func:`apply_batch_budget` on the function responses of a finished batch
   (``finalizeToolResponses``): past ``tools.toolOutputBatchBudget`` characters in total, the
   largest texts are cut down to a fair share each.

Media parts are never touched; only the text is measured and replaced.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from qwen_tools.contract.parts import (
    FileDataPart,
    FunctionResponse,
    InlineDataPart,
    Part,
    PartListUnion,
    TextPart,
)
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolNames, canonical_tool_name
from qwen_tools.execution.persisted_output import (
    PERSISTED_OUTPUT_OPEN,
    TOOL_OUTPUT_TRUNCATED_PREFIX,
    Keep,
    allow_reading_saved_output,
    cut_text,
    is_already_truncated,
    limit,
    normalize_call_id,
    persist_tool_result,
    truncate_and_save,
    truncation_envelope,
)

if TYPE_CHECKING:
    from qwen_tools.config.config import Config
    from qwen_tools.contract.declarative import BaseDeclarativeTool

__all__ = [
    "GATE_EXEMPT_TOOLS",
    "GATE_HEADROOM",
    "apply_batch_budget",
    "apply_output_budget",
    "truncate_text",
]

GATE_HEADROOM = 3000
"""The persistence gate opens this many characters above the truncation threshold."""

GATE_EXEMPT_TOOLS = frozenset(
    {"exec", ToolNames.READ_FILE, "read_mcp_resource", ToolNames.ENTER_PLAN_MODE}
)
"""Tools whose output is never persisted by the gate (``exec`` and ``read_mcp_resource`` are
the reference's, not built-ins here)."""


def truncate_text(
    content: str,
    *,
    threshold: float,
    lines: float | None,
    keep: Keep = "both",
    saved_to: str | None = None,
) -> str | None:
    """Truncate ``content`` as the reference's ``truncateToolOutput`` does, without saving it.

    ``threshold`` is the character budget and ``lines`` the line budget (``None`` or ≤ 0:
    unlimited; a threshold ≤ 0 is unlimited too). The head keeps about a fifth of both
    budgets and the tail the rest (``keep`` may keep one end only); a cut line ends or starts
    with ``...`` and the two ends are joined by ``\\n\\n---\\n... [CONTENT TRUNCATED] ...\\n---\\n\\n``.

    Returns ``None`` when no truncation is needed or when the envelope naming ``saved_to``
    (``""`` if not given) would not be shorter than ``content``. Otherwise the envelope when
    ``saved_to`` is given, else just the kept text.
    """
    cut = cut_text(content, limit(threshold), limit(lines), keep)
    if cut is None:
        return None
    wrapped = truncation_envelope(saved_to or "", cut)
    if len(wrapped) >= len(content):
        return None
    return wrapped if saved_to is not None else cut


# -- per result -------------------------------------------------------------------------------


def _parts(content: PartListUnion) -> list[str | Part]:
    if isinstance(content, str):
        return [content]
    if isinstance(content, Sequence):
        return list(content)
    return [content]


def _gate_text(content: PartListUnion) -> str:
    """The text the gate measures (the reference's ``extractTextFromPartListUnion``)."""
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        return "\n".join(
            p if isinstance(p, str) else p.text if isinstance(p, TextPart) else "" for p in content
        )
    if isinstance(content, TextPart):
        return content.text
    if isinstance(content, FunctionResponse):
        for key in ("output", "error", "content"):
            value = content.response.get(key)
            if isinstance(value, str):
                return value
    return ""


def _is_media(part: str | Part) -> bool:
    return not isinstance(part, str | TextPart)


def _gate_exempt(tool: BaseDeclarativeTool[Any], result: ToolResult) -> bool:
    return (
        result.output_budget_applied
        or canonical_tool_name(tool.name) in GATE_EXEMPT_TOOLS
        or (tool.max_output_chars is not None and math.isinf(tool.max_output_chars))
    )


def _persistence_gate(
    tool: BaseDeclarativeTool[Any], call_id: str, result: ToolResult, config: Config
) -> PartListUnion:
    content = result.llm_content
    if _gate_exempt(tool, result):
        return content
    text = _gate_text(content)
    if not text or is_already_truncated(text):
        return content
    threshold = limit(config.truncate_tool_output_threshold)
    own = tool.max_output_chars
    if own is not None and own > threshold:  # our change: honour the tool's larger budget
        threshold = own
    if len(text) <= threshold + GATE_HEADROOM:
        return content
    stub = persist_tool_result(call_id, tool.name, text, config).content
    if isinstance(content, Sequence) and not isinstance(content, str):
        media = [p for p in content if isinstance(p, InlineDataPart | FileDataPart)]
        return [TextPart(stub), *media]
    return stub


def _truncate(
    tool: BaseDeclarativeTool[Any], content: PartListUnion, config: Config
) -> PartListUnion:
    own = tool.max_output_chars
    threshold = limit(own if own is not None else config.truncate_tool_output_threshold)
    lines = math.inf if own is not None else limit(config.truncate_tool_output_lines)
    if isinstance(content, str):
        if not content.strip() or content.startswith(TOOL_OUTPUT_TRUNCATED_PREFIX):
            return content
        text, _ = truncate_and_save(
            content,
            tool.name,
            config.get_project_temp_dir(),
            threshold=threshold,
            lines=lines,
            keep=tool.truncate_keep,
        )
        return text
    parts = _parts(content)
    texts = [p if isinstance(p, str) else p.text for p in parts if isinstance(p, str | TextPart)]
    media = [p for p in parts if _is_media(p)]
    combined = "\n".join(texts)
    if (not combined.strip() and not media) or any(
        t.startswith(TOOL_OUTPUT_TRUNCATED_PREFIX) for t in texts
    ):
        return content
    text, _ = truncate_and_save(
        combined,
        tool.name,
        config.get_project_temp_dir(),
        threshold=threshold,
        lines=lines,
        keep=tool.truncate_keep,
    )
    if text == combined:
        return content
    return [TextPart(text), *media]


def _within_every_limit(tool: BaseDeclarativeTool[Any], text: str, config: Config) -> bool:
    """A cheap test that a plain-text result can need neither the gate nor truncation."""
    own = tool.max_output_chars
    threshold = config.truncate_tool_output_threshold
    chars = threshold if own is None else min(own, threshold) if threshold > 0 else own
    if chars > 0 and len(text) > chars:
        return False
    lines = config.truncate_tool_output_lines
    return own is not None or lines <= 0 or text.count("\n") < lines


def apply_output_budget(
    tool: BaseDeclarativeTool[Any], call_id: str, result: ToolResult, config: Config
) -> ToolResult:
    """Bound a successful result's text before it becomes the function response.

    1. **Persistence gate.** Text (parts joined with ``\\n``) longer than the truncation
       threshold + 3,000 is saved to ``<project temp>/tool-results/<call id>.txt`` (mode
       0600) and replaced by the ``<persisted-output>`` stub; media parts are kept. Exempt:
       ``read_file``, ``read_mcp_resource``, ``enter_plan_mode``, ``exec``, tools with
       ``max_output_chars = math.inf``, results with ``output_budget_applied`` and text that
       is already truncated. **Divergence from 0.24.4:** when the tool's ``max_output_chars``
       is larger than the global threshold (MCP tools: 500,000), the gate opens at that
       budget + 3,000 instead of at 28,000.
    2. **Per-tool truncation** with ``tool.max_output_chars`` (no line limit) or the global
       character and line limits, keeping ``tool.truncate_keep``: the whole text is saved to
       ``<project temp>/<tool>_<12 hex>.output`` and the model reads the
       ``Tool output was too large and has been truncated.`` envelope.

    A threshold or line limit ≤ 0 in the settings switches that limit off (a threshold ≤ 0
    also switches the gate off). Failed results come back unchanged, as does a result with
    nothing to do. A text display longer than what the model now gets becomes that text
    (never the whole output again), and the saved-output directory is made readable by the
    read tools (:func:`~.persisted_output.allow_reading_saved_output`).
    """
    if result.error is not None:
        return result
    text = result.llm_content
    if isinstance(text, str) and _within_every_limit(tool, text, config):
        return result
    content = _persistence_gate(tool, call_id, result, config)
    content = _truncate(tool, content, config)
    if content is result.llm_content:
        return result
    allow_reading_saved_output(config)
    display = result.return_display
    if isinstance(display, str) and len(display) > len(shown := _gate_text(content)):
        display = shown
    return dataclasses.replace(result, llm_content=content, return_display=display)


# -- per batch --------------------------------------------------------------------------------

_SAVED_TO_RE = re.compile(
    r"^(?:Output too large \(\d+ KB\)\. Full output saved to: |The full output has been saved to: )(.+)$",
    re.MULTILINE,
)


def _persisted_files(texts: Sequence[str]) -> list[str] | None:
    """Files an earlier step saved this response to (``None``: it was not bounded before)."""
    bounded = [
        t
        for t in texts
        if is_already_truncated(t)
        or t.startswith((TOOL_OUTPUT_TRUNCATED_PREFIX, PERSISTED_OUTPUT_OPEN, "Output too large ("))
    ]
    if not bounded:
        return None
    return [m.group(1) for t in bounded for m in _SAVED_TO_RE.finditer(t)]


def _allocate(lengths: Sequence[int], budget: int) -> list[int]:
    """Fair shares of ``budget``: short texts keep their length, the rest split what is left."""
    allocations = [0] * len(lengths)
    remaining = max(0, budget)
    active = list(range(len(lengths)))
    while active:
        share = remaining // len(active)
        fixed = [i for i in active if lengths[i] <= share]
        if not fixed:
            extra = remaining - share * len(active)
            for rank, i in enumerate(active):
                allocations[i] = share + (1 if rank < extra else 0)
            break
        for i in fixed:
            allocations[i] = lengths[i]
            remaining -= lengths[i]
        active = [i for i in active if i not in fixed]
    return allocations


def _fit(text: str, max_chars: int, files: Sequence[str] | None) -> str:
    """Cut ``text`` to ``max_chars``: a header naming the saved file(s), a fifth of head, the tail."""
    if len(text) <= max_chars:
        return text
    if max_chars <= 0:
        return ""
    if not files:
        header = "Tool output truncated."
    elif len(files) == 1:
        header = f"Tool output truncated. Persisted tool-output artifact: {files[0]}"
    else:
        listed = "\n".join(f"- {f}" for f in files)
        header = f"Tool output truncated. Persisted tool-output artifacts:\n{listed}"
    if len(header) >= max_chars:
        return header[:max_chars]
    marker = "\n...\n"
    preview = max_chars - len(header) - 2
    if preview <= 0:
        return header[:max_chars]
    if preview <= len(marker):
        return f"{header}\n\n{text[:preview]}"
    body = preview - len(marker)
    head = body // 5
    tail = body - head
    return f"{header}\n\n{text[:head]}{marker}{text[len(text) - tail :]}"


class _PersistenceIds:
    """File names for the responses a batch persists: safe call ids, unique within the batch."""

    def __init__(self, responses: Sequence[FunctionResponse]) -> None:
        self._raw = [r.id for r in responses]
        self._safe = [normalize_call_id(r.id) for r in responses]
        self._counts: dict[str, int] = {}
        for cid in self._safe:
            if cid:
                self._counts[cid] = self._counts.get(cid, 0) + 1
        self._reserved = {cid for cid in self._safe if cid}
        self._used: set[str] = set()

    def take(self, index: int) -> str | None:
        cid = self._safe[index]
        if not cid:
            return self._raw[index]
        chosen = cid
        if self._counts[cid] != 1 or cid in self._used:
            suffix = 1
            while f"{cid}-{suffix}" in self._reserved or f"{cid}-{suffix}" in self._used:
                suffix += 1
            chosen = f"{cid}-{suffix}"
        self._used.add(chosen)
        return chosen


def apply_batch_budget(
    responses: list[FunctionResponse], budget: int, config: Config
) -> list[FunctionResponse]:
    """Keep the total text of one batch's responses within ``budget`` characters.

    Every ``output`` and ``error`` text counts. When the total is over the budget (≤ 0
    disables the check), each text gets a fair share (shorter texts keep their length, the
    longest split the rest); a response cut here and not already saved by an earlier step
    is persisted whole to ``tool-results/`` first, and each cut text becomes
    ``Tool output truncated. Persisted tool-output artifact: <file>`` followed by a fifth of
    its head, ``\\n...\\n`` and the rest from its tail. Returns new responses (media kept).
    """
    if budget <= 0:
        return responses
    slots: list[tuple[int, str, str]] = []
    for index, response in enumerate(responses):
        output, error = response.response.get("output"), response.response.get("error")
        if isinstance(output, str) and output:
            slots.append((index, "output", output))
        if isinstance(error, str):
            slots.append((index, "error", error))
    if sum(len(text) for _, _, text in slots) <= budget:
        return responses
    allocations = _allocate([len(text) for _, _, text in slots], budget)
    to_persist = sorted(
        {
            index
            for (index, _, text), share in zip(slots, allocations, strict=True)
            if len(text) > share
        }
    )
    files: list[list[str] | None] = [
        _persisted_files([text for i, _, text in slots if i == index])
        for index in range(len(responses))
    ]
    ids = _PersistenceIds(responses)
    for index in to_persist:
        if files[index] is not None:
            continue
        content = "\n\n".join(text for i, _, text in slots if i == index)
        saved = persist_tool_result(ids.take(index), responses[index].name, content, config)
        files[index] = [saved.output_file] if saved.output_file else []
    bodies = [dict(r.response) for r in responses]
    for (index, key, text), share in zip(slots, allocations, strict=True):
        if len(text) > share:
            bodies[index][key] = _fit(text, share, files[index])
    return [
        r if body == r.response else dataclasses.replace(r, response=body)
        for r, body in zip(responses, bodies, strict=True)
    ]
