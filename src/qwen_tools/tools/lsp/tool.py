"""The ``lsp`` tool (display name ``Lsp``, kind ``other``) and its invocation.

Every answer is a plain result (never an error), as in the reference: found items under a
heading, ``No ... found for <target>.`` when a server had none, and ``LSP <operation>
failed: <reason>`` when the server could not answer (missing, crashed, does not support the
request); call hierarchy results also carry their items as JSON, to pass back. A file outside
the workspace is refused with the other tools' message and never shown to a server.
"""

from __future__ import annotations

import os
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

from qwen_tools.config.config import Config
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.declarative import BaseDeclarativeTool
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.results import ToolResult
from qwen_tools.contract.tool_names import ToolDisplayNames, ToolNames
from qwen_tools.lsp.call_items import StaleCallItemError
from qwen_tools.lsp.connection import LspServerError, file_uri
from qwen_tools.lsp.manager import LspManager
from qwen_tools.lsp.service import LspService, uri_to_path
from qwen_tools.tools.common.paths import check_inside, js_resolve
from qwen_tools.tools.lsp import format as fmt
from qwen_tools.tools.lsp.enabled import lsp_server_configs, lsp_tool_enabled
from qwen_tools.tools.lsp.params import LspParams
from qwen_tools.tools.lsp.schema import DESCRIPTION, SCHEMA, validate_lsp_params

__all__ = ["LspTool"]

_LABELS = {
    "goToDefinition": "go-to-definition",
    "findReferences": "find-references",
    "hover": "hover",
    "documentSymbol": "document symbols",
    "workspaceSymbol": "workspace symbol search",
    "goToImplementation": "go-to-implementation",
    "prepareCallHierarchy": "prepare call hierarchy",
    "incomingCalls": "incoming calls",
    "outgoingCalls": "outgoing calls",
    "diagnostics": "diagnostics",
    "workspaceDiagnostics": "workspace diagnostics",
}
# the reference's words in "LSP <x> failed: ..."
_FAILED = {
    **_LABELS,
    "workspaceSymbol": "workspace symbol search",
    "prepareCallHierarchy": "call hierarchy prepare",
}


def _text(message: str) -> ToolResult:
    return ToolResult(llm_content=message, return_display=message)


def _listing(heading: str, lines: list[str], suffix: str = "") -> ToolResult:
    return ToolResult(
        llm_content="\n".join([heading, *lines]) + suffix, return_display="\n".join(lines)
    )


def lsp_service(config: Config) -> LspService:
    """The session's LSP service (its servers start on first use)."""

    def build() -> LspService:
        roots = [os.path.realpath(d) for d in config.workspace.directories]
        manager = LspManager(config.target_dir, lsp_server_configs(config))
        return LspService(manager, roots)

    return config.services.lsp.service(build)


class LspInvocation(BaseToolInvocation[LspParams]):
    """One validated ``lsp`` call."""

    def __init__(self, config: Config, params: LspParams) -> None:
        super().__init__(params)
        self.config = config
        self.root = str(config.target_dir)

    @property
    def operation(self) -> str:
        return self.params["operation"]

    def get_description(self) -> str:
        """``LSP go-to-definition at a.py:5:12``, ``LSP workspace symbol search for "x"``..."""
        p, label = self.params, _LABELS.get(self.operation, self.operation)
        if self.operation == "workspaceSymbol":
            return f'LSP {label} for "{p.get("query", "")}"'
        if self.operation in ("incomingCalls", "outgoingCalls"):
            item = p.get("callHierarchyItem") or {}
            return f"LSP {label} for {item.get('name') or 'call hierarchy item'}"
        if p.get("filePath") and p.get("line") is not None and self.operation != "documentSymbol":
            return f"LSP {label} at {p['filePath']}:{_num(p['line'])}:{_num(p.get('character', 1))}"
        return f"LSP {label} for {p['filePath']}" if p.get("filePath") else f"LSP {label}"

    # -- execution -----------------------------------------------------------------------

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Run the operation (see the module docstring for what the model reads)."""
        label = _LABELS.get(self.operation, self.operation)
        # (once the service exists it was enabled and configured: no settings read per call)
        if self.config.services.lsp.active is None and not lsp_tool_enabled(self.config):
            return _text(f"LSP {label} is unavailable (LSP disabled or not initialized).")
        handler = getattr(self, f"_op_{self.operation}", None)
        if handler is None:
            return _text(f"Unsupported LSP operation: {self.operation}")
        service = lsp_service(self.config)
        try:
            result: ToolResult = await handler(service)
        except (LspServerError, StaleCallItemError) as exc:
            return _text(f"LSP {_FAILED.get(self.operation, label)} failed: {exc}")
        return result

    def _file(self) -> tuple[str, str] | ToolResult:
        """The file's path and its name in messages, or the refusal."""
        raw = self.params.get("filePath") or ""
        if raw.startswith("file://"):
            path = uri_to_path(raw) or raw
        elif "://" in raw:
            return _text(f"LSP {_LABELS[self.operation]} works on files only: {raw}")
        else:
            path = raw if os.path.isabs(raw) else js_resolve(self.root, raw)
        refusal = check_inside(self.config, path)
        if refusal is not None:
            return _text(refusal)
        return path, fmt.display_uri(file_uri(path), self.root)

    def _target(self) -> tuple[str, int, int, str] | ToolResult:
        found = self._file()
        if isinstance(found, ToolResult):
            return found
        path, _name = found
        line = max(0, int(self.params["line"] - 1))
        character = max(0, int(self.params.get("character", 1) - 1))
        where = {"line": line, "character": character}
        description = fmt.location_with_server(
            {
                "uri": file_uri(path),
                "range": {"start": where, "end": where},
                "serverName": self.params.get("serverName"),
            },
            self.root,
        )
        return path, line, character, description

    async def _locations(
        self,
        service: LspService,
        method: str,
        noun: str,
        default_limit: int,
        extra: dict[str, Any] | None = None,
    ) -> ToolResult:
        target = self._target()
        if isinstance(target, ToolResult):
            return target
        path, line, character, description = target
        limit = self.params.get("limit") or default_limit
        found = await service.locations(
            method, path, line, character, self.params.get("serverName"), limit, extra
        )
        if not found:
            return _text(f"No {noun.lower()} found for {description}.")
        lines = [
            f"{i}. {fmt.location_with_server(loc, self.root)}"
            for i, loc in enumerate(found[:limit], 1)
        ]
        return _listing(f"{noun} for {description}:", lines)

    def _op_goToDefinition(self, service: LspService) -> Awaitable[ToolResult]:
        return self._locations(service, "textDocument/definition", "Definitions", 20)

    def _op_goToImplementation(self, service: LspService) -> Awaitable[ToolResult]:
        return self._locations(service, "textDocument/implementation", "Implementations", 20)

    def _op_findReferences(self, service: LspService) -> Awaitable[ToolResult]:
        include = bool(self.params.get("includeDeclaration", False))
        return self._locations(
            service,
            "textDocument/references",
            "References",
            50,
            {"context": {"includeDeclaration": include}},
        )

    async def _op_hover(self, service: LspService) -> ToolResult:
        target = self._target()
        if isinstance(target, ToolResult):
            return target
        path, line, character, description = target
        texts = await service.hover(path, line, character, self.params.get("serverName"))
        if not texts:
            return _text(f"No hover information found for {description}.")
        content = texts[0].strip()
        return ToolResult(
            llm_content=f"Hover for {description}:\n{content}", return_display=content
        )

    async def _op_documentSymbol(self, service: LspService) -> ToolResult:
        found = self._file()
        if isinstance(found, ToolResult):
            return found
        path, name = found
        limit = self.params.get("limit") or 50
        symbols = await service.document_symbols(path, self.params.get("serverName"), limit)
        if not symbols:
            return _text(f"No document symbols found for {name}.")
        lines = [fmt.symbol_line(i, s, self.root) for i, s in enumerate(symbols[:limit], 1)]
        return _listing(f"Document symbols for {name}:", lines)

    async def _op_workspaceSymbol(self, service: LspService) -> ToolResult:
        limit = self.params.get("limit") or 20
        query = self.params.get("query") or ""
        symbols = await service.workspace_symbols(query, limit)
        if not symbols:
            return _text(f'No symbols found for query "{query}".')
        lines = [fmt.symbol_line(i, s, self.root) for i, s in enumerate(symbols[:limit], 1)]
        heading = f'Found {min(len(symbols), limit)} of {len(symbols)} symbols for query "{query}":'
        section = await self._top_references(service, symbols[0], limit)
        parts = [*lines, section] if section else lines
        return ToolResult(llm_content="\n".join([heading, *parts]), return_display="\n".join(parts))

    async def _top_references(self, service: LspService, top: dict[str, Any], limit: int) -> str:
        path = uri_to_path(top["location"]["uri"])
        if path is None or check_inside(self.config, path) is not None:
            return ""
        start = top["location"]["range"]["start"]
        try:
            refs = await service.locations(
                "textDocument/references",
                path,
                start["line"],
                start["character"],
                top.get("serverName"),
                min(20, max(limit, 5)),
                {"context": {"includeDeclaration": False}},
            )
        except LspServerError as exc:
            return f"\nReferences lookup failed: {exc}"
        if not refs:
            return ""
        lines = [
            f"{i}. {fmt.location_without_server(r, self.root)}"
            + (f" [{r['serverName']}]" if r.get("serverName") else "")
            for i, r in enumerate(refs, 1)
        ]
        return "\n".join(["", f"References for top match ({top['name']}):", *lines])

    async def _op_prepareCallHierarchy(self, service: LspService) -> ToolResult:
        target = self._target()
        if isinstance(target, ToolResult):
            return target
        path, line, character, description = target
        limit = self.params.get("limit") or 20
        items = await service.prepare_call_hierarchy(
            path, line, character, self.params.get("serverName"), limit
        )
        if not items:
            return _text(f"No call hierarchy items found for {description}.")
        items = items[:limit]
        lines = [fmt.call_item_line(i, item, self.root) for i, item in enumerate(items, 1)]
        return _listing(
            f"Call hierarchy items for {description}:",
            lines,
            fmt.json_section("Call hierarchy items (JSON)", items),
        )

    def _op_incomingCalls(self, service: LspService) -> Awaitable[ToolResult]:
        return self._calls(service, "incoming", "from", "Incoming")

    def _op_outgoingCalls(self, service: LspService) -> Awaitable[ToolResult]:
        return self._calls(service, "outgoing", "to", "Outgoing")

    async def _calls(self, service: LspService, direction: str, side: str, noun: str) -> ToolResult:
        item = dict(self.params.get("callHierarchyItem") or {})
        limit = self.params.get("limit") or 20
        path = uri_to_path(str(item.get("uri") or ""))
        if path is not None and check_inside(self.config, path) is not None:
            return _text(check_inside(self.config, path) or "")
        calls = await service.calls(direction, item, self.params.get("serverName"), limit)
        full = fmt.call_item_full(item, self.root)
        if not calls:
            return _text(f"No {direction} calls found for {full}.")
        calls = calls[:limit]
        lines = [
            fmt.call_item_line(i, call[side], self.root) + fmt.call_ranges(call["fromRanges"])
            for i, call in enumerate(calls, 1)
        ]
        return _listing(
            f"{noun} calls for {full}:", lines, fmt.json_section(f"{noun} calls (JSON)", calls)
        )

    async def _op_diagnostics(self, service: LspService) -> ToolResult:
        found = self._file()
        if isinstance(found, ToolResult):
            return found
        path, name = found
        diagnostics = await service.diagnostics(path, self.params.get("serverName"))
        if not diagnostics:
            return _text(f"No diagnostics found for {name}.")
        lines = [fmt.diagnostic_line(i, d) for i, d in enumerate(diagnostics, 1)]
        return _listing(f"Diagnostics for {name} ({len(diagnostics)} issues):", lines)

    async def _op_workspaceDiagnostics(self, service: LspService) -> ToolResult:
        limit = self.params.get("limit") or 50
        files = await service.workspace_diagnostics(self.params.get("serverName"), limit)
        if not files:
            return _text("No diagnostics found in the workspace.")
        lines: list[str] = []
        total = 0
        for entry in files:
            server = f" [{entry['serverName']}]" if entry.get("serverName") else ""
            lines.append(f"\n{fmt.display_uri(entry['uri'], self.root)}{server}:")
            for diagnostic in entry["diagnostics"]:
                lines.append(fmt.workspace_diagnostic_line(diagnostic))
                total += 1
        return _listing(f"Workspace diagnostics ({total} issues in {len(files)} files):", lines)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


class LspTool(BaseDeclarativeTool[LspParams]):
    """The ``lsp`` tool."""

    Name: ClassVar[str] = ToolNames.LSP

    def __init__(self, config: Config) -> None:
        super().__init__(
            self.Name,
            ToolDisplayNames.LSP,
            DESCRIPTION,
            Kind.OTHER,
            SCHEMA,
            is_output_markdown=False,
            can_update_output=False,
        )
        self.config = config

    def validate_tool_param_values(self, params: LspParams) -> str | None:
        """The reference's checks (:func:`~.schema.validate_lsp_params`)."""
        return validate_lsp_params(params)

    def create_invocation(self, params: LspParams) -> ToolInvocation[LspParams]:
        """Build the invocation for validated params."""
        return LspInvocation(self.config, params)


_Handler = Callable[[LspService], Awaitable[ToolResult]]
