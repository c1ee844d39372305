"""One call through the whole flow, with a raw-schema tool, a pydantic tool and a function tool."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel, Field, field_validator

from qwen_tools import (
    AbortController,
    AbortSignal,
    ApprovalMode,
    BaseDeclarativeTool,
    BaseToolInvocation,
    Config,
    EditConfirmationDetails,
    InfoConfirmationDetails,
    Kind,
    ModelDeclarativeTool,
    StructuredToolError,
    ToolCallConfirmationDetails,
    ToolCallRequest,
    ToolConfirmationOutcome,
    ToolConfirmationPayload,
    ToolErrorType,
    ToolInvocation,
    ToolRegistrationError,
    ToolRegistry,
    ToolResult,
    UpdateOutput,
    run_tool_call,
    tool,
)

# -- a tool declared with a raw JSON schema -------------------------------------------------

ECHO_SCHEMA = {
    "type": "object",
    "properties": {"text": {"type": "string"}, "times": {"type": "integer", "minimum": 1}},
    "required": ["text"],
}


class EchoInvocation(BaseToolInvocation[dict[str, Any]]):
    def get_description(self) -> str:
        return f"echo {self.params['text']!r}"

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        if self.params.get("times", 1) > 3:
            return InfoConfirmationDetails(title="Confirm Echo", prompt=self.get_description())
        return False

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        if self.params["text"] == "explode":
            raise RuntimeError("kaboom")
        if self.params["text"] == "structured":
            raise StructuredToolError("no such thing", ToolErrorType.FILE_NOT_FOUND)
        if self.params["text"] == "slow":
            await signal.wait()
            return ToolResult(llm_content="finished anyway")
        times: int = self.params.get("times", 1)
        return ToolResult(
            llm_content=" ".join([self.params["text"]] * times), return_display="echoed"
        )


class EchoTool(BaseDeclarativeTool[dict[str, Any]]):
    def __init__(self) -> None:
        super().__init__("echo", "Echo", "Repeat some text.", Kind.READ, ECHO_SCHEMA)

    def validate_tool_param_values(self, params: dict[str, Any]) -> str | None:
        return "text must not be empty" if params["text"] == "" else None

    def create_invocation(self, params: dict[str, Any]) -> ToolInvocation[dict[str, Any]]:
        return EchoInvocation(params)


# -- a tool declared with a pydantic model --------------------------------------------------


class NoteParams(BaseModel):
    file_name: str = Field(description="Name of the note file.")
    body: str
    priority: int = 1

    @field_validator("file_name")
    @classmethod
    def no_slashes(cls, value: str) -> str:
        if "/" in value:
            raise ValueError("file_name must not contain '/'")
        return value


class NoteInvocation(BaseToolInvocation[NoteParams]):
    def __init__(self, params: NoteParams, directory: Path) -> None:
        super().__init__(params)
        self.path = directory / params.file_name

    def get_description(self) -> str:
        return f"write {self.params.file_name}"

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        return EditConfirmationDetails(
            title=f"Confirm Write: {self.params.file_name}",
            file_name=self.params.file_name,
            file_path=str(self.path),
            file_diff=f"+{self.params.body}",
            original_content=None,
            new_content=self.params.body,
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        self.path.write_text(self.params.body * self.params.priority)
        return ToolResult(llm_content=f"wrote {self.path.name}")


class NoteTool(ModelDeclarativeTool[NoteParams]):
    def __init__(self, directory: Path) -> None:
        super().__init__("write_note", "WriteNote", "Write a note file.", Kind.EDIT, NoteParams)
        self.directory = directory

    def create_invocation(self, params: NoteParams) -> ToolInvocation[NoteParams]:
        return NoteInvocation(params, self.directory)


@tool(kind=Kind.READ)
def add(a: int, b: int = 2) -> str:
    """Add two integers.

    Args:
        a: The first addend.
        b: The second addend.
    """
    return str(a + b)


# -- fixtures -------------------------------------------------------------------------------


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(tmp_path)


@pytest.fixture
def registry(tmp_path: Path) -> ToolRegistry:
    return ToolRegistry([EchoTool(), NoteTool(tmp_path), add])


class Answers:
    """A confirmation handler that answers from a list and records what it was asked."""

    def __init__(
        self, *outcomes: ToolConfirmationOutcome, payload: ToolConfirmationPayload | None = None
    ) -> None:
        self.outcomes = list(outcomes)
        self.asked: list[ToolCallConfirmationDetails] = []
        self.payload = payload

    async def __call__(
        self, request: ToolCallRequest, details: ToolCallConfirmationDetails
    ) -> tuple[ToolConfirmationOutcome, ToolConfirmationPayload | None]:
        self.asked.append(details)
        return self.outcomes.pop(0), self.payload


# -- tests ----------------------------------------------------------------------------------


def test_declarations_are_sorted_and_typed(registry: ToolRegistry) -> None:
    decls = registry.get_function_declarations()
    assert [d.name for d in decls] == ["add", "echo", "write_note"]
    note = decls[2].parameters_json_schema
    assert note["required"] == ["file_name", "body"]
    assert note["properties"]["priority"] == {"type": "integer", "default": 1}
    assert note["properties"]["file_name"]["description"] == "Name of the note file."
    add_schema = decls[0].parameters_json_schema
    assert add_schema["properties"]["a"] == {"type": "integer", "description": "The first addend."}
    assert decls[0].description == "Add two integers."


async def test_raw_schema_tool_runs(registry: ToolRegistry, config: Config) -> None:
    done = await run_tool_call(
        registry, config, ToolCallRequest("echo", {"text": "hi", "times": "2"}, "c1")
    )
    assert done.status == "success"
    assert done.response_text == "hi hi"
    assert done.response.to_dict()["functionResponse"]["id"] == "c1"
    assert done.display == "echoed"


async def test_pydantic_tool_gets_typed_coerced_params(
    registry: ToolRegistry, config: Config, tmp_path: Path
) -> None:
    config.approval_mode = ApprovalMode.YOLO
    done = await run_tool_call(
        registry,
        config,
        ToolCallRequest("write_note", {"file_name": "n.txt", "body": "ab", "priority": "3"}),
    )
    assert done.status == "success", done.response_text
    assert (tmp_path / "n.txt").read_text() == "ababab"


async def test_function_tool(registry: ToolRegistry, config: Config) -> None:
    done = await run_tool_call(registry, config, ToolCallRequest("add", {"a": "40"}))
    assert done.response_text == "42"


@pytest.mark.parametrize(
    ("name", "args", "message"),
    [
        ("echo", {}, "params must have required property 'text'"),
        ("echo", {"text": "x", "times": 0}, "params/times must be >= 1"),
        ("echo", {"text": ""}, "text must not be empty"),
        ("write_note", {"body": "b"}, "params must have required property 'file_name'"),
        (
            "write_note",
            {"file_name": "a/b", "body": "b"},
            "params/file_name file_name must not contain '/'",
        ),
        ("add", {"a": 1, "c": 3}, "params must NOT have additional properties"),
        ("echo", "not-an-object", "Value of params must be an object"),
    ],
)
async def test_bad_params_give_reference_messages(
    registry: ToolRegistry, config: Config, name: str, args: Any, message: str
) -> None:
    done = await run_tool_call(registry, config, ToolCallRequest(name, args))
    assert done.status == "error"
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS
    assert done.response_text == message
    assert done.response.response == {"error": message}


async def test_unknown_tool_suggests_names(registry: ToolRegistry, config: Config) -> None:
    done = await run_tool_call(registry, config, ToolCallRequest("ecoh", {}))
    assert done.error_type is ToolErrorType.TOOL_NOT_REGISTERED
    assert done.response_text == (
        'Tool "ecoh" not found in registry. Tools must use the exact names that are registered. '
        'Did you mean one of: "echo", "add", "write_note"?'
    )


async def test_confirmation_proceed_once_and_cancel(
    registry: ToolRegistry, config: Config, tmp_path: Path
) -> None:
    answers = Answers(ToolConfirmationOutcome.PROCEED_ONCE, ToolConfirmationOutcome.CANCEL)
    args = {"file_name": "a.txt", "body": "x"}
    first = await run_tool_call(
        registry, config, ToolCallRequest("write_note", args), confirm=answers
    )
    assert first.status == "success"
    assert first.outcome is ToolConfirmationOutcome.PROCEED_ONCE
    assert isinstance(answers.asked[0], EditConfirmationDetails)
    (tmp_path / "a.txt").unlink()
    second = await run_tool_call(
        registry, config, ToolCallRequest("write_note", args), confirm=answers
    )
    assert second.status == "cancelled"
    assert second.response_text == "[Operation Cancelled] Reason: User did not allow tool call"
    assert not (tmp_path / "a.txt").exists()


async def test_cancel_message_from_payload(registry: ToolRegistry, config: Config) -> None:
    answers = Answers(
        ToolConfirmationOutcome.CANCEL, payload=ToolConfirmationPayload(cancel_message="not now")
    )
    done = await run_tool_call(
        registry, config, ToolCallRequest("echo", {"text": "x", "times": 5}), confirm=answers
    )
    assert done.response_text == "[Operation Cancelled] Reason: not now"


async def test_without_a_user_calls_needing_approval_are_refused(
    registry: ToolRegistry, config: Config
) -> None:
    done = await run_tool_call(
        registry, config, ToolCallRequest("write_note", {"file_name": "a", "body": "b"})
    )
    assert done.error_type is ToolErrorType.EXECUTION_DENIED
    assert done.response_text == (
        'Qwen Code requires permission to use "write_note", but that permission was declined '
        "(non-interactive mode cannot prompt for confirmation)."
    )


async def test_approval_modes(registry: ToolRegistry, config: Config) -> None:
    note = {"file_name": "m.txt", "body": "b"}
    config.approval_mode = ApprovalMode.AUTO_EDIT
    assert (
        await run_tool_call(registry, config, ToolCallRequest("write_note", note))
    ).status == "success"
    assert (
        await run_tool_call(registry, config, ToolCallRequest("echo", {"text": "x", "times": 4}))
    ).status == "success"
    config.approval_mode = ApprovalMode.PLAN
    blocked = await run_tool_call(registry, config, ToolCallRequest("write_note", note))
    assert blocked.error_type is ToolErrorType.EXECUTION_DENIED
    assert blocked.response_text.startswith(
        'Tool blocked by plan mode: "write_note" is not a read-only tool.'
    )
    assert blocked.display == "Plan mode blocked a non-read-only tool call."
    answers = Answers(ToolConfirmationOutcome.PROCEED_ONCE)
    info = await run_tool_call(
        registry, config, ToolCallRequest("echo", {"text": "x", "times": 4}), confirm=answers
    )
    assert info.status == "success" and len(answers.asked) == 1
    config.approval_mode = ApprovalMode.YOLO
    assert (
        await run_tool_call(registry, config, ToolCallRequest("write_note", note))
    ).status == "success"


async def test_always_allow_is_remembered(registry: ToolRegistry, config: Config) -> None:
    answers = Answers(ToolConfirmationOutcome.PROCEED_ALWAYS)
    call = ToolCallRequest("echo", {"text": "x", "times": 4})
    assert (await run_tool_call(registry, config, call, confirm=answers)).status == "success"
    assert (await run_tool_call(registry, config, call, confirm=answers)).status == "success"
    assert len(answers.asked) == 1
    edit_answers = Answers(ToolConfirmationOutcome.PROCEED_ALWAYS)
    note = ToolCallRequest("write_note", {"file_name": "q", "body": "b"})
    await run_tool_call(registry, config, note, confirm=edit_answers)
    assert config.approval_mode is ApprovalMode.AUTO_EDIT


async def test_settings_allowed_skips_the_prompt(tmp_path: Path) -> None:
    from qwen_tools import ToolSettings

    config = Config(tmp_path, settings=ToolSettings(allowed=("echo",)))
    registry = ToolRegistry([EchoTool()])
    done = await run_tool_call(registry, config, ToolCallRequest("echo", {"text": "x", "times": 9}))
    assert done.status == "success"


async def test_exceptions_become_errors(registry: ToolRegistry, config: Config) -> None:
    boom = await run_tool_call(registry, config, ToolCallRequest("echo", {"text": "explode"}))
    assert boom.error_type is ToolErrorType.UNHANDLED_EXCEPTION and boom.response_text == "kaboom"
    typed = await run_tool_call(registry, config, ToolCallRequest("echo", {"text": "structured"}))
    assert (
        typed.error_type is ToolErrorType.FILE_NOT_FOUND and typed.response_text == "no such thing"
    )


async def test_cancellation_before_and_during_execution(
    registry: ToolRegistry, config: Config
) -> None:
    early = AbortController()
    early.abort()
    before = await run_tool_call(
        registry, config, ToolCallRequest("echo", {"text": "x"}), early.signal
    )
    assert (
        before.response_text
        == "[Operation Cancelled] Reason: Tool call cancelled before execution."
    )
    controller = AbortController()
    asyncio.get_running_loop().call_later(0.05, controller.abort)
    during = await run_tool_call(
        registry, config, ToolCallRequest("echo", {"text": "slow"}), controller.signal
    )
    assert during.status == "cancelled"
    assert during.response_text == (
        "[Operation Cancelled] Reason: The tool had already completed; its output was discarded. "
        "User intentionally cancelled. Stop and await further instructions; do not retry."
    )


def test_registry_rejects_clashes_but_lets_a_server_refresh(tmp_path: Path) -> None:
    registry = ToolRegistry([EchoTool()])
    with pytest.raises(ToolRegistrationError, match='"echo" is already registered'):
        registry.register_tool(EchoTool())
    first, second = EchoTool(), EchoTool()
    for t in (first, second):
        t.name, t.server_name = "srv__echo", "srv"
    registry.register_tool(first)
    registry.register_tool(second)
    assert registry.get_tool("srv__echo") is second
    assert [t.name for t in registry.get_tools_by_server("srv")] == ["srv__echo"]
    assert [t.name for t in registry.remove_tools_by_server("srv")] == ["srv__echo"]
    assert "srv__echo" not in registry


def test_legacy_mcp_names_reach_the_tool_through_its_aliases() -> None:
    tool = EchoTool()
    tool.name, tool.server_name = "srv__echo", "srv"
    tool.aliases = ("mcp__srv__echo",)  # type: ignore[attr-defined]
    registry = ToolRegistry([tool])
    assert registry.get_tool("mcp__srv__echo") is tool
    assert registry.get_tool("mcp__srv__other") is None
    assert registry.get_tool("srv__echo") is tool
