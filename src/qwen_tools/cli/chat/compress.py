"""``/compress [instructions]`` in chat, and the line an automatic compression shows.

Both go through the agent's one routine (:meth:`~qwen_tools.agent.compression.Compressor.compress`,
which fires PreCompact and keeps the history when the summary fails). ``/compress`` shows
Qwen Code 0.24.4's status line (``Chat history compressed from N to ~M tokens.``, or why not);
instructions over 2,000 characters are cut, as 0.24.4 says. An automatic compression shows
0.24.4's ``IMPORTANT: This conversation approached the input token limit…`` notice; a failed one
is said once (the first of a row of failures), with the note that the history was kept.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qwen_tools.agent.compression import MAX_INSTRUCTIONS_CHARS
from qwen_tools.agent.compression_texts import auto_notice
from qwen_tools.contract.abort import AbortError

if TYPE_CHECKING:
    from rich.console import Console

    from qwen_tools.agent.compression import Compression
    from qwen_tools.agent.loop import AgentLoop
    from qwen_tools.contract.abort import AbortSignal

__all__ = ["auto_compression_line", "compress_chat"]

KEPT = "The conversation was kept as it was."


async def compress_chat(
    loop: AgentLoop, instructions: str, console: Console, signal: AbortSignal
) -> bool:
    """Run ``/compress``, saying how it went; whether the history was replaced."""
    instructions = instructions.strip()
    if len(instructions) > MAX_INSTRUCTIONS_CHARS:
        console.print(
            f"Compression instructions were truncated to {MAX_INSTRUCTIONS_CHARS} characters."
        )
    console.print("[dim]Compressing chat history[/]")
    try:
        result = await loop.compression.compress(
            loop.history, instructions=instructions or None, signal=signal
        )
    except AbortError:
        console.print(f"[yellow]Compression cancelled.[/] {KEPT}", highlight=False)
        return False
    if result.compressed:
        console.print(result.text(), highlight=False)
    else:
        console.print(f"[yellow]{result.text()}[/]", highlight=False)
    return result.compressed


def auto_compression_line(compression: Compression, model: str) -> tuple[str, str] | None:
    """``(text, style)`` for an automatic compression (``None``: a repeated failure)."""
    if compression.compressed:
        text = auto_notice(
            model,
            compression.before,
            compression.after,
            before_estimated=compression.before_estimated,
        )
        return text, "yellow"
    if compression.failures > 1:
        return None
    return f"{compression.text()} {KEPT}", "yellow"
