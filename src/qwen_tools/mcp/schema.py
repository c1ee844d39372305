"""Input schemas of MCP tools, as the model is given them.

Qwen Code 0.24.4 passes a server's ``inputSchema`` through verbatim (no cleaning at discovery;
providers that need it relax schemas at request time), so we do too — with one guarantee: the
result is always a JSON object schema, since ``tools/call`` arguments are an object.

* no schema (or not a JSON object) → ``{"type": "object", "properties": {}}``;
* a schema without ``type`` → ``"type": "object"`` is added in front;
* a schema whose ``type`` is not ``"object"`` cannot describe arguments → the empty object
  schema, and a warning.
"""

from __future__ import annotations

import copy
import logging
from collections.abc import Mapping
from typing import Any

logger = logging.getLogger("qwen_tools.mcp")


def empty_object_schema() -> dict[str, Any]:
    """The schema of a tool without parameters."""
    return {"type": "object", "properties": {}}


def model_input_schema(raw: Any, *, where: str = "") -> dict[str, Any]:
    """The parameter schema to declare for an MCP tool whose ``inputSchema`` is ``raw``."""
    if not isinstance(raw, Mapping) or not raw:
        return empty_object_schema()
    schema: dict[str, Any] = copy.deepcopy(dict(raw))
    kind = schema.get("type")
    if kind is None:
        return {"type": "object", **schema}
    if kind == "object" or (isinstance(kind, list) and "object" in kind):
        return schema
    logger.warning("MCP tool %s: inputSchema of type %r is not an object schema", where, kind)
    return empty_object_schema()
