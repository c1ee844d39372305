"""The ``lsp`` tool's parameters, description and validation (names and messages as 0.24.4's).

The reference also offers ``codeActions`` (with ``endLine``/``endCharacter``, ``diagnostics``
and ``codeActionKinds``); it is left out here (it leads to edits the other tools make).
"""

from __future__ import annotations

from typing import Any, get_args

from qwen_tools.tools.common.paths import clean_path_param
from qwen_tools.tools.lsp.params import LspOperation, LspParams

__all__ = ["DESCRIPTION", "OPERATIONS", "SCHEMA", "LspParams", "validate_lsp_params"]

OPERATIONS: tuple[str, ...] = get_args(LspOperation)

DESCRIPTION = (
    "Asks the project's language servers (LSP) about the code: where a symbol is defined or "
    "implemented, where it is referenced, what it is (hover: type and documentation), the "
    "symbols of a file or of the whole workspace, who calls a function and what it calls, and "
    "the errors and warnings the server reports.\n\n"
    "Use it before text search whenever the question is about symbols rather than text.\n"
    "- goToDefinition, findReferences, hover, goToImplementation and prepareCallHierarchy "
    "need filePath, line and character (1-based, the position of the symbol's name).\n"
    "- documentSymbol and diagnostics need filePath; workspaceSymbol needs query; "
    "workspaceDiagnostics needs nothing (it covers the files the servers have seen).\n"
    "- incomingCalls and outgoingCalls need a callHierarchyItem exactly as prepareCallHierarchy "
    "(or an earlier call) returned it, documentRevision included; if the file changed since, "
    "prepare it again.\n"
    "- filePath may be absolute or relative to the project root; serverName picks one server "
    "and limit caps the number of results."
)

_POSITION = {
    "type": "object",
    "properties": {"line": {"type": "number"}, "character": {"type": "number"}},
    "required": ["line", "character"],
}
_RANGE = {
    "type": "object",
    "properties": {
        "start": {"$ref": "#/definitions/LspPosition"},
        "end": {"$ref": "#/definitions/LspPosition"},
    },
    "required": ["start", "end"],
}

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "operation": {
            "type": "string",
            "description": "LSP operation to execute.",
            "enum": list(OPERATIONS),
        },
        "filePath": {
            "type": "string",
            "description": "File path (absolute or workspace-relative).",
        },
        "line": {
            "type": "number",
            "description": "1-based line number for the target location.",
        },
        "character": {
            "type": "number",
            "description": "1-based character/column number for the target location.",
        },
        "includeDeclaration": {
            "type": "boolean",
            "description": "Include the declaration itself when looking up references.",
        },
        "query": {"type": "string", "description": "Symbol query for workspace symbol search."},
        "callHierarchyItem": {
            "$ref": "#/definitions/LspCallHierarchyItem",
            "description": "Call hierarchy item for incoming/outgoing calls.",
        },
        "serverName": {"type": "string", "description": "Optional LSP server name to target."},
        "limit": {
            "type": "integer",
            "minimum": 1,
            "description": "Optional maximum number of results to return.",
        },
    },
    "required": ["operation"],
    "definitions": {
        "LspPosition": _POSITION,
        "LspRange": _RANGE,
        "LspCallHierarchyItem": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "kind": {"type": "string"},
                "rawKind": {"type": "number"},
                "documentRevision": {
                    "type": "string",
                    "description": (
                        "Freshness token: pass it back unchanged; when it is missing or the "
                        "file changed, prepare the call hierarchy again."
                    ),
                },
                "detail": {"type": "string"},
                "uri": {"type": "string"},
                "range": {"$ref": "#/definitions/LspRange"},
                "selectionRange": {"$ref": "#/definitions/LspRange"},
                "data": {},
                "serverName": {"type": "string"},
            },
            "required": ["name", "uri", "range", "selectionRange"],
        },
    },
}


_LOCATION = {
    "goToDefinition",
    "findReferences",
    "hover",
    "goToImplementation",
    "prepareCallHierarchy",
}
_FILE = {"documentSymbol", "diagnostics"}
_ITEM = {"incomingCalls", "outgoingCalls"}


def validate_lsp_params(params: LspParams) -> str | None:
    """The reference's checks, in its order; ``filePath`` is trimmed and unescaped in place."""
    operation = params["operation"]
    if params.get("filePath"):
        params["filePath"] = clean_path_param(params["filePath"])
    file_path = params.get("filePath")
    line = params.get("line")
    if (operation in _LOCATION or operation in _FILE) and not file_path:
        return f"filePath is required for {operation}."
    if operation in _LOCATION and not isinstance(line, int | float):
        return f"line is required for {operation}."
    if operation == "workspaceSymbol" and not (params.get("query") or "").strip():
        return f"query is required for {operation}."
    if operation in _ITEM and not params.get("callHierarchyItem"):
        return f"callHierarchyItem is required for {operation}."
    if line is not None and line < 1:
        return "line must be a positive number."
    character = params.get("character")
    if character is not None and character < 1:
        return "character must be a positive number."
    return None
