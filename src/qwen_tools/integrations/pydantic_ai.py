"""pydantic-ai: our tools as a toolset, approvals as pydantic-ai's deferred tool requests.

```python
from pydantic_ai import Agent, DeferredToolRequests
from qwen_tools.integrations.pydantic_ai import QwenToolset, approval_results

toolset = QwenToolset("/path/to/project")          # or QwenToolset(session)
agent = Agent(model, toolsets=[toolset], output_type=[str, DeferredToolRequests])
async with agent:
    result = await agent.run("Tidy up the README")
    while isinstance(result.output, DeferredToolRequests):   # the session wants approvals
        answers = {call.tool_call_id: ask_the_user(result.output.metadata[call.tool_call_id])
                   for call in result.output.approvals}         # "once", "always" or "deny"
        result = await agent.run(message_history=result.all_messages(),
                                 deferred_tool_results=approval_results(answers))
```

A call our flow would ask the user about raises :class:`pydantic_ai.ApprovalRequired` with the
prompt (:meth:`~qwen_tools.integrations.bridge.ApprovalRequest.to_dict`) as its metadata; the
resumed call runs with the answer, and an "always" answer (given through
:func:`approval_results`, or ``DeferredToolResults.metadata``) is recorded in the session.
Failures raise :class:`pydantic_ai.ToolFailed` with our error text; images come back as
:class:`pydantic_ai.BinaryContent`; a shell command's live output is emitted as
:class:`QwenToolOutput` events into the run's event stream. Tools that change things are
declared ``sequential`` (they run alone, as our scheduler runs them).

A toolset made from a directory opens its session when the agent enters it: keep the agent
entered (``async with agent:``) across the runs of a conversation — a resumed run included — or
give it an open :class:`~qwen_tools.Session`, so the session's state (files read, "always allow"
answers, todos) carries from one run to the next.
"""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

try:
    from pydantic_ai import (
        ApprovalRequired,
        BinaryContent,
        CustomEvent,
        DeferredToolResults,
        RunContext,
        ToolDefinition,
        ToolDenied,
        ToolFailed,
    )
    from pydantic_ai.exceptions import UserError
    from pydantic_ai.toolsets import AbstractToolset, ToolsetTool
    from pydantic_core import SchemaValidator, core_schema
except ImportError as exc:  # the extra is not installed
    raise ImportError(
        f"{__name__} needs pydantic-ai: pip install 'qwen-tools[pydantic-ai]'"
    ) from exc

from qwen_tools.contract.parts import InlineDataPart
from qwen_tools.integrations.bridge import (
    Answer,
    ApprovalRequest,
    BridgedTools,
    SessionSource,
    ToolOutcome,
    refusal_text,
)

__all__ = ["Answer", "QwenToolOutput", "QwenToolset", "approval_results"]

# our tools validate their own arguments, so the model gets our error text for bad ones
_ANY_ARGS = SchemaValidator(schema=core_schema.any_schema())


@dataclass(kw_only=True)
class QwenToolOutput(CustomEvent):
    """Live output of a running call (a shell command's screen so far)."""

    output: str


class QwenToolset(BridgedTools, AbstractToolset[Any]):
    """The tools of a :class:`~qwen_tools.Session` as a pydantic-ai toolset."""

    def __init__(
        self,
        source: SessionSource,
        *,
        id: str | None = None,
        include: Sequence[str] | None = None,
        **session_options: Any,
    ) -> None:
        """``source``: an open session, or a directory to open one on with ``session_options``
        (``approval_mode``, ``tools``, ``mcp`` ...) when the agent enters the toolset;
        ``include``: offer only these tools."""
        super().__init__(source, include=include, **session_options)
        self._id = id

    @property
    def id(self) -> str | None:
        """The toolset's id (pydantic-ai needs one for durable execution)."""
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        """Our declarations (OpenAI function format) as pydantic-ai tool definitions."""
        tools: dict[str, ToolsetTool[Any]] = {}
        for spec in self.offered():
            definition = ToolDefinition(
                name=spec.name,
                description=spec.description,
                parameters_json_schema=spec.parameters,
                sequential=not spec.read_only,
            )
            tools[spec.name] = ToolsetTool(
                toolset=self, tool_def=definition, max_retries=1, args_validator=_ANY_ARGS
            )
        return tools

    async def call_tool(
        self, name: str, tool_args: dict[str, Any], ctx: RunContext[Any], tool: ToolsetTool[Any]
    ) -> Any:
        """Run the call in the session; ask for approval, fail, or return text and images."""
        answer = None
        if ctx.tool_call_approved:
            answer = Answer.from_value(ctx.tool_call_metadata, default=Answer(True))
        pending: list[asyncio.Task[Any]] = []

        def emit(text: str) -> None:
            pending.append(asyncio.ensure_future(_emit(ctx, QwenToolOutput(output=text))))

        call_id = ctx.tool_call_id or f"{name}_call"
        done = await self._bridge.run(name, tool_args, call_id, answer=answer, on_output=emit)
        if pending:
            await asyncio.gather(*pending)
        if isinstance(done, ApprovalRequest):
            raise ApprovalRequired(metadata=done.to_dict())
        return _returned(done)


async def _emit(ctx: RunContext[Any], event: QwenToolOutput) -> None:
    try:
        await ctx.emit(event)
    except UserError:  # a context with no event stream (a tool called outside a run)
        return


def _returned(done: ToolOutcome) -> Any:
    if done.is_error:
        raise ToolFailed(done.text)
    media = [
        BinaryContent(data=base64.b64decode(part.data), media_type=part.mime_type)
        for part in done.media
        if isinstance(part, InlineDataPart)
    ]
    if not media:
        return done.text
    return [done.text, *media]


def approval_results(answers: Mapping[str, Answer | bool | str]) -> DeferredToolResults:
    """Deferred tool results for the session's approval requests, keyed by tool call id.

    An answer is an :class:`Answer`, a bool, or ``"once"``, ``"always"`` or ``"deny"``; an
    "always" answer travels in the results' metadata, where the resumed call reads it. A refusal
    tells the model what our flow tells it (``[Operation Cancelled] Reason: User did not allow
    tool call``, or the answer's message).
    """
    results = DeferredToolResults()
    for call_id, value in answers.items():
        answer = Answer.from_value(value)
        if answer is None:
            raise ValueError(f"not an answer for {call_id!r}: {value!r}")
        if answer.approved:
            results.approvals[call_id] = True
            results.metadata[call_id] = {"qwen_tools": answer.to_dict()}
        else:
            results.approvals[call_id] = ToolDenied(refusal_text(answer))
    return results
