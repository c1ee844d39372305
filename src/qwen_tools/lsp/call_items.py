"""Signing the call hierarchy items handed to the model, so a stale or forged one is refused.

As in Qwen Code 0.24.4, every item ``prepareCallHierarchy`` (or a call list) returns carries a
``documentRevision``: an HMAC (a secret of the server connection) over the server's name, the
item and the digest of its file's text when the item was made. ``incomingCalls`` /
``outgoingCalls`` accept an item only when its revision still matches the file on disk and the
connection that made it; otherwise the model is told to prepare the call hierarchy again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any

from qwen_tools.lsp.normalize import call_item_params

__all__ = ["StaleCallItemError", "non_file_item_message", "sign_item"]


class StaleCallItemError(Exception):
    """The reference's ``StaleCallHierarchyItemError`` (its message is model-facing)."""

    def __init__(self, uri: str | None = None) -> None:
        super().__init__(
            "Call hierarchy item is stale or has unknown provenance; prepare call hierarchy "
            f"again at a current location inside {uri}."
            if uri
            else "Call hierarchy item is stale or has unknown provenance; prepare call "
            "hierarchy again."
        )


def non_file_item_message(uri: str) -> str:
    """The refusal of an item whose URI is not a file."""
    return (
        f"Call hierarchy item {uri} has no verifiable disk snapshot and cannot be traversed; "
        "prepare call hierarchy at a file location instead."
    )


def sign_item(secret: bytes, server: str, item: dict[str, Any], text: bytes) -> str:
    """The item's ``documentRevision`` for the file content ``text``."""
    digest = hashlib.sha256(text).hexdigest()
    payload = json.dumps(
        [server, call_item_params(item), {"digest": digest}], sort_keys=True, default=str
    )
    return hmac.new(secret, payload.encode(), hashlib.sha256).hexdigest()
