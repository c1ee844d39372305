"""Server answers in the reference's plain shapes (Qwen Code 0.24.4's ``LspResponseNormalizer``).

Every function takes raw LSP JSON and the server's name, and returns plain dicts (or ``None``
for an entry it cannot read): a location is ``{"uri", "range", "serverName"}``, a symbol
``{"name", "kind", "containerName", "location", "serverName"}`` with the kind as a label
(``Function``, ``Class``...), a diagnostic has its severity as ``error``/``warning``/
``information``/``hint``, and hover contents become one string (a ``{language, value}`` part
fenced as code).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "SYMBOL_KIND_LABELS",
    "call_item_params",
    "normalize_call",
    "normalize_call_item",
    "normalize_diagnostic",
    "normalize_document_symbols",
    "normalize_hover",
    "normalize_location",
    "normalize_symbol",
]

SYMBOL_KIND_LABELS: dict[int, str] = dict(
    enumerate(
        [
            "File",
            "Module",
            "Namespace",
            "Package",
            "Class",
            "Method",
            "Property",
            "Field",
            "Constructor",
            "Enum",
            "Interface",
            "Function",
            "Variable",
            "Constant",
            "String",
            "Number",
            "Boolean",
            "Array",
            "Object",
            "Key",
            "Null",
            "EnumMember",
            "Struct",
            "Event",
            "Operator",
            "TypeParameter",
        ],
        start=1,
    )
)
_SEVERITY = {1: "error", 2: "warning", 3: "information", 4: "hint"}


def _position(value: Any) -> dict[str, int]:
    value = value if isinstance(value, dict) else {}
    return {"line": int(value.get("line") or 0), "character": int(value.get("character") or 0)}


def normalize_range(value: Any) -> dict[str, Any] | None:
    """``{"start", "end"}`` with integer positions, or ``None``."""
    if not isinstance(value, dict):
        return None
    start, end = value.get("start"), value.get("end")
    if not isinstance(start, dict) or not isinstance(end, dict):
        return None
    return {"start": _position(start), "end": _position(end)}


def symbol_kind(kind: Any) -> str | None:
    """A symbol kind's label (``12`` → ``Function``)."""
    if isinstance(kind, int) and not isinstance(kind, bool):
        return SYMBOL_KIND_LABELS.get(kind, str(kind))
    if isinstance(kind, str) and kind.strip():
        text = kind.strip()
        return SYMBOL_KIND_LABELS.get(int(text), text) if text.isdigit() else text
    return None


def normalize_location(item: Any, server: str) -> dict[str, Any] | None:
    """A ``Location`` or ``LocationLink``."""
    if not isinstance(item, dict):
        return None
    target: dict[str, Any] = item["target"] if isinstance(item.get("target"), dict) else {}
    uri = item.get("uri") or item.get("targetUri") or target.get("uri")
    rng = (
        item.get("range")
        or item.get("targetSelectionRange")
        or item.get("targetRange")
        or target.get("range")
    )
    normalized = normalize_range(rng)
    if not isinstance(uri, str) or normalized is None:
        return None
    return {"uri": uri, "range": normalized, "serverName": server}


def normalize_symbol(item: Any, server: str) -> dict[str, Any] | None:
    """A ``SymbolInformation`` / ``WorkspaceSymbol``."""
    if not isinstance(item, dict):
        return None
    location: Any = item.get("location") or item.get("target") or item
    if not isinstance(location, dict) or not isinstance(location.get("uri"), str):
        return None
    rng = normalize_range(location.get("range") or location.get("targetRange") or item.get("range"))
    zero = {"line": 0, "character": 0}
    return {
        "name": item.get("name") or item.get("label") or "symbol",
        "kind": symbol_kind(item.get("kind")),
        "containerName": item.get("containerName") or item.get("container"),
        "location": {"uri": location["uri"], "range": rng or {"start": zero, "end": zero}},
        "serverName": server,
    }


def normalize_document_symbols(
    items: list[Any], uri: str, server: str, limit: int
) -> list[dict[str, Any]]:
    """``DocumentSymbol`` trees (flattened, children named by their container) or
    ``SymbolInformation`` lists, at most ``limit``."""
    out: list[dict[str, Any]] = []

    def collect(item: dict[str, Any], container: str | None) -> None:
        if len(out) >= limit:
            return
        name = str(item.get("name") or item.get("label") or "symbol")
        rng = normalize_range(item.get("selectionRange")) or normalize_range(item.get("range"))
        if rng is None:
            return
        out.append(
            {
                "name": name,
                "kind": symbol_kind(item.get("kind")),
                "containerName": container,
                "location": {"uri": uri, "range": rng},
                "serverName": server,
            }
        )
        for child in item.get("children") or []:
            if isinstance(child, dict):
                collect(child, name)

    for item in items:
        if len(out) >= limit:
            break
        if not isinstance(item, dict):
            continue
        if isinstance(item.get("range"), dict) and isinstance(item.get("selectionRange"), dict):
            collect(item, None)
        elif (symbol := normalize_symbol(item, server)) is not None:
            out.append(symbol)
    return out[:limit]


def _hover_text(contents: Any) -> str:
    if not contents:
        return ""
    if isinstance(contents, str):
        return contents
    if isinstance(contents, list):
        parts = [_hover_text(part).strip() for part in contents]
        return "\n".join(part for part in parts if part)
    if isinstance(contents, dict) and isinstance(contents.get("value"), str):
        language = contents.get("language")
        if isinstance(language, str) and language.strip():
            return f"```{language}\n{contents['value']}\n```"
        return str(contents["value"])
    return ""


def normalize_hover(response: Any) -> str:
    """The hover's contents as one string (empty when there is none)."""
    if isinstance(response, dict):
        return _hover_text(response.get("contents"))
    return _hover_text(response)


def normalize_diagnostic(item: Any, server: str) -> dict[str, Any] | None:
    """A diagnostic with its severity as a label."""
    if not isinstance(item, dict):
        return None
    rng = normalize_range(item.get("range"))
    message = item.get("message")
    if rng is None or not isinstance(message, str) or not message:
        return None
    code = item.get("code")
    return {
        "range": rng,
        "severity": _SEVERITY.get(item.get("severity")),  # type: ignore[arg-type]
        "code": code if isinstance(code, str | int) and not isinstance(code, bool) else None,
        "source": item.get("source") if isinstance(item.get("source"), str) else None,
        "message": message,
        "serverName": server,
    }


def normalize_call_item(item: Any, server: str) -> dict[str, Any] | None:
    """A ``CallHierarchyItem``, with ``kind`` as a label and ``rawKind`` as the number."""
    if not isinstance(item, dict):
        return None
    name = item.get("name") or item.get("label") or "symbol"
    uri = item.get("uri")
    rng = normalize_range(item.get("range"))
    selection = normalize_range(item.get("selectionRange")) or rng
    if not isinstance(uri, str) or rng is None or selection is None:
        return None
    kind = item.get("kind")
    raw_kind = item.get("rawKind")
    if not isinstance(raw_kind, int):
        raw_kind = kind if isinstance(kind, int) else None
        if isinstance(kind, str) and kind.isdigit():
            raw_kind = int(kind)
    normalized = {
        "name": str(name),
        "kind": symbol_kind(kind),
        "rawKind": raw_kind,
        "detail": item.get("detail") if isinstance(item.get("detail"), str) else None,
        "uri": uri,
        "range": rng,
        "selectionRange": selection,
        "data": item.get("data"),
        "serverName": item.get("serverName") if isinstance(item.get("serverName"), str) else server,
    }
    return {key: value for key, value in normalized.items() if value is not None}


def normalize_call(item: Any, server: str, side: str) -> dict[str, Any] | None:
    """An incoming (``side="from"``) or outgoing (``side="to"``) call."""
    if not isinstance(item, dict):
        return None
    target = normalize_call_item(item.get(side), server)
    if target is None:
        return None
    ranges = [r for r in map(normalize_range, item.get("fromRanges") or []) if r is not None]
    return {side: target, "fromRanges": ranges}


def call_item_params(item: dict[str, Any]) -> dict[str, Any]:
    """The LSP ``CallHierarchyItem`` to send back (``kind`` as its number)."""
    kind = item.get("rawKind")
    if kind is None and isinstance(item.get("kind"), str) and item["kind"].isdigit():
        kind = int(item["kind"])
    params = {
        "name": item.get("name"),
        "kind": kind if kind is not None else 12,
        "detail": item.get("detail"),
        "uri": item.get("uri"),
        "range": item.get("range"),
        "selectionRange": item.get("selectionRange"),
        "data": item.get("data"),
    }
    return {key: value for key, value in params.items() if value is not None}
