"""LangChain / LangGraph: our tools as async ``BaseTool``s, approvals as LangGraph interrupts.

```python
from langgraph.prebuilt import ToolNode
from langgraph.types import Command
from qwen_tools.integrations.langchain import QwenTools

async with QwenTools("/path/to/project") as qwen:      # or QwenTools(session)
    graph = build_graph(model.bind_tools(qwen.tools), ToolNode(qwen.tools), checkpointer)
    state = await graph.ainvoke({"messages": [("user", "Tidy up the README")]}, config)
    while "__interrupt__" in state:                   # calls the session wants approved
        prompt = state["__interrupt__"][0].value       # tool, args, confirmation (diff, command)
        state = await graph.ainvoke(Command(resume=ask_the_user(prompt)), config)
```

A call our flow would ask the user about calls :func:`langgraph.types.interrupt` with the
prompt (:meth:`~qwen_tools.integrations.bridge.ApprovalRequest.to_dict`); the graph is resumed
with the answer — ``"once"``, ``"always"``, ``"deny"``, a bool, or ``{"approved": ...,
"always": ..., "message": ...}`` — and the call runs with it (a refusal through our own flow, so
the model reads our text). A node that is resumed runs again from its start: calls that ran in
it are not run twice (each runs in a task of its own, kept by tool call id, that an interrupt
of the node does not cancel). Failures raise
:class:`~langchain_core.tools.ToolException` (the model gets our error text in an ``error``
tool message); images come back as standard image content blocks; live output goes to
LangGraph's custom stream (``stream_mode="custom"``) as ``{"qwen_tool_output": {...}}``.
Outside a graph a call that needs approval is refused, as when no one can be asked.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any

try:
    from langchain_core.tools import BaseTool, ToolException
    from langgraph.types import interrupt
except ImportError as exc:  # the extra is not installed
    raise ImportError(
        f"{__name__} needs langchain-core and langgraph: pip install 'qwen-tools[langchain]'"
    ) from exc

from qwen_tools.contract.parts import InlineDataPart
from qwen_tools.integrations.bridge import (
    Answer,
    ApprovalRequest,
    BridgedTools,
    QwenBridge,
    SessionSource,
    ToolOutcome,
    ToolSpec,
)
from qwen_tools.session.session import Session

__all__ = ["QwenTool", "QwenTools", "langchain_tools"]

_CALL_ID: ContextVar[str | None] = ContextVar("qwen_tools_langchain_call_id", default=None)

_KEPT = 256
"""Finished calls remembered per tool set (a resumed node runs its calls again)."""


class QwenTool(BaseTool):
    """One of our tools as a LangChain tool (async; run it with ``ainvoke`` or a ``ToolNode``)."""

    bridge: Any
    """The :class:`~qwen_tools.integrations.bridge.QwenBridge` the call runs in."""
    finished: Any
    """The calls by tool call id (their tasks), shared by the tool set."""
    handle_tool_error: Any = True

    async def arun(self, tool_input: Any, *args: Any, **kwargs: Any) -> Any:
        """LangChain's ``arun``, with the tool call id kept where :meth:`_arun` can read it."""
        token = _CALL_ID.set(kwargs.get("tool_call_id"))
        try:
            return await super().arun(tool_input, *args, **kwargs)
        finally:
            _CALL_ID.reset(token)

    async def _arun(self, **kwargs: Any) -> Any:
        call_id = _CALL_ID.get()
        key = (self.name, call_id or "")
        output = _writer(self.name, call_id or f"{self.name}_call")
        task = self.finished.get(key) if call_id else None
        if task is None:
            task = self._start(key, kwargs, None, output)
        done = await asyncio.shield(task)
        if isinstance(done, ApprovalRequest) and _in_graph():
            answer = _answer(interrupt(done.to_dict()))  # the graph stops here until resumed
            done = await asyncio.shield(self._start(key, kwargs, answer, output))
        if isinstance(done, ApprovalRequest):  # outside a graph nobody can be asked
            from qwen_tools.execution import messages

            done = ToolOutcome(messages.non_interactive_denied(self.name), is_error=True)
        return _returned(done)

    def _start(
        self, key: tuple[str, str], kwargs: dict[str, Any], answer: Answer | None, output: Any
    ) -> asyncio.Future[ToolOutcome | ApprovalRequest]:
        """Run the call in a task of its own, kept by call id: a node interrupted (or cancelled)
        while the call runs does not cancel it, and the node run again finds its result."""
        bridge: QwenBridge = self.bridge
        call_id = key[1] or f"{self.name}_call"
        run = bridge.run(self.name, kwargs, call_id, answer=answer, on_output=output)
        task = asyncio.ensure_future(run)
        if key[1]:
            self.finished[key] = task
            while len(self.finished) > _KEPT:
                self.finished.popitem(last=False)
        return task

    def _run(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{self.name} is async: use ainvoke (or an async graph)")


class QwenTools(BridgedTools):
    """A session's tools for LangChain and LangGraph."""

    def __init__(
        self,
        source: SessionSource,
        *,
        include: Sequence[str] | None = None,
        **session_options: Any,
    ) -> None:
        """``source``: an open session, or a directory to open one on with ``session_options``
        when entered; ``include``: only these tools."""
        super().__init__(source, include=include, **session_options)
        self._finished: OrderedDict[tuple[str, str], asyncio.Future[Any]] = OrderedDict()
        self._tools: list[QwenTool] | None = None

    @property
    def tools(self) -> list[QwenTool]:
        """The tools (the session must be open)."""
        if self._tools is None:
            self._tools = [self._tool(spec) for spec in self.offered()]
        return self._tools

    def _tool(self, spec: ToolSpec) -> QwenTool:
        return QwenTool(
            name=spec.name,
            description=spec.description,
            args_schema=spec.parameters,
            bridge=self._bridge,
            finished=self._finished,
        )


def langchain_tools(session: Session, **options: Any) -> list[QwenTool]:
    """The tools of an open :class:`~qwen_tools.Session` (see :class:`QwenTools`)."""
    return QwenTools(session, **options).tools


def _in_graph() -> bool:
    """Whether this runs inside a LangGraph run (where interrupts and the stream writer work)."""
    try:
        from langgraph.config import get_stream_writer

        get_stream_writer()
    except (ImportError, RuntimeError, KeyError):
        return False
    return True


def _answer(value: Any) -> Answer:
    """The answer the graph was resumed with; anything that is not one refuses the call."""
    return Answer.from_value(value, default=Answer(False)) or Answer(False)


def _writer(name: str, call_id: str) -> Any:
    """A sink for live output: LangGraph's custom stream, when the call runs in a graph."""
    if not _in_graph():
        return None
    from langgraph.config import get_stream_writer

    write = get_stream_writer()

    def relay(text: str) -> None:
        write({"qwen_tool_output": {"tool": name, "call_id": call_id, "output": text}})

    return relay


def _returned(done: ToolOutcome) -> Any:
    if done.is_error:
        raise ToolException(done.text)
    images = [p for p in done.media if isinstance(p, InlineDataPart)]
    if not images:
        return done.text
    blocks: list[dict[str, Any]] = [{"type": "text", "text": done.text}] if done.text else []
    blocks.extend(
        {"type": "image", "base64": part.data, "mime_type": part.mime_type} for part in images
    )
    return blocks
