"""What compressing the conversation says, to the model and to the user (Qwen Code 0.24.4's words).

* :data:`COMPRESSION_PROMPT` — the system prompt of the summary request (0.24.4's
  ``getCompressionPrompt``), followed by ``Additional Instructions:`` when ``/compress`` was
  given some or a PreCompact hook added context (:func:`system_prompt`);
  :data:`DIRECTIVE` — the user message that ends that request;
* :func:`summary_text` — the summary as it enters the history: the ``<analysis>`` scratchpad
  stripped, then :data:`RESUME_TRAILER`; :data:`ACKNOWLEDGEMENT` — the model's answer to it;
* :func:`status_text` and :func:`auto_notice` — what the user is told (``/compress``, and the
  notice of an automatic compression).
"""

from __future__ import annotations

import re
from enum import Enum

__all__ = [
    "ACKNOWLEDGEMENT",
    "COMPRESSION_PROMPT",
    "DIRECTIVE",
    "RESUME_TRAILER",
    "CompressionStatus",
    "auto_notice",
    "status_text",
    "strip_analysis",
    "summary_text",
    "system_prompt",
]


class CompressionStatus(Enum):
    """How a compression ended (0.24.4's ``CompressionStatus``)."""

    COMPRESSED = "compressed"
    NOOP = "noop"
    INFLATED = "inflated"
    """The new history would not be smaller: it was not used."""
    EMPTY_SUMMARY = "empty_summary"
    TRUNCATED = "truncated"
    """The summary hit its output limit (cut off): it was not used."""
    API_ERROR = "api_error"


COMPRESSION_PROMPT = (
    "You are the component that summarizes a conversation when its context window is "
    "about to overflow. The summary you produce will become the agent's ONLY memory of "
    "everything that happened before this point. The agent will resume its work based "
    "solely on this summary plus a small number of restored file / image attachments "
    "that follow.\n"
    "\n"
    "First, wrap your reasoning in an <analysis> block. Inside it, walk through the "
    "conversation chronologically and identify, for each section: the user's explicit "
    "requests and intent, your approach to those requests, key decisions / technical "
    "concepts / code patterns, specific details (file names, code snippets, function "
    "signatures, file edits), errors and how they were fixed, and any specific user "
    "feedback — especially when the user told you to do something differently. The "
    "<analysis> block is stripped before the summary reaches the next agent; it is "
    "purely a drafting scratchpad to improve the summary that follows.\n"
    "\n"
    "Then produce the final summary as the EXACT XML structure below. Be dense. Omit "
    "conversational filler.\n"
    "\n"
    "<state_snapshot>\n"
    "    <primary_request_and_intent>\n"
    "        <!-- Capture all of the user's explicit requests and intents in detail. "
    "Quote the user's exact phrasing where intent is at stake. -->\n"
    "    </primary_request_and_intent>\n"
    "\n"
    "    <key_technical_concepts>\n"
    "        <!-- List all important technical concepts, technologies, and frameworks "
    "discussed. -->\n"
    "    </key_technical_concepts>\n"
    "\n"
    "    <files_and_code_sections>\n"
    "        <!-- Enumerate specific files and code sections examined, modified, or "
    "created. Pay special attention to the most recent messages. Include full code "
    "snippets where applicable, and a summary of why this file read or edit is "
    "important. -->\n"
    "    </files_and_code_sections>\n"
    "\n"
    "    <errors_and_fixes>\n"
    "        <!-- List every error encountered and how it was fixed. Include the "
    "verbatim error message when it was quoted to the agent. Pay special attention to "
    "specific user feedback on the error, especially if the user told you to do "
    "something differently. -->\n"
    "    </errors_and_fixes>\n"
    "\n"
    "    <problem_solving>\n"
    "        <!-- Document problems solved and any ongoing troubleshooting efforts. -->\n"
    "    </problem_solving>\n"
    "\n"
    "    <all_user_messages>\n"
    "        <!-- List ALL user messages that are not tool results, in chronological "
    "order. These are critical for understanding the user's feedback and shifting "
    'intent. Include short messages like "ok" or "continue" — they are signal. -->\n'
    "    </all_user_messages>\n"
    "\n"
    "    <pending_tasks>\n"
    "        <!-- Outline any pending tasks that the user has explicitly asked the agent "
    "to work on but that are not yet complete. -->\n"
    "    </pending_tasks>\n"
    "\n"
    "    <current_work>\n"
    "        <!-- Describe in detail precisely what the agent was working on immediately "
    "before this summary was requested, paying special attention to the most recent "
    "messages from both user and assistant. Include file names and code snippets where "
    "applicable. -->\n"
    "    </current_work>\n"
    "\n"
    "    <next_step>\n"
    "        <!-- List the single next step the agent will take, related to the most "
    "recent work. The step MUST be DIRECTLY in line with the user's most recent explicit "
    "request and the task the agent was working on immediately before this summary. If "
    "the last task was concluded, list a next step only if it is explicitly in line with "
    "the user's request — do NOT start tangential or older work without confirming with "
    "the user first. If there is a next step, include direct quotes from the most recent "
    "conversation showing exactly what task you were working on and where you left off. "
    "-->\n"
    "    </next_step>\n"
    "</state_snapshot>"
)

DIRECTIVE = "First, reason in your <analysis> block. Then, produce the <state_snapshot> XML."
RESUME_TRAILER = (
    "Resume the prior task using the summary above. Continue from the last in-flight step; "
    "do not acknowledge the summary, do not re-introduce, do not greet the user again."
)
ACKNOWLEDGEMENT = "Got it. Thanks for the additional context!"
_ANALYSIS = re.compile(r"<analysis>[\s\S]*?</analysis>\s*")
_OPEN_ANALYSIS = re.compile(r"<analysis>[\s\S]*$")


def system_prompt(instructions: str | None, hook_context: str | None) -> str:
    """The summary request's system prompt: the user's instructions first, then the hooks'."""
    extra = [text.strip() for text in (instructions, hook_context) if text and text.strip()]
    if not extra:
        return COMPRESSION_PROMPT
    return COMPRESSION_PROMPT + "\n\nAdditional Instructions:\n" + "\n\n".join(extra)


def strip_analysis(summary: str) -> str:
    """The summary without its ``<analysis>`` blocks (an unclosed one runs to the end)."""
    return _OPEN_ANALYSIS.sub("", _ANALYSIS.sub("", summary)).strip()


def summary_text(summary: str) -> str:
    """The summary as the history carries it."""
    body = strip_analysis(summary) or "[Summary unavailable]"
    return f"{body}\n\n{RESUME_TRAILER}"


def _count(tokens: int, estimated: bool) -> str:
    return f"~{tokens}" if estimated else str(tokens)


def status_text(
    status: CompressionStatus, before: int, after: int, *, before_estimated: bool = False
) -> str:
    """The line ``/compress`` shows (the new count is always an estimate, as in 0.24.4)."""
    if status is CompressionStatus.COMPRESSED:
        return (
            f"Chat history compressed from {_count(before, before_estimated)} "
            f"to {_count(after, True)} tokens."
        )
    if status is CompressionStatus.INFLATED:
        if before < 50_000:
            return "Compression was not beneficial for this history size."
        return (
            "Chat history compression did not reduce size. This may indicate issues with the "
            "compression prompt."
        )
    if status is CompressionStatus.EMPTY_SUMMARY:
        return "Could not compress chat history because the compression summary was empty."
    if status is CompressionStatus.TRUNCATED:
        return "Could not compress chat history because the compression summary was truncated."
    if status is CompressionStatus.API_ERROR:
        return "Could not compress chat history due to an API error."
    return "Nothing to compress."


def auto_notice(model: str, before: int, after: int, *, before_estimated: bool = True) -> str:
    """What the user is told when the conversation was compressed on its own."""
    return (
        f"IMPORTANT: This conversation approached the input token limit for {model}. A "
        "compressed context will be sent for future messages (compressed from: "
        f"{_count(before, before_estimated)} to {_count(after, True)} tokens)."
    )
