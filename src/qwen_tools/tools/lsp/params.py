"""The ``lsp`` tool's typed params (as :data:`~.schema.SCHEMA` declares them)."""

from __future__ import annotations

from typing import Any, Literal, Required, TypedDict

__all__ = ["LspOperation", "LspParams"]

LspOperation = Literal[
    "goToDefinition",
    "findReferences",
    "hover",
    "documentSymbol",
    "workspaceSymbol",
    "goToImplementation",
    "prepareCallHierarchy",
    "incomingCalls",
    "outgoingCalls",
    "diagnostics",
    "workspaceDiagnostics",
]


class LspParams(TypedDict, total=False):
    """``lsp``'s params; positions are 1-based."""

    operation: Required[LspOperation]
    filePath: str
    line: int | float
    character: int | float
    includeDeclaration: bool
    query: str
    callHierarchyItem: dict[str, Any]
    serverName: str
    limit: int
