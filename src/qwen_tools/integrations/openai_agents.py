"""OpenAI Agents SDK: our tools as ``FunctionTool``s, approvals as the run's interruptions.

```python
from agents import Agent, Runner
from qwen_tools.integrations.openai_agents import QwenTools

async with QwenTools("/path/to/project") as qwen:          # or QwenTools(session)
    agent = Agent(name="coder", model=model, tools=qwen.tools)
    result = await Runner.run(agent, "Tidy up the README")
    while result.interruptions:                           # calls the session wants approved
        state = result.to_state()
        for item in result.interruptions:
            prompt = qwen.approval_request(item)            # what to show: diff, command ...
            if ask_the_user(prompt) == "deny":
                state.reject(item)
            else:
                state.approve(item, always_approve=...)   # "always" is recorded in the session
        result = await Runner.run(agent, state)
```

Each tool's ``needs_approval`` asks the session whether the call would ask the user (rules,
hooks, approval mode, earlier "always" answers); the SDK then interrupts the run, and the
approved call runs with the answer: ``always_approve=True`` is our "always allow" for the call's
prompt (a shell command's programs, the tool, auto-edit for edits). The SDK itself then no
longer interrupts for that tool; its later calls our flow would still ask about run as the
user allowed the tool. Schemas are strict where OpenAI's Structured Outputs can express them
(the strict call's ``null`` arguments are dropped again before the call). Failures come back as
our error text, images as :class:`agents.ToolOutputImage`. The SDK has no hook for a running
tool's live output: give ``QwenTools(on_output=...)`` a callback to receive it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

try:
    from agents import FunctionTool, RunContextWrapper, Tool, ToolOutputImage, ToolOutputText
    from agents.items import ToolApprovalItem
    from agents.tool_context import ToolContext
except ImportError as exc:  # the extra is not installed
    raise ImportError(
        f"{__name__} needs the OpenAI Agents SDK: pip install 'qwen-tools[openai-agents]'"
    ) from exc

from qwen_tools.contract.parts import InlineDataPart
from qwen_tools.integrations.bridge import (
    Answer,
    ApprovalRequest,
    BridgedTools,
    SessionSource,
    ToolOutcome,
    ToolSpec,
)
from qwen_tools.session.session import Session

__all__ = ["QwenTools", "function_tools"]

_PROBE = "qwen-tools-sticky-probe"
"""A call id no call has: the SDK approves it only when the whole tool was approved "always"."""


class QwenTools(BridgedTools):
    """A session's tools for the Agents SDK, and the prompts of the calls it interrupted."""

    def __init__(
        self,
        source: SessionSource,
        *,
        strict: bool = True,
        include: Sequence[str] | None = None,
        on_output: Callable[[str, str, str], object] | None = None,
        **session_options: Any,
    ) -> None:
        """``source``: an open session, or a directory to open one on with ``session_options``
        when entered; ``strict``: strict schemas where they exist; ``include``: only these;
        ``on_output``: receives ``(tool, call_id, text)`` for a running call's live output (the
        SDK has no hook of its own for it)."""
        super().__init__(source, include=include, **session_options)
        self._on_output = on_output
        self._strict = strict
        self._asked: dict[str, ApprovalRequest] = {}
        self._tools: list[Tool] | None = None

    @property
    def tools(self) -> list[Tool]:
        """The tools, for ``Agent(tools=...)`` (the session must be open)."""
        if self._tools is None:
            relaxed = {spec.name: spec for spec in self._bridge.specs()}
            self._tools = [
                self._function_tool(spec, relaxed[spec.name].parameters)
                for spec in self.offered(strict=self._strict)
            ]
        return self._tools

    def approval_request(self, item: ToolApprovalItem) -> ApprovalRequest | None:
        """What the session asks about an interrupted call (``None``: not one of ours)."""
        call_id = _call_id(item.raw_item)
        return self._asked.get(call_id) if call_id is not None else None

    def _function_tool(self, spec: ToolSpec, original: dict[str, Any]) -> FunctionTool:
        name = spec.name
        strict = self._strict and spec.parameters.get("additionalProperties") is False
        bridge, asked = self._bridge, self._asked

        async def needs_approval(
            ctx: RunContextWrapper[Any], params: dict[str, Any], call_id: str
        ) -> bool:
            request = await bridge.needs_approval(name, _plain(params, original, strict), call_id)
            if request is None:
                return False
            asked[call_id] = request
            return True

        async def invoke(ctx: ToolContext[Any], arguments: str) -> Any:
            try:
                params = json.loads(arguments) if arguments.strip() else {}
            except ValueError as exc:
                return f"Invalid JSON arguments for {name}: {exc}"
            call_id = ctx.tool_call_id
            answer = None
            if ctx.is_tool_approved(name, call_id):
                sticky = ctx.is_tool_approved(name, _PROBE) is True
                answer = Answer(True, always=sticky and call_id in asked)
            output = None
            if (listener := self._on_output) is not None:

                def output(text: str) -> None:
                    listener(name, call_id, text)

            plain = _plain(params, original, strict)
            done = await bridge.run(name, plain, call_id, answer=answer, on_output=output)
            asked.pop(call_id, None)
            if isinstance(done, ApprovalRequest):
                from qwen_tools.execution import messages

                return messages.non_interactive_denied(name)  # asked after the SDK's check
            return _returned(done)

        return FunctionTool(
            name=name,
            description=spec.description,
            params_json_schema=spec.parameters,
            on_invoke_tool=invoke,
            strict_json_schema=strict,
            needs_approval=needs_approval,
        )


def function_tools(source: Session, **options: Any) -> list[Tool]:
    """The tools of an open :class:`~qwen_tools.Session` (see :class:`QwenTools` for options)."""
    return QwenTools(source, **options).tools


def _plain(params: Any, original: dict[str, Any], strict: bool) -> dict[str, Any]:
    if not isinstance(params, dict):
        return {}
    if not strict:
        return params
    from qwen_tools.registry.strict_schema import drop_strict_nulls

    return drop_strict_nulls(params, original)


def _call_id(raw: Any) -> str | None:
    value = raw.get("call_id") if isinstance(raw, dict) else getattr(raw, "call_id", None)
    return value if isinstance(value, str) else None


def _returned(done: ToolOutcome) -> Any:
    images = [p for p in done.media if isinstance(p, InlineDataPart)]
    if done.is_error or not images:
        return done.text
    out: list[Any] = [ToolOutputText(text=done.text)] if done.text else []
    out.extend(
        ToolOutputImage(image_url=f"data:{part.mime_type};base64,{part.data}") for part in images
    )
    return out
