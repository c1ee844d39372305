"""``@tool`` and ``FunctionTool``: a plain Python function (sync or async) as a tool.

The parameters' schema comes from the signature and the Google-style docstring. A parameter
named ``signal`` (or annotated :class:`~qwen_tools.AbortSignal`) receives the call's abort
signal, one named ``update_output`` (or annotated :data:`~qwen_tools.UpdateOutput`) a callback
for live output, and one annotated :class:`~qwen_tools.ToolContext` the session's context; all
three are left out of the schema. What the return value becomes is in :mod:`.returns`; timeouts,
cancellation and worker threads are in :mod:`.running`.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, cast, get_type_hints, overload

from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.confirmation import InfoConfirmationDetails, ToolCallConfirmationDetails
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.invocation import BaseToolInvocation, ToolInvocation, UpdateOutput
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.model_tool import ModelDeclarativeTool
from qwen_tools.contract.results import ToolResult
from qwen_tools.function_tools.context import ToolContext
from qwen_tools.function_tools.returns import as_result
from qwen_tools.function_tools.running import run_function

if TYPE_CHECKING:
    from pydantic import BaseModel


ToolFunction = Callable[..., Any]
"""A function made into a tool: sync or async, returning anything :mod:`.returns` accepts."""

_SIGNAL, _OUTPUT = "signal", "update_output"


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


class _Display:
    """Stands for ``ToolResultDisplay`` when annotations are resolved (it is not imported here)."""


_RESOLVED_UPDATE_OUTPUT = Callable[[_Display], None]


def _hints(fn: ToolFunction) -> dict[str, Any]:
    """The function's resolved annotations (:data:`UpdateOutput` resolves to a known alias)."""
    return get_type_hints(fn, localns={"ToolResultDisplay": _Display})


def _is_update_output(annotation: Any, hint: Any) -> bool:
    if hint is not None and hint in (UpdateOutput, _RESOLVED_UPDATE_OUTPUT):
        return True
    return isinstance(annotation, str) and annotation.split(".")[-1] == "UpdateOutput"


def _context_param(fn: ToolFunction) -> str | None:
    """The parameter annotated :class:`ToolContext` (filled in by the session), if any."""
    hints = _hints(fn)
    for param in inspect.signature(fn).parameters.values():
        if hints.get(param.name) is ToolContext:
            return param.name
    return None


def _injected_params(fn: ToolFunction) -> dict[str, str]:
    """The parameters the call fills in: ``{"signal": name, "update_output": name}`` as present.

    Found by name, or by annotation (:class:`AbortSignal`, :data:`UpdateOutput`).
    """
    hints = _hints(fn)
    found: dict[str, str] = {}
    for param in inspect.signature(fn).parameters.values():
        hint = hints.get(param.name)
        if param.name == _SIGNAL or hint is AbortSignal:
            found.setdefault(_SIGNAL, param.name)
        elif param.name == _OUTPUT or _is_update_output(param.annotation, hint):
            found.setdefault(_OUTPUT, param.name)
    return found


def _model_for(fn: ToolFunction, name: str, arg_docs: dict[str, str]) -> type[BaseModel]:
    from pydantic import ConfigDict, Field, create_model

    hints = _hints(fn)
    injected = set(_injected_params(fn).values())
    fields: dict[str, Any] = {}
    for param in inspect.signature(fn).parameters.values():
        if param.name in injected or param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
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
        timeout: float | None = None,
        abandon_on_cancel: bool = False,
    ) -> None:
        tool_name = name or fn.__name__
        summary, arg_docs = _docstring_parts(fn.__doc__)
        model = _model_for(fn, tool_name, arg_docs)
        injected = _injected_params(fn)
        super().__init__(
            tool_name,
            display_name or "".join(p.title() for p in tool_name.split("_")),
            description or summary or tool_name,
            kind,
            model,
            can_update_output=_OUTPUT in injected,
        )
        if timeout is not None and timeout <= 0:
            raise ValueError(f"timeout must be positive, got {timeout!r}")
        self.fn = fn
        self.requires_confirmation = requires_confirmation
        self.timeout = timeout
        """Seconds a call may run before it fails with a timeout (``None``: no limit)."""
        self.abandon_on_cancel = abandon_on_cancel
        """A sync function is not waited for once its call is cancelled (see :mod:`.running`)."""
        self._signal_param = injected.get(_SIGNAL)
        self._output_param = injected.get(_OUTPUT)
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
        tool = self.tool
        kwargs: dict[str, Any] = {
            k: getattr(self.params, k) for k in type(self.params).model_fields
        }
        if tool._output_param is not None:
            kwargs[tool._output_param] = update_output or _discard
        if tool.context_param is not None:
            if tool.context is None:
                message = (
                    f"Tool {tool.name} needs a session context: "
                    "register it with a qwen_tools.Session"
                )
                return ToolResult.failure(message, ToolErrorType.EXECUTION_FAILED)
            kwargs[tool.context_param] = tool.context
        value = await run_function(
            tool.fn,
            kwargs,
            name=tool.name,
            signal=signal,
            timeout=tool.timeout,
            abandon_on_cancel=tool.abandon_on_cancel,
            signal_param=tool._signal_param,
            output_param=tool._output_param,
        )
        return as_result(value)


def _discard(_output: Any) -> None:
    """Live output nobody listens to."""


@overload
def tool(fn: ToolFunction, /) -> FunctionTool: ...


@overload
def tool(
    fn: None = None,
    /,
    *,
    name: str | None = None,
    display_name: str | None = None,
    description: str | None = None,
    kind: Kind = Kind.OTHER,
    requires_confirmation: bool = False,
    timeout: float | None = None,
    abandon_on_cancel: bool = False,
) -> Callable[[ToolFunction], FunctionTool]: ...


def tool(
    fn: ToolFunction | None = None,
    /,
    *,
    name: str | None = None,
    display_name: str | None = None,
    description: str | None = None,
    kind: Kind = Kind.OTHER,
    requires_confirmation: bool = False,
    timeout: float | None = None,
    abandon_on_cancel: bool = False,
) -> FunctionTool | Callable[[ToolFunction], FunctionTool]:
    """Make a tool from a function: params from its signature, descriptions from its docstring.

    The function may be sync or async and may accept ``signal``, ``update_output`` and a
    parameter annotated :class:`~qwen_tools.ToolContext` (the session's context, left out of
    the schema). It returns a string, parts, a full :class:`ToolResult`, images, or anything
    JSON can carry (pydantic models and dataclasses included). ``timeout``: seconds a call may
    run; ``abandon_on_cancel``: a sync function is not waited for once its call is cancelled
    (:mod:`.running`). Usable bare (``@tool``) or with options.
    """

    def wrap(function: ToolFunction) -> FunctionTool:
        return FunctionTool(
            function,
            name=name,
            display_name=display_name,
            description=description,
            kind=kind,
            requires_confirmation=requires_confirmation,
            timeout=timeout,
            abandon_on_cancel=abandon_on_cancel,
        )

    return wrap(fn) if fn is not None else wrap
