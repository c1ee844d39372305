"""What a tool may ask of the session's model, without depending on a particular client.

``web_fetch`` hands the fetched page and the user's prompt to the model for a second call;
the agent session lends an object with this shape to ``Config.services.model`` (read as
``Config.content_generator``) while it runs (``None`` otherwise, and the tools fall back to returning the content themselves).
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from qwen_tools.contract.abort import AbortSignal


@runtime_checkable
class ContentGenerator(Protocol):
    """One-shot text generation with the session's model (no tools, no history)."""

    async def generate_text(
        self, prompt: str, *, signal: AbortSignal, system: str | None = None
    ) -> str:
        """The model's answer to ``prompt`` (raises on transport errors or cancellation)."""
        ...
