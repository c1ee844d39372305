"""``/compress``: the conversation so far replaced by the model's summary of it.

The history is written out as a plain transcript (tool results shortened) and the model is
asked, without tools, for a summary that keeps what is needed to go on: the goal, decisions,
files and their state, what is left to do. The new history is the opening reminders of the
old first message with that summary, and a short acknowledgement, as Qwen Code's compression
leaves it (our wording of the request is our own; 0.24.4's prompt is not in the specs).
"""

from __future__ import annotations

import json
from typing import Any

SYSTEM = (
    "You compress conversations between a user and a coding agent. Write a summary that lets "
    "the agent continue the work without the original messages: the user's goal and "
    "instructions, decisions taken, files read or changed and their current state, commands "
    "run and their outcome, open problems and the next steps. Be specific (paths, names, "
    "values); leave out chatter. Answer with the summary only."
)
ACKNOWLEDGEMENT = "Got it. Thanks for the additional context!"
TOOL_RESULT_CHARS = 2000


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def transcript(messages: list[dict[str, Any]]) -> str:
    """The conversation as text: one block per message, tool results shortened."""
    blocks: list[str] = []
    for message in messages:
        role = message.get("role", "")
        text = _text(message.get("content"))
        if role == "tool":
            if len(text) > TOOL_RESULT_CHARS:
                text = text[:TOOL_RESULT_CHARS] + " …(shortened)"
            blocks.append(f"[tool result]\n{text}")
            continue
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            text += f"\n[calls {function.get('name')} {function.get('arguments', '')}]"
        blocks.append(f"[{role}]\n{text.strip()}")
    return "\n\n".join(blocks)


def compression_request(messages: list[dict[str, Any]]) -> str:
    """What the model is asked."""
    return "Summarise this conversation:\n\n" + transcript(messages)


def compressed_history(messages: list[dict[str, Any]], summary: str) -> list[dict[str, Any]]:
    """The new history: the first message's reminders and the summary, then an answer."""
    first = messages[0].get("content") if messages else None
    reminders = [
        part
        for part in (first if isinstance(first, list) else [])
        if isinstance(part, dict) and str(part.get("text", "")).startswith("<system-reminder>")
    ]
    text = f"This is a summary of our conversation so far:\n\n{summary.strip()}"
    return [
        {"role": "user", "content": [*reminders, {"type": "text", "text": text}]},
        {"role": "assistant", "content": ACKNOWLEDGEMENT},
    ]


def size_of(messages: list[dict[str, Any]]) -> int:
    """The history's size in characters of JSON (to say what was saved)."""
    return len(json.dumps(messages, ensure_ascii=False))
