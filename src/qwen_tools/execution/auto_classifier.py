"""The ``auto`` approval mode's classifier: the session's model judges one pending tool call.

Two stages, as in Qwen Code 0.24.4. Stage 1 asks for a bare ``{"shouldBlock": …}`` (10 s);
an allow ends there. A block is reviewed by stage 2 (30 s), which answers
``{"thinking", "shouldBlock", "reason"}``; its reason (tags stripped, one line, ≤200 chars)
ends up in the error the model receives. The timeouts follow
``permissions.autoMode.classifier.timeouts.stage1Ms`` / ``stage2Ms`` (at least 1000 ms).
With the session's :class:`~qwen_tools.model.client.ChatClient` the answer is asked for as
0.24.4 does, as a forced ``respond_in_schema`` function call (``tool_choice: "required"``,
temperature 0, 256 / 4096 output tokens; a plain-text JSON answer is accepted too); any other
:class:`~qwen_tools.model.protocol.ContentGenerator` is asked for the JSON in plain text.

What the classifier sees: the conversation's user messages and the earlier tool calls (never
the assistant's text or any tool output — both may carry injected instructions), then the
pending call. Every call is shown through :func:`classifier_input`, the per-tool projection of
0.24.4's ``toAutoClassifierInput``: the shell shows its command and directory, ``edit`` and
``write_file`` their path with 300-character previews, ``web_fetch`` its URL, MCP tools their
server, tool and (bounded) arguments; any other tool only its name (fail closed).

The prompt is our own prose (the policy lists mirror 0.24.4's categories); the user's hints
(``permissions.autoMode.hints.allow`` / ``softDeny`` / ``deny`` / ``hardDeny``) and
``environment`` lines are added as quoted data. Any failure — no answer in time, a transport
error, an answer that is not the JSON asked for — is *unavailable*: never an approval.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from qwen_tools.contract.abort import AbortError, AbortSignal
from qwen_tools.contract.tool_names import ToolNames
from qwen_tools.execution.auto_prompt import stage_prompt
from qwen_tools.model.client import ChatClient
from qwen_tools.model.protocol import ContentGenerator

__all__ = ["Classification", "classifier_input", "classify", "render_transcript"]

STAGE1_TIMEOUT_MS = 10_000
STAGE2_TIMEOUT_MS = 30_000
_MAX_MESSAGES = 40
_MAX_ACTION_CHARS = 4_000
_MAX_ACTIONS_TOTAL = 40_000
_PREVIEW = 300
_MCP_BUDGET = 16_000


@dataclass(frozen=True)
class Classification:
    """The classifier's verdict on one call."""

    block: bool
    reason: str = ""
    unavailable: bool = False


def _preview(text: Any) -> tuple[str, bool]:
    value = text if isinstance(text, str) else ""
    return value[:_PREVIEW], len(value) > _PREVIEW


def classifier_input(name: str, args: Any, cwd: str) -> dict[str, Any]:
    """What the classifier is shown of a call's arguments (see the module docstring)."""
    params = args if isinstance(args, dict) else {}
    if name == ToolNames.SHELL:
        return {"command": params.get("command"), "cwd": params.get("directory") or cwd}
    if name == "edit":
        old, old_cut = _preview(params.get("old_string"))
        new, new_cut = _preview(params.get("new_string"))
        lines = str(params.get("new_string") or "").count("\n")
        lines -= str(params.get("old_string") or "").count("\n")
        return {
            "file_path": params.get("file_path"),
            "old_string_preview": old,
            "new_string_preview": new,
            "old_string_truncated": old_cut,
            "new_string_truncated": new_cut,
            "lines_changed": lines,
        }
    if name == ToolNames.WRITE_FILE:
        content = params.get("content") if isinstance(params.get("content"), str) else ""
        preview, cut = _preview(content)
        return {
            "file_path": params.get("file_path"),
            "byte_count": len(str(content).encode("utf-8", "surrogatepass")),
            "content_preview": preview,
            "content_truncated": cut,
        }
    if name == ToolNames.WEB_FETCH:
        return {"url": params.get("url")}
    if name == ToolNames.WEB_SEARCH:
        return {"query": params.get("query")}
    if name == "task":
        return {k: params.get(k) for k in ("subagent_type", "description", "prompt")}
    if name.startswith("mcp__"):
        server, _, tool = name[len("mcp__") :].partition("__")
        text = json.dumps(params, ensure_ascii=False)
        projected: dict[str, Any] = {"server": server, "tool": tool}
        if len(text) > _MCP_BUDGET:
            omitted = len(text) - _MCP_BUDGET
            projected["arguments"] = f"{text[:_MCP_BUDGET]}…[truncated {omitted} chars]"
            projected["arguments_truncated"] = True
        else:
            projected["arguments"] = params
        return projected
    return {}


def _user_text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    texts = []
    for part in content if isinstance(content, list) else []:
        text = part.get("text") if isinstance(part, dict) else None
        if isinstance(text, str) and not text.startswith("<system-reminder>"):
            texts.append(text)  # the environment and date reminders are ours, not the user's
    return "\n".join(texts)


def _arguments(call: Mapping[str, Any]) -> tuple[str, Any]:
    found = call.get("function")
    function: Mapping[str, Any] = found if isinstance(found, dict) else {}
    name = str(function.get("name", ""))
    raw = function.get("arguments")
    try:
        args = json.loads(raw) if isinstance(raw, str) else raw
    except ValueError:
        args = {}
    return name, args


def render_transcript(messages: Iterable[Mapping[str, Any]], cwd: str) -> list[str]:
    """The transcript entries: user messages, then ``Prior action: name({…})`` per tool call."""
    recent = list(messages)[-_MAX_MESSAGES:]
    entries: list[tuple[str, str | None]] = []
    for message in recent:
        role = message.get("role")
        if role == "user":
            text = _user_text(message)
            if text:
                entries.append((f"User: {text}", None))
        elif role == "assistant":
            for call in message.get("tool_calls") or []:
                if not isinstance(call, dict):
                    continue
                name, args = _arguments(call)
                shown = json.dumps(classifier_input(name, args, cwd), ensure_ascii=False)
                text = f"Prior action: {name}({shown})"
                if len(text) > _MAX_ACTION_CHARS:
                    omitted = len(text) - _MAX_ACTION_CHARS
                    text = f"{text[:_MAX_ACTION_CHARS]}…[truncated {omitted} chars])"
                entries.append((text, name))
    remaining = _MAX_ACTIONS_TOTAL
    for index in range(len(entries) - 1, -1, -1):
        text, tool = entries[index]
        if tool is None:
            continue
        if remaining > 0 and len(text) <= remaining:
            remaining -= len(text)
            continue
        remaining = 0
        entries[index] = (f"Prior action: {tool}([omitted: transcript budget exhausted])", tool)
    return [text for text, _ in entries]


def _pending(name: str, args: Any, cwd: str) -> str:
    shown = json.dumps(classifier_input(name, args, cwd), ensure_ascii=False, indent=2)
    return (
        f"## The tool call to judge\n\nTool: {name}\nArguments:\n```json\n{shown}\n```\n\n"
        "Should this exact call be allowed to run, or blocked?"
    )


def _loose_json(text: str) -> dict[str, Any] | None:
    body = text.strip()
    if body.startswith("```"):
        body = re.sub(r"^```(?:json)?\s*", "", body, flags=re.IGNORECASE)
        body = re.sub(r"\s*```\s*$", "", body)
    first, last = body.find("{"), body.rfind("}")
    if first < 0 or last <= first:
        return None
    try:
        value = json.loads(body[first : last + 1])
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _sanitize(reason: str) -> str:
    text = reason
    for _ in range(8):
        stripped = re.sub(r"<[^>]*>", "", text)
        if stripped == text:
            break
        text = stripped
    return re.sub(r"\s+", " ", text).strip()[:200]


_SCHEMAS: dict[int, dict[str, Any]] = {
    1: {
        "type": "object",
        "required": ["shouldBlock"],
        "additionalProperties": False,
        "properties": {"shouldBlock": {"type": "boolean"}},
    },
    2: {
        "type": "object",
        "required": ["thinking", "shouldBlock", "reason"],
        "additionalProperties": False,
        "properties": {
            "thinking": {"type": "string"},
            "shouldBlock": {"type": "boolean"},
            "reason": {"type": "string"},
        },
    },
}
_MAX_TOKENS = {1: 256, 2: 4096}


def _structured_body(model: ChatClient, system: str, prompt: str, stage: int) -> bytes:
    """A request that makes the model answer through a ``respond_in_schema`` call (as 0.24.4:
    ``tool_choice`` ``required``, temperature 0, 256 / 4096 output tokens)."""
    config = model.config
    request: dict[str, Any] = {
        "model": config.model,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": [{"type": "text", "text": prompt}]},
        ],
    }
    request.update(dict(config.sampling or {}))
    request.update({"temperature": 0, "max_tokens": _MAX_TOKENS[stage], "stream": False})
    function = {
        "name": "respond_in_schema",
        "description": "Provide the response in provided schema",
        "parameters": _SCHEMAS[stage],
    }
    request["tools"] = [{"type": "function", "function": function}]
    request["tool_choice"] = "required"
    request.update(dict(config.extra_body))
    text = json.dumps(request, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "backslashreplace")


async def _answer_text(
    model: ContentGenerator, prompt: str, system: str, signal: AbortSignal, stage: int
) -> dict[str, Any] | None:
    if isinstance(model, ChatClient):
        body = _structured_body(model, system, prompt, stage)
        completion = await model.complete(body, stream=False, signal=signal)
        for call in completion.tool_calls:
            if call.name == "respond_in_schema":
                return _loose_json(call.arguments_text)
        return _loose_json(completion.text)
    return _loose_json(await model.generate_text(prompt, signal=signal, system=system))


async def _ask(
    model: ContentGenerator,
    prompt: str,
    system: str,
    signal: AbortSignal,
    timeout_ms: int,
    stage: int,
) -> dict[str, Any]:
    """One stage's answer as a JSON object; raises on timeout, transport errors or an answer
    that does not fit the stage's schema."""
    import asyncio

    try:
        answer = await asyncio.wait_for(
            _answer_text(model, prompt, system, signal, stage), timeout_ms / 1000
        )
    except TimeoutError:
        raise RuntimeError("timed out") from None
    types = {"thinking": str, "shouldBlock": bool, "reason": str}
    required = _SCHEMAS[stage]["required"]
    if answer is None or any(not isinstance(answer.get(k), types[k]) for k in required):
        raise ValueError("Invalid side query response")
    return answer


async def classify(
    model: ContentGenerator,
    name: str,
    args: Any,
    *,
    transcript: Iterable[Mapping[str, Any]],
    cwd: str,
    settings: Mapping[str, Any],
    signal: AbortSignal,
) -> Classification:
    """Run the two stages; never raises except :class:`AbortError` when ``signal`` fires."""
    timeouts = _mapping(_mapping(settings.get("classifier")).get("timeouts"))
    try:
        entries = render_transcript(transcript, cwd)
        prompt = "\n\n".join(["<transcript>", *entries, "</transcript>", _pending(name, args, cwd)])
        first_system = stage_prompt(settings, 1)
    except Exception:
        return Classification(True, "Classifier prompt construction failed", unavailable=True)
    try:
        first = await _ask(
            model,
            prompt,
            first_system,
            signal,
            _timeout(timeouts.get("stage1Ms"), STAGE1_TIMEOUT_MS),
            1,
        )
    except AbortError:
        raise
    except Exception:
        if signal.aborted:
            raise AbortError(signal.reason or "The operation was aborted.") from None
        return Classification(True, "Classifier stage 1 unavailable", unavailable=True)
    if not first["shouldBlock"]:
        return Classification(False)
    try:
        second = await _ask(
            model,
            prompt,
            stage_prompt(settings, 2),
            signal,
            _timeout(timeouts.get("stage2Ms"), STAGE2_TIMEOUT_MS),
            2,
        )
    except AbortError:
        raise
    except Exception:
        if signal.aborted:
            raise AbortError(signal.reason or "The operation was aborted.") from None
        reason = "Stage 1 flagged this as risky; stage 2 review was unavailable."
        return Classification(True, reason, unavailable=True)
    if not second["shouldBlock"]:
        return Classification(False)
    return Classification(True, _sanitize(str(second.get("reason") or "")))


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _timeout(value: Any, default: int) -> int:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 1000:
        return int(value)
    return default
