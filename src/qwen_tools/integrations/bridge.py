"""What the framework adapters share: a session to run calls in, approvals asked of the caller.

A :class:`QwenBridge` holds a :class:`~qwen_tools.Session` — one the application opened, or one
it opens itself on a workspace directory — and runs one call at a time through the session's
whole flow. The session's own ``confirm`` handler is not used: when the flow would ask the user,
:meth:`QwenBridge.run` stops before anything ran and returns an :class:`ApprovalRequest` (what
to show the user); the framework's human-in-the-loop mechanism asks, and the call is run again
with the user's :class:`Answer`. "Always allow" answers are recorded in the session as our
confirmation prompts record them (a shell command's root programs, the tool, or auto-edit for
edits), so later calls they cover are not asked about again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Self

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.kinds import CONCURRENCY_SAFE_KINDS
from qwen_tools.contract.outcome import ToolConfirmationOutcome, ToolConfirmationPayload
from qwen_tools.contract.parts import FileDataPart, InlineDataPart
from qwen_tools.session.session import Session

if TYPE_CHECKING:
    from qwen_tools.contract.confirmation import ToolCallConfirmationDetails
    from qwen_tools.contract.display import ToolResultDisplay
    from qwen_tools.execution.call_types import CompletedToolCall, ToolCallRequest

__all__ = [
    "Answer",
    "ApprovalRequest",
    "BridgedTools",
    "QwenBridge",
    "SessionSource",
    "ToolOutcome",
    "ToolSpec",
    "refusal_text",
]

SessionSource = Session | str | os.PathLike[str]
"""What an adapter is built from: an open session, or a workspace directory to open one on."""


@dataclass(frozen=True, slots=True)
class Answer:
    """The user's answer to an :class:`ApprovalRequest`.

    ``always``: allow calls like this one for the rest of the session (what "always" covers is
    the prompt's: a shell command's programs, an MCP tool, the tool, or every edit).
    ``message``: a refusal's reason, told to the model.
    """

    approved: bool
    always: bool = False
    message: str | None = None

    @property
    def outcome(self) -> ToolConfirmationOutcome:
        """The confirmation outcome this answer stands for."""
        if not self.approved:
            return ToolConfirmationOutcome.CANCEL
        if self.always:
            return ToolConfirmationOutcome.PROCEED_ALWAYS
        return ToolConfirmationOutcome.PROCEED_ONCE

    def to_dict(self) -> dict[str, Any]:
        """As JSON (what the adapters pass through the frameworks' metadata)."""
        return {"approved": self.approved, "always": self.always, "message": self.message}

    @classmethod
    def from_value(cls, value: Any, *, default: Answer | None = None) -> Answer | None:
        """An answer from what a framework hands back: an ``Answer``, a bool, a dict or a word.

        Words: ``"once"``/``"yes"``/``"approve"``, ``"always"``, ``"no"``/``"deny"``/``"reject"``.
        Anything else gives ``default``.
        """
        if isinstance(value, Answer):
            return value
        if isinstance(value, bool):
            return cls(value)
        if isinstance(value, str):
            word = value.strip().lower()
            if word in ("always", "always_allow", "proceed_always"):
                return cls(True, always=True)
            if word in ("once", "yes", "y", "approve", "approved", "allow", "proceed_once"):
                return cls(True)
            if word in ("no", "n", "deny", "denied", "reject", "rejected", "cancel"):
                return cls(False)
            return default
        if isinstance(value, Mapping):
            inner = value.get("qwen_tools")
            if isinstance(inner, Mapping):
                value = inner
            if "approved" not in value:
                return default
            message = value.get("message")
            return cls(
                bool(value["approved"]),
                always=bool(value.get("always", False)),
                message=message if isinstance(message, str) else None,
            )
        return default


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A call the session would ask the user about: the tool, its arguments and the prompt."""

    tool: str
    args: dict[str, Any]
    call_id: str
    confirmation: dict[str, Any]
    """The prompt as JSON (``type``: edit, exec, mcp, info or plan; ``title``; the diff, the
    command, ...), as :meth:`~qwen_tools.ToolCallConfirmationDetails.to_dict` gives it."""

    @property
    def title(self) -> str:
        """The prompt's title (``Confirm Shell Command``, ``Confirm Edit: a.txt`` ...)."""
        return str(self.confirmation.get("title", f"Confirm {self.tool}"))

    def to_dict(self) -> dict[str, Any]:
        """As JSON, with the answers the user may give."""
        return {
            "tool": self.tool,
            "args": self.args,
            "call_id": self.call_id,
            "confirmation": self.confirmation,
            "options": ["once", "always", "deny"],
        }


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    """What the model gets from a finished call: its text, its media, and whether it failed."""

    text: str
    media: tuple[InlineDataPart | FileDataPart, ...] = ()
    is_error: bool = False
    completed: CompletedToolCall | None = field(default=None, compare=False)

    @classmethod
    def of(cls, completed: CompletedToolCall) -> ToolOutcome:
        """The outcome of a completed call (its response text and media parts)."""
        return cls(
            completed.response_text,
            tuple(completed.response.parts),
            completed.status != "success",
            completed,
        )

    @property
    def images(self) -> list[InlineDataPart]:
        """The inline images among the media."""
        return [
            p
            for p in self.media
            if isinstance(p, InlineDataPart) and p.mime_type.startswith("image/")
        ]


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """One tool as a framework declares it."""

    name: str
    description: str
    parameters: dict[str, Any]
    read_only: bool


def refusal_text(answer: Answer) -> str:
    """What the model is told of a call the user refused (as our own flow tells it)."""
    from qwen_tools.contract.function_response import cancelled_response
    from qwen_tools.execution import messages

    reason = answer.message or messages.USER_DID_NOT_ALLOW
    return cancelled_response("", None, reason).response["error"]  # type: ignore[no-any-return]


def output_text(output: ToolResultDisplay) -> str:
    """Live output as text (a shell's screen is already text; other displays become JSON)."""
    if isinstance(output, str):
        return output
    import json

    from qwen_tools.contract.display import display_to_json

    value = display_to_json(output)
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


class QwenBridge:
    """A session (given, or opened on a directory) and the calls the adapters run in it."""

    def __init__(
        self,
        source: SessionSource,
        *,
        approvals: Literal["framework", "session"] = "framework",
        **session_options: Any,
    ) -> None:
        """``source``: an open :class:`~qwen_tools.Session`, or a directory to open one on with
        ``session_options`` (``approval_mode``, ``tools``, ``mcp``, ``confirm`` ...) when
        :meth:`open` runs. ``approvals="session"``: the session's own ``confirm`` handler asks
        (in the call, as in :meth:`Session.call <qwen_tools.Session.call>`) instead of the
        framework's human-in-the-loop mechanism."""
        if approvals not in ("framework", "session"):
            raise ValueError(f"approvals must be 'framework' or 'session', not {approvals!r}")
        self.approvals = approvals
        if isinstance(source, Session):
            if session_options:
                raise ValueError("session options are for a directory: the session is already made")
            self._session: Session | None = source
            self._owned = False
            self._source: str | os.PathLike[str] | None = None
        else:
            self._session = None
            self._owned = True
            self._source = source
        self._options = session_options
        self._opened = 0

    @property
    def session(self) -> Session:
        """The session the calls run in."""
        if self._session is None:
            raise RuntimeError("the tools are not open: use 'async with' on them first")
        return self._session

    async def open(self) -> None:
        """Open the session this bridge owns (nested opens share it)."""
        self._opened += 1
        if self._owned and self._opened == 1:
            session = Session(self._source, **self._options)
            await session.__aenter__()
            self._session = session

    async def close(self) -> None:
        """Close the session this bridge owns once the last open is closed."""
        self._opened = max(0, self._opened - 1)
        if self._owned and self._opened == 0 and self._session is not None:
            session, self._session = self._session, None
            await session.aclose()

    def specs(self, *, strict: bool = False) -> list[ToolSpec]:
        """The session's tools; ``strict``: OpenAI Structured Outputs schemas where they exist."""
        registry = self.session.registry
        entries = self.session.declarations("openai-strict" if strict else "openai")
        specs = []
        for entry in entries:
            function = entry["function"]
            tool = registry.get_tool(function["name"])
            read_only = tool is not None and tool.kind in CONCURRENCY_SAFE_KINDS
            specs.append(
                ToolSpec(
                    function["name"],
                    function.get("description", ""),
                    function["parameters"],
                    read_only,
                )
            )
        return specs

    async def needs_approval(
        self, name: str, args: Mapping[str, Any], call_id: str
    ) -> ApprovalRequest | None:
        """Whether the call would ask the user, without running it (rules, hooks and mode apply)."""
        from qwen_tools.execution.call_types import ToolCallRequest
        from qwen_tools.execution.tool_call import PreparedCall, guarded_approval, prepare_call

        session = self.session
        if self.approvals == "session":
            return None  # the session's handler asks while the call runs
        await session.ensure_tool(name)
        request = ToolCallRequest(name, dict(args), call_id)
        signal = AbortSignal.never()
        prepared = prepare_call(session.registry, request, signal)
        if not isinstance(prepared, PreparedCall):
            return None  # the call fails before approval; running it reports why
        asked: list[ApprovalRequest] = []
        await guarded_approval(session.config, prepared, signal, _asking(asked, None))
        return asked[0] if asked else None

    async def run(
        self,
        name: str,
        args: Mapping[str, Any],
        call_id: str,
        *,
        answer: Answer | None = None,
        on_output: Callable[[str], object] | None = None,
        signal: AbortSignal | None = None,
    ) -> ToolOutcome | ApprovalRequest:
        """Run one call; an :class:`ApprovalRequest` when it needs an answer it was not given.

        ``answer`` answers the call's prompt if it asks (a call that no longer asks — covered by an
        "always" answer since — just runs); ``on_output`` receives its live output as text.
        """
        from qwen_tools.execution.call_types import ToolCallRequest

        session = self.session
        await session.ensure_tool(name)
        asked: list[ApprovalRequest] = []
        if self.approvals == "session" and answer is None:
            scheduler = session.scheduler()  # its confirm handler (none: refused, as in call())
        else:
            scheduler = session.scheduler(confirm=_asking(asked, answer))
        if on_output is not None:
            relay = on_output

            def listen(event: Any) -> None:
                if event.output is not None:
                    relay(output_text(event.output))

            scheduler.subscribe(listen)
        request = ToolCallRequest(name, dict(args), call_id)
        (completed,) = await scheduler.schedule([request], signal)
        if asked:
            return asked[0]
        return ToolOutcome.of(completed)


class BridgedTools:
    """What the adapters' tool sets share: a bridge (opened and closed by ``async with``) and the
    tools they offer (all the session's, or those ``include`` names)."""

    def __init__(
        self,
        source: SessionSource,
        *,
        include: Sequence[str] | None = None,
        **session_options: Any,
    ) -> None:
        self._bridge = QwenBridge(source, **session_options)
        self._include = set(include) if include is not None else None

    @property
    def bridge(self) -> QwenBridge:
        """The session and the calls run in it."""
        return self._bridge

    async def __aenter__(self) -> Self:
        await self._bridge.open()
        return self

    async def __aexit__(self, *args: Any) -> bool | None:
        await self._bridge.close()
        return None

    def offered(self, *, strict: bool = False) -> list[ToolSpec]:
        """The tools offered (the session must be open); ``strict`` as :meth:`QwenBridge.specs`."""
        specs = self._bridge.specs(strict=strict)
        return [spec for spec in specs if self._include is None or spec.name in self._include]


def _asking(asked: list[ApprovalRequest], answer: Answer | None) -> Callable[..., Any]:
    """A confirmation handler: gives ``answer``, or records the prompt and declines the call."""

    async def confirm(
        request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        if answer is not None:
            payload = None
            if not answer.approved and answer.message:
                payload = ToolConfirmationPayload(cancel_message=answer.message)
            return answer.outcome, payload
        args = request.args if isinstance(request.args, dict) else {}
        asked.append(ApprovalRequest(request.name, dict(args), request.call_id, details.to_dict()))
        return ToolConfirmationOutcome.CANCEL, None

    return confirm
