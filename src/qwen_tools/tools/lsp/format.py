"""The ``lsp`` tool's texts: locations, symbols, calls and diagnostics as 0.24.4 prints them.

Paths are shown relative to the project root (``path.relative``: a file outside it, such as a
definition in site-packages, appears as ``../../usr/lib/python3.11/os.py``); positions are
1-based ``line:character``; a server's name follows in brackets.
"""

from __future__ import annotations

import json
from typing import Any

from qwen_tools.lsp.service import uri_to_path
from qwen_tools.tools.common.paths import js_relative

__all__ = [
    "call_item_line",
    "call_ranges",
    "diagnostic_line",
    "display_uri",
    "json_section",
    "location_with_server",
    "location_without_server",
    "symbol_line",
]


def _path(uri: str, root: str) -> str:
    path = uri_to_path(uri)
    if path is None:
        return uri
    return js_relative(root, path) or "."


def location_with_server(location: dict[str, Any], root: str) -> str:
    """``a.py:5:12 [pylsp]``."""
    start = location["range"]["start"]
    server = location.get("serverName")
    suffix = f" [{server}]" if server else ""
    return f"{_path(location['uri'], root)}:{start['line'] + 1}:{start['character'] + 1}{suffix}"


def location_without_server(location: dict[str, Any], root: str) -> str:
    """``a.py:5:12``."""
    start = location["range"]["start"]
    return f"{_path(location['uri'], root)}:{start['line'] + 1}:{start['character'] + 1}"


def display_uri(uri: str, root: str) -> str:
    """A document's name in headings (``formatUriForDisplay``)."""
    return _path(uri, root)


def symbol_line(index: int, symbol: dict[str, Any], root: str) -> str:
    """``1. helper (Function) in Box - b.py:1:5 [pylsp]``."""
    location = location_without_server(symbol["location"], root)
    server = f" [{symbol['serverName']}]" if symbol.get("serverName") else ""
    kind = f" ({symbol['kind']})" if symbol.get("kind") else ""
    container = f" in {symbol['containerName']}" if symbol.get("containerName") else ""
    return f"{index}. {symbol['name']}{kind}{container} - {location}{server}"


def _item_location(item: dict[str, Any], root: str) -> str:
    return location_with_server(
        {"uri": item["uri"], "range": item["selectionRange"], "serverName": item.get("serverName")},
        root,
    )


def call_item_line(index: int, item: dict[str, Any], root: str) -> str:
    """``1. caller (Function) detail - a.ts:4:17 [typescript-language-server]``."""
    kind = f" ({item['kind']})" if item.get("kind") else ""
    detail = f" {item['detail']}" if item.get("detail") else ""
    return f"{index}. {item['name']}{kind}{detail} - {_item_location(item, root)}"


def call_item_full(item: dict[str, Any], root: str) -> str:
    """``caller at a.ts:4:17 [server]`` (headings of incoming/outgoing calls)."""
    return f"{item.get('name')} at {_item_location(item, root)}"


def call_ranges(ranges: list[dict[str, Any]]) -> str:
    """`` (calls at 5:10, 6:3, +2 more)``."""
    if not ranges:
        return ""
    shown = [f"{r['start']['line'] + 1}:{r['start']['character'] + 1}" for r in ranges]
    extra = f", +{len(shown) - 3} more" if len(shown) > 3 else ""
    return f" (calls at {', '.join(shown[:3])}{extra})"


def diagnostic_line(index: int, diagnostic: dict[str, Any]) -> str:
    """``1. [ERROR] 8:10 (code) [source]: message``."""
    severity = f"[{diagnostic['severity'].upper()}]" if diagnostic.get("severity") else ""
    start = diagnostic["range"]["start"]
    code = f" ({diagnostic['code']})" if diagnostic.get("code") else ""
    source = f" [{diagnostic['source']}]" if diagnostic.get("source") else ""
    position = f"{start['line'] + 1}:{start['character'] + 1}"
    return f"{index}. {severity} {position}{code}{source}: {diagnostic['message']}"


def workspace_diagnostic_line(diagnostic: dict[str, Any]) -> str:
    """``  [ERROR] 8:10 (code): message`` (no source, as in the reference)."""
    severity = f"[{diagnostic['severity'].upper()}]" if diagnostic.get("severity") else ""
    start = diagnostic["range"]["start"]
    code = f" ({diagnostic['code']})" if diagnostic.get("code") else ""
    return (
        f"  {severity} {start['line'] + 1}:{start['character'] + 1}{code}: {diagnostic['message']}"
    )


def json_section(label: str, data: Any) -> str:
    """``\\n\\n<label>:\\n<JSON, 2-space indent>`` (``JSON.stringify(data, null, 2)``)."""
    return f"\n\n{label}:\n{json.dumps(data, indent=2, ensure_ascii=False)}"
