"""``@tool`` and ``FunctionTool``: a plain Python function (sync or async) as a tool.

The parameters' schema comes from the signature and the Google-style docstring; ``signal`` and
``update_output`` parameters receive the call's abort signal and live-output callback, and a
parameter annotated :class:`~qwen_tools.ToolContext` receives the session's context. All three
are left out of the schema.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, cast, get_type_hints

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import InfoConfirmationDetails, ToolCallConfirmationDetails
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.model_tool import ModelDeclarativeTool
from qwen_tools.contract.parts import Part
from qwen_tools.contract.results import ToolResult
from qwen_tools.function_tools.context import ToolContext

if TYPE_CHECKING:
    from pydantic import BaseModel


ToolFunctionResult = str | ToolResult | Part | list[str | Part] | None
ToolFunction = Callable[..., ToolFunctionResult | Awaitable[ToolFunctionResult]]

_INJECTED = {"signal", "update_output"}


def _docstring_parts(doc: str | None) -> tuple[str, dict[str, str]]:
    """Summary text and per-argument descriptions from a Google-style docstring."""
    if not doc:
        return "", {}
    text = inspect.cleandoc(doc)
    summary, _, rest = text.partition("\nArgs:\n")
    args: dict[str, str] = {}
    current: str | None = None
    for line in rest.splitlines():
        match = re.match(r"^\s{2,}(\w+)(?:\s*\([^)]*\))?:\s*(.*)$", line)
        if match and (
            current is None or (line.startswith("    ") and not line.startswith("      "))
        ):
            current = match.group(1)
            args[current] = match.group(2).strip()
        elif current and line.strip() and line.startswith("      "):
            args[current] = f"{args[current]} {line.strip()}".strip()
        elif line.strip() and not line.startswith(" "):
            break
    return summary.strip(), args


def _context_param(fn: ToolFunction) -> str | None:
    """The parameter annotated :class:`ToolContext` (filled in by the session), if any."""
    hints = get_type_hints(fn)
    for param in inspect.signature(fn).parameters.values():
        if hints.get(param.name) is ToolContext:
            return param.name
    return None


def _model_for(fn: ToolFunction, name: str, arg_docs: dict[str, str]) -> type[BaseModel]:
    from pydantic import ConfigDict, Field, create_model

    hints = get_type_hints(fn)
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.name in _INJECTED or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            continue
        if hints.get(param.name) is ToolContext:
            continue
        annotation = hints.get(param.name, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (annotation, Field(default, description=arg_docs.get(param.name)))
    model_name = "".join(part.title() for part in name.split("_")) + "Params"
    return cast(
        "type[BaseModel]",
        create_model(model_name, __config__=ConfigDict(extra="forbid"), **fields),
    )


class FunctionTool(ModelDeclarativeTool["BaseModel"]):
    """A tool made from a Python function by :func:`tool`."""

    def __init__(
        self,
        fn: ToolFunction,
        *,
        name: str | None = None,
        display_name: str | None = None,
        description: str | None = None,
        kind: Kind = Kind.OTHER,
        requires_confirmation: bool = False,
    ) -> None:
        tool_name = name or fn.__name__
        summary, arg_docs = _docstring_parts(fn.__doc__)
        model = _model_for(fn, tool_name, arg_docs)
        super().__init__(
            tool_name,
            display_name or "".join(p.title() for p in tool_name.split("_")),
            description or summary or tool_name,
            kind,
            model,
        )
        self.fn = fn
        self.requires_confirmation = requires_confirmation
        accepted = inspect.signature(fn).parameters
        self._injected = {n for n in _INJECTED if n in accepted}
        self.context_param = _context_param(fn)
        """The parameter that receives the session's :class:`ToolContext` (``None``: none)."""
        self.context: ToolContext | None = None
        """The context of the session this copy is registered in (see :meth:`bind`)."""

    def bind(self, context: ToolContext) -> FunctionTool:
        """A copy of this tool for one session, whose calls receive ``context``."""
        bound = copy.copy(self)
        bound.context = context
        return bound

    def create_invocation(self, params: BaseModel) -> ToolInvocation[BaseModel]:
        """Wrap the validated params in a :class:`FunctionToolInvocation`."""
        return FunctionToolInvocation(self, params)


class FunctionToolInvocation(BaseToolInvocation["BaseModel"]):
    """One call of a :class:`FunctionTool`."""

    def __init__(self, tool: FunctionTool, params: BaseModel) -> None:
        super().__init__(params)
        self.tool = tool

    def get_description(self) -> str:
        """The call's arguments as compact JSON."""
        return json.dumps(self.params.model_dump(mode="json"), ensure_ascii=False)

    async def should_confirm_execute(
        self, signal: AbortSignal
    ) -> ToolCallConfirmationDetails | Literal[False]:
        """An info confirmation when the tool was declared with ``requires_confirmation``."""
        if not self.tool.requires_confirmation:
            return False
        return InfoConfirmationDetails(
            title=f"Confirm {self.tool.display_name}", prompt=self.get_description()
        )

    async def execute(
        self, signal: AbortSignal, update_output: UpdateOutput | None = None
    ) -> ToolResult:
        """Call the function (sync functions run in a worker thread) and wrap its return value."""
        kwargs: dict[str, Any] = {
            k: getattr(self.params, k) for k in type(self.params).model_fields
        }
        if "signal" in self.tool._injected:
            kwargs["signal"] = signal
        if "update_output" in self.tool._injected:
            kwargs["update_output"] = update_output
        if self.tool.context_param is not None:
            if self.tool.context is None:
                message = (
                    f"Tool {self.tool.name} needs a session context: "
                    "register it with a qwen_tools.Session"
                )
                return ToolResult.failure(message, ToolErrorType.EXECUTION_FAILED)
            kwargs[self.tool.context_param] = self.tool.context
        if inspect.iscoroutinefunction(self.tool.fn):
            value = await self.tool.fn(**kwargs)
        else:
            import anyio.to_thread

            value = await anyio.to_thread.run_sync(lambda: self.tool.fn(**kwargs))
            if inspect.isawaitable(value):
                value = await value
        return _as_result(cast(ToolFunctionResult, value))


def _as_result(value: ToolFunctionResult) -> ToolResult:
    if isinstance(value, ToolResult):
        return value
    if value is None:
        return ToolResult(llm_content="")
    if isinstance(value, str):
        return ToolResult(llm_content=value, return_display=value)
    return ToolResult(llm_content=value)


def tool(
    fn: ToolFunction | None = None,
    *,
    name: str | None = None,
    display_name: str | None = None,
    description: str | None = None,
    kind: Kind = Kind.OTHER,
    requires_confirmation: bool = False,
) -> Any:
    """Make a tool from a function: params from its signature, descriptions from its docstring.

    The function may be sync or async and may accept ``signal``, ``update_output`` and a
    parameter annotated :class:`~qwen_tools.ToolContext` (the session's context, left out of
    the schema). It returns a string, parts, or a full :class:`ToolResult`. Usable bare
    (``@tool``) or with options.
    """

    def wrap(function: ToolFunction) -> FunctionTool:
        return FunctionTool(
            function,
            name=name,
            display_name=display_name,
            description=description,
            kind=kind,
            requires_confirmation=requires_confirmation,
        )

    return wrap(fn) if fn is not None else wrap
