"""``tool_search`` and ``tool_call``: how the model reaches deferred tools (Qwen Code 0.24.4's).

``tool_search {query, max_results?}``: ``select:a,b`` returns those tools' declarations; keywords
rank the hidden deferred tools (name, server name, description; 0.24.4's scores, stop words and
action aliases; ``+word`` must appear in the name). Declarations come back as
``<functions><function>{json}</function>...</functions>``, with ``<``, ``>`` and ``&`` escaped.

``tool_call {name, arguments}`` is never run itself: the executor resolves it to the named
deferred tool (:func:`~.deferred_tools.resolve_deferred_tool_call`) and runs that tool, its
permissions and confirmations included. Run directly it answers 0.24.4's error.

:func:`enable_deferred_tools` registers both and starts deferring in a registry;
:func:`enable_for_agent` does it for an agent whose registry holds deferrable tools.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.mcp.deferred_tools import (
    TOOL_CALL,
    TOOL_SEARCH,
    DeferredTools,
    deferred_state,
    is_deferrable,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from qwen_tools.config.config import Config
    from qwen_tools.contract.abort import AbortSignal
    from qwen_tools.registry.registry import ToolRegistry

__all__ = [
    "ToolCallTool",
    "ToolSearchTool",
    "enable_deferred_tools",
    "enable_for_agent",
    "score_tool",
    "tokenize",
]

DEFAULT_MAX_RESULTS = 5
HARD_MAX_RESULTS = 20
_STOP_WORDS = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "at",
        "be",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "how",
        "i",
        "in",
        "is",
        "it",
        "me",
        "my",
        "of",
        "on",
        "or",
        "please",
        "should",
        "that",
        "the",
        "these",
        "this",
        "those",
        "to",
        "was",
        "were",
        "what",
        "which",
        "with",
        "would",
        "you",
    ]
)
_ACTION_ALIASES: dict[str, list[str]] = {
    "cancel": ["cancel", "delete", "remove", "stop", "clear"],
    "clear": ["clear", "delete", "remove", "cancel", "stop"],
    "delete": ["delete", "remove", "cancel", "stop", "clear"],
    "remove": ["remove", "delete", "cancel", "stop", "clear"],
    "stop": ["stop", "cancel", "delete", "remove", "clear"],
}
_EDGE = re.compile(r"^[^\w.+#-]+|[^\w.+#-]+$")
SEARCH_DESCRIPTION = """Reviews function declarations for deferred tools without changing the active tool list.

Deferred tools appear by name in the deferred-tools startup reminder. This tool takes a query, matches it against the deferred tool list, and returns the matched tools' function declarations (name + description + parameter schema) inside a <functions> block.

The returned <functions> block is informational. After reviewing a hidden deferred tool's schema, invoke it through tool_call with its exact name and schema-shaped arguments. Do not call a hidden deferred tool directly: its declaration remains hidden so the model-facing tool list and prompt-cache prefix stay stable (a tool-set refresh may still re-declare it when the live history contains a direct call to it). If select: returns a tool that is already declared, call that tool directly; tool_call accepts hidden deferred tools only.

Query forms:
- "select:ToolA,ToolB" \u2014 fetch these exact tools by name
- "keyword phrase" \u2014 keyword search, up to max_results best matches
- "+must-word other" \u2014 require "must-word" in the name, rank remaining terms
"""
CALL_DESCRIPTION = (
    "Invokes a deferred tool after its schema has been reviewed with tool_search. Pass the exact "
    "deferred tool name and arguments matching the reviewed schema. Permissions, hooks, and "
    "approvals apply to the underlying tool."
)
CALL_DIRECTLY = (
    "tool_call must be dispatched through the tool scheduler so the underlying tool keeps its "
    "permissions, hooks, and approvals."
)


def tokenize(query: str) -> list[str]:
    """Lower-cased terms of 2+ characters without stop words; ``+term`` keeps its ``+``."""
    terms: list[str] = []
    for raw in query.lower().split():
        required = raw.startswith("+")
        body = _EDGE.sub("", raw[1:] if required else raw)
        if len(body) < 2 or body in _STOP_WORDS:
            continue
        terms.append(f"+{body}" if required else body)
    return terms


def _variants(term: str) -> list[str]:
    return _ACTION_ALIASES.get(term, [term])


def score_tool(tool: BaseDeclarativeTool[Any], terms: list[str]) -> int:
    """0.24.4's keyword score: name (exact/suffix 10, MCP 12; substring 5, MCP 6), search hint 4,
    description 2, an action alias in the name or hint 6."""
    is_mcp = tool.server_name is not None
    name = tool.name.lower()
    description = (tool.description or "").lower()
    hint = f"mcp {tool.server_name}".lower() if is_mcp else ""
    hints = hint.split()
    total = 0
    for term in terms:
        variants = _variants(term)
        name_score = 0
        for variant in variants:
            if name == variant or name.endswith(("_" + variant, "." + variant)):
                name_score = max(name_score, 12 if is_mcp else 10)
            elif variant in name:
                name_score = max(name_score, 6 if is_mcp else 5)
        total += name_score
        if any(part in variants for part in hints):
            total += 4
        if any(variant in description for variant in variants):
            total += 2
        others = [v for v in variants if v != term]
        if term in _ACTION_ALIASES and any(v in name or v in hints for v in others):
            total += 6
    return total


def _escape(text: str) -> str:
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _fail(text: str, message: str, error_type: ToolErrorType = ToolErrorType.UNKNOWN) -> ToolResult:
    """0.24.4's failed result: ``text`` for the model's content, ``message`` as the error."""
    return ToolResult.failure(message, error_type, llm_content=text, display=message)


class ToolSearchTool(BaseDeclarativeTool[dict[str, Any]]):
    """``tool_search``: the declarations of deferred tools, by name or by keywords."""

    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__(
            TOOL_SEARCH,
            "ToolSearch",
            SEARCH_DESCRIPTION,
            Kind.OTHER,
            {
                "type": "object",
                "properties": {
                    "query": {
                        "type": "string",
                        "description": 'Query to find deferred tools. Use "select:<tool_name>" '
                        "for direct selection, or keywords to search.",
                        "minLength": 1,
                    },
                    "max_results": {
                        "type": "integer",
                        "description": "Maximum number of results to return (default: 5)",
                        "minimum": 1,
                        "maximum": HARD_MAX_RESULTS,
                        "default": DEFAULT_MAX_RESULTS,
                    },
                },
                "required": ["query"],
                "additionalProperties": False,
            },
        )
        self.registry = registry

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return _SearchInvocation(self.registry, params)


class _SearchInvocation(BaseToolInvocation[dict[str, Any]]):
    def __init__(self, registry: ToolRegistry, params: dict[str, Any]) -> None:
        super().__init__(params)
        self.registry = registry

    def get_description(self) -> str:
        return str(self.params.get("query", ""))

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        query = str(self.params.get("query") or "").strip()
        if not query:
            text = "Error: query is empty. Use `select:ToolName` or free-text keywords."
            return _fail(text, "Empty query")
        limit = max(
            1, min(HARD_MAX_RESULTS, int(self.params.get("max_results") or DEFAULT_MAX_RESULTS))
        )
        if query.lower().startswith("select:"):
            seen: set[str] = set()
            names: list[str] = []
            truncated: list[str] = []
            for raw in query[len("select:") :].split(","):
                name = _strip_quotes(raw.strip())
                if not name or name.lower() in seen:
                    continue
                seen.add(name.lower())
                (truncated if len(names) >= limit else names).append(name)
            return self._schemas(names, truncated)
        terms = tokenize(query)
        required = [t[1:] for t in terms if t.startswith("+") and len(t) > 1]
        search = [t.removeprefix("+") for t in terms if t.removeprefix("+")]
        if not search:
            text = (
                "Error: no search terms extracted from query. Use `select:ToolName` or include "
                "keywords."
            )
            return _fail(text, "No search terms")
        state = deferred_state(self.registry)
        candidates = state.hidden_tools() if state is not None else []
        scored = [
            (score_tool(t, search), t.name)
            for t in candidates
            if all(any(v in t.name.lower() for v in _variants(r)) for r in required)
        ]
        matches = [
            name
            for score, name in sorted((s for s in scored if s[0] > 0), key=lambda s: (-s[0], s[1]))
        ][:limit]
        if not matches:
            return ToolResult(
                llm_content=f"No tools found matching '{query}'. Try broader keywords or use "
                "`select:ToolName`.",
                return_display=f"No matches for '{query}'",
            )
        return self._schemas(matches)

    def _schemas(self, names: list[str], truncated: list[str] | None = None) -> ToolResult:
        truncated = truncated or []
        if not names:
            return _fail("Error: no tool names provided.", "No tool names")
        index = {n.lower(): n for n in self.registry.get_all_tool_names()}
        reviewed: list[BaseDeclarativeTool[Any]] = []
        missing: list[str] = []
        for requested in names:
            tool = self.registry.get_tool(index.get(requested.lower(), "\0"))
            if tool is None:
                missing.append(requested)
            else:
                reviewed.append(tool)
        blocks = [
            f"<function>{_escape(json.dumps(t.schema.to_dict(), ensure_ascii=False, separators=(',', ':')))}</function>"
            for t in reviewed
        ]
        text = f"<functions>\n{chr(10).join(blocks)}\n</functions>" if blocks else ""
        if missing:
            text += f"{chr(10) * 2 if text else ''}Not found: {', '.join(missing)}"
        if truncated:
            text += (
                f"{chr(10) * 2 if text else ''}Truncated by max_results \u2014 request these in a "
                f"follow-up call: {', '.join(truncated)}"
            )
        display = [
            f"Reviewed {len(reviewed)} tool(s)" if reviewed else "",
            f"{len(missing)} missing" if missing else "",
            f"{len(truncated)} truncated" if truncated else "",
        ]
        return ToolResult(
            llm_content=text,
            return_display=", ".join(d for d in display if d) or "No tools reviewed",
        )


def _strip_quotes(text: str) -> str:
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    return text


class ToolCallTool(BaseDeclarativeTool[dict[str, Any]]):
    """``tool_call``: a deferred tool's call, resolved by the executor."""

    def __init__(self, registry: ToolRegistry) -> None:
        super().__init__(
            TOOL_CALL,
            "ToolCall",
            CALL_DESCRIPTION,
            Kind.OTHER,
            {
                "type": "object",
                "properties": {
                    "name": {
                        "type": "string",
                        "description": "Exact deferred tool name returned by tool_search.",
                        "minLength": 1,
                    },
                    "arguments": {
                        "type": "object",
                        "description": "Arguments matching the deferred tool schema returned by "
                        "tool_search.",
                    },
                },
                "required": ["name", "arguments"],
                "additionalProperties": False,
            },
        )
        self.registry = registry

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return _CallInvocation(params)


class _CallInvocation(BaseToolInvocation[dict[str, Any]]):
    def get_description(self) -> str:
        return str(self.params.get("name", ""))

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        return _fail(f"Error: {CALL_DIRECTLY}", CALL_DIRECTLY, ToolErrorType.EXECUTION_FAILED)


def enable_deferred_tools(registry: ToolRegistry, visible: Iterable[str] = ()) -> DeferredTools:
    """Register ``tool_search`` and ``tool_call`` and start deferring (idempotent)."""
    state = deferred_state(registry, create=True)
    assert state is not None
    state.visible.update(visible)
    for name, make in ((TOOL_SEARCH, ToolSearchTool), (TOOL_CALL, ToolCallTool)):
        if registry.get_tool(name) is None and registry.denied_rule(name) is None:
            registry.register_tool(make(registry))
    return state


def enable_for_agent(config: Config, registry: ToolRegistry) -> DeferredTools | None:
    """Defer as 0.24.4 does when the registry holds deferrable tools; ``tools.visible`` names
    the deferred tools to declare anyway."""
    if not any(is_deferrable(t) for t in registry.get_all_tools()):
        return None
    loaded = config.loaded_settings
    raw = loaded.get(("tools", "visible")) if loaded is not None else None
    visible = [v for v in raw if isinstance(v, str)] if isinstance(raw, list) else []
    return enable_deferred_tools(registry, visible)
