"""qwen-tools: Qwen Code's tools system in Python.

The public API is re-exported here and imported lazily, so ``import qwen_tools`` stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from qwen_tools._lazy import lazy_exports
from qwen_tools._version import __version__

if TYPE_CHECKING:  # the static view of the lazy exports below
    from qwen_tools.agent.events import (
        AgentEvent as AgentEvent,
        Finished as Finished,
        HistoryCompressed as HistoryCompressed,
        ModelTurn as ModelTurn,
        Retrying as Retrying,
        StopReason as StopReason,
        TextDelta as TextDelta,
        ThinkingDelta as ThinkingDelta,
        ToolCallAwaitingApproval as ToolCallAwaitingApproval,
        ToolCallFinished as ToolCallFinished,
        ToolCallOutput as ToolCallOutput,
        ToolCallScheduled as ToolCallScheduled,
        ToolCallStarted as ToolCallStarted,
        TurnFinished as TurnFinished,
        TurnStarted as TurnStarted,
    )
    from qwen_tools.agent.loop import AgentLoop as AgentLoop, iter_events as iter_events
    from qwen_tools.agent.session import AgentSession as AgentSession
    from qwen_tools.config.config import Config as Config
    from qwen_tools.config.file_service import (
        FileDiscoveryService as FileDiscoveryService,
        FileFilteringOptions as FileFilteringOptions,
    )
    from qwen_tools.config.model_settings import resolve_model_config as resolve_model_config
    from qwen_tools.config.settings import (
        LoadedSettings as LoadedSettings,
        SettingsError as SettingsError,
        load_settings as load_settings,
    )
    from qwen_tools.config.tool_settings import (
        ApprovalMode as ApprovalMode,
        McpServerConfig as McpServerConfig,
        ToolSettings as ToolSettings,
    )
    from qwen_tools.config.workspace import WorkspaceContext as WorkspaceContext
    from qwen_tools.contract.abort import (
        AbortController as AbortController,
        AbortError as AbortError,
        AbortSignal as AbortSignal,
    )
    from qwen_tools.contract.confirmation import (
        EditConfirmationDetails as EditConfirmationDetails,
        ExecConfirmationDetails as ExecConfirmationDetails,
        InfoConfirmationDetails as InfoConfirmationDetails,
        McpConfirmationDetails as McpConfirmationDetails,
        PlanConfirmationDetails as PlanConfirmationDetails,
        ToolCallConfirmationDetails as ToolCallConfirmationDetails,
        ToolConfirmationOutcome as ToolConfirmationOutcome,
        ToolConfirmationPayload as ToolConfirmationPayload,
    )
    from qwen_tools.contract.declarative import (
        BaseDeclarativeTool as BaseDeclarativeTool,
        FunctionDeclaration as FunctionDeclaration,
    )
    from qwen_tools.contract.display import (
        DiffStat as DiffStat,
        FileDiff as FileDiff,
        McpToolProgressDisplay as McpToolProgressDisplay,
        PlanSummaryDisplay as PlanSummaryDisplay,
        TaskExecutionDisplay as TaskExecutionDisplay,
        TodoItem as TodoItem,
        TodoListDisplay as TodoListDisplay,
        ToolResultDisplay as ToolResultDisplay,
    )
    from qwen_tools.contract.errors import (
        StructuredToolError as StructuredToolError,
        ToolError as ToolError,
        ToolErrorType as ToolErrorType,
        ToolParamsError as ToolParamsError,
    )
    from qwen_tools.contract.function_response import (
        convert_to_function_response as convert_to_function_response,
        function_response_for_result as function_response_for_result,
        response_text as response_text,
    )
    from qwen_tools.contract.invocation import (
        BaseToolInvocation as BaseToolInvocation,
        ToolInvocation as ToolInvocation,
        ToolLocation as ToolLocation,
        UpdateOutput as UpdateOutput,
    )
    from qwen_tools.contract.kinds import (
        CONCURRENCY_SAFE_KINDS as CONCURRENCY_SAFE_KINDS,
        MUTATOR_KINDS as MUTATOR_KINDS,
        READ_ONLY_KINDS as READ_ONLY_KINDS,
        Kind as Kind,
    )
    from qwen_tools.contract.model_tool import ModelDeclarativeTool as ModelDeclarativeTool
    from qwen_tools.contract.modifiable import (
        ModifiableTool as ModifiableTool,
        ModifyContext as ModifyContext,
        is_modifiable as is_modifiable,
    )
    from qwen_tools.contract.parts import (
        FileDataPart as FileDataPart,
        FunctionCall as FunctionCall,
        FunctionResponse as FunctionResponse,
        InlineDataPart as InlineDataPart,
        Part as Part,
        PartListUnion as PartListUnion,
        PartUnion as PartUnion,
        TextPart as TextPart,
        part_from_dict as part_from_dict,
        to_parts as to_parts,
    )
    from qwen_tools.contract.results import ToolResult as ToolResult
    from qwen_tools.contract.tool_names import (
        ToolDisplayNames as ToolDisplayNames,
        ToolNames as ToolNames,
        canonical_tool_name as canonical_tool_name,
    )
    from qwen_tools.contract.validation import validate_params as validate_params
    from qwen_tools.execution.call_types import ConfirmationHandler as ConfirmationHandler
    from qwen_tools.execution.scheduler import (
        ToolCallEvent as ToolCallEvent,
        ToolCallStatus as ToolCallStatus,
        ToolScheduler as ToolScheduler,
    )
    from qwen_tools.execution.tool_call import (
        CompletedToolCall as CompletedToolCall,
        ToolCallRequest as ToolCallRequest,
        run_tool_call as run_tool_call,
    )
    from qwen_tools.function_tools.context import ToolContext as ToolContext
    from qwen_tools.function_tools.function_tool import FunctionTool as FunctionTool, tool as tool
    from qwen_tools.function_tools.running import check_cancelled as check_cancelled
    from qwen_tools.mcp.deferred_tools import model_declarations as model_declarations
    from qwen_tools.mcp.manager import McpManager as McpManager
    from qwen_tools.mcp.registration import register_mcp_tools as register_mcp_tools
    from qwen_tools.model.client import ChatClient as ChatClient
    from qwen_tools.model.errors import ModelError as ModelError, ModelHTTPError as ModelHTTPError
    from qwen_tools.model.model_config import (
        ModelConfig as ModelConfig,
        ModelNotConfigured as ModelNotConfigured,
    )
    from qwen_tools.model.protocol import ContentGenerator as ContentGenerator
    from qwen_tools.model.retry import RetryPolicy as RetryPolicy
    from qwen_tools.registry.registry import (
        ToolRegistrationError as ToolRegistrationError,
        ToolRegistry as ToolRegistry,
    )
    from qwen_tools.registry.strict_schema import drop_strict_nulls as drop_strict_nulls
    from qwen_tools.session.default_registry import (
        build_registry as build_registry,
        build_registry_async as build_registry_async,
    )
    from qwen_tools.session.session import Session as Session
    from qwen_tools.subagents.protocol import (
        SubagentProgress as SubagentProgress,
        SubagentReport as SubagentReport,
        SubagentRequest as SubagentRequest,
        SubagentRunner as SubagentRunner,
    )
    from qwen_tools.tools.todo_write.tool import read_todos as read_todos

_EXPORTS: dict[str, str] = {
    "Kind": "contract.kinds",
    "MUTATOR_KINDS": "contract.kinds",
    "CONCURRENCY_SAFE_KINDS": "contract.kinds",
    "READ_ONLY_KINDS": "contract.kinds",
    "TextPart": "contract.parts",
    "InlineDataPart": "contract.parts",
    "FileDataPart": "contract.parts",
    "FunctionCall": "contract.parts",
    "FunctionResponse": "contract.parts",
    "Part": "contract.parts",
    "PartUnion": "contract.parts",
    "PartListUnion": "contract.parts",
    "to_parts": "contract.parts",
    "part_from_dict": "contract.parts",
    "FileDiff": "contract.display",
    "DiffStat": "contract.display",
    "TodoItem": "contract.display",
    "TodoListDisplay": "contract.display",
    "PlanSummaryDisplay": "contract.display",
    "McpToolProgressDisplay": "contract.display",
    "TaskExecutionDisplay": "contract.display",
    "ToolResultDisplay": "contract.display",
    "ToolErrorType": "contract.errors",
    "ToolError": "contract.errors",
    "StructuredToolError": "contract.errors",
    "ToolParamsError": "contract.errors",
    "ToolResult": "contract.results",
    "AbortSignal": "contract.abort",
    "AbortController": "contract.abort",
    "AbortError": "contract.abort",
    "ToolConfirmationOutcome": "contract.confirmation",
    "ToolConfirmationPayload": "contract.confirmation",
    "EditConfirmationDetails": "contract.confirmation",
    "ExecConfirmationDetails": "contract.confirmation",
    "McpConfirmationDetails": "contract.confirmation",
    "InfoConfirmationDetails": "contract.confirmation",
    "PlanConfirmationDetails": "contract.confirmation",
    "ToolCallConfirmationDetails": "contract.confirmation",
    "ToolInvocation": "contract.invocation",
    "BaseToolInvocation": "contract.invocation",
    "ToolLocation": "contract.invocation",
    "UpdateOutput": "contract.invocation",
    "BaseDeclarativeTool": "contract.declarative",
    "FunctionDeclaration": "contract.declarative",
    "ModifiableTool": "contract.modifiable",
    "ModifyContext": "contract.modifiable",
    "is_modifiable": "contract.modifiable",
    "ModelDeclarativeTool": "contract.model_tool",
    "FunctionTool": "function_tools.function_tool",
    "tool": "function_tools.function_tool",
    "check_cancelled": "function_tools.running",
    "validate_params": "contract.validation",
    "function_response_for_result": "contract.function_response",
    "convert_to_function_response": "contract.function_response",
    "response_text": "contract.function_response",
    "ToolRegistry": "registry.registry",
    "ToolRegistrationError": "registry.registry",
    "ToolNames": "contract.tool_names",
    "ToolDisplayNames": "contract.tool_names",
    "canonical_tool_name": "contract.tool_names",
    "build_registry": "session.default_registry",
    "build_registry_async": "session.default_registry",
    "drop_strict_nulls": "registry.strict_schema",
    "register_mcp_tools": "mcp.registration",
    "model_declarations": "mcp.deferred_tools",
    "read_todos": "tools.todo_write.tool",
    "ConfirmationHandler": "execution.call_types",
    "Config": "config.config",
    "SettingsError": "config.settings",
    "LoadedSettings": "config.settings",
    "load_settings": "config.settings",
    "ApprovalMode": "config.tool_settings",
    "ToolSettings": "config.tool_settings",
    "McpServerConfig": "config.tool_settings",
    "WorkspaceContext": "config.workspace",
    "FileDiscoveryService": "config.file_service",
    "FileFilteringOptions": "config.file_service",
    "ToolCallRequest": "execution.tool_call",
    "CompletedToolCall": "execution.tool_call",
    "run_tool_call": "execution.tool_call",
    "ToolScheduler": "execution.scheduler",
    "ToolCallEvent": "execution.scheduler",
    "ToolCallStatus": "execution.scheduler",
    "McpManager": "mcp.manager",
    "Session": "session.session",
    "ToolContext": "function_tools.context",
    "AgentSession": "agent.session",
    "AgentLoop": "agent.loop",
    "iter_events": "agent.loop",
    "StopReason": "agent.events",
    "TurnStarted": "agent.events",
    "TextDelta": "agent.events",
    "ThinkingDelta": "agent.events",
    "Retrying": "agent.events",
    "ModelTurn": "agent.events",
    "ToolCallScheduled": "agent.events",
    "ToolCallAwaitingApproval": "agent.events",
    "ToolCallStarted": "agent.events",
    "ToolCallOutput": "agent.events",
    "ToolCallFinished": "agent.events",
    "TurnFinished": "agent.events",
    "HistoryCompressed": "agent.events",
    "Finished": "agent.events",
    "AgentEvent": "agent.events",
    "SubagentRunner": "subagents.protocol",
    "SubagentRequest": "subagents.protocol",
    "SubagentProgress": "subagents.protocol",
    "SubagentReport": "subagents.protocol",
    "ContentGenerator": "model.protocol",
    "ChatClient": "model.client",
    "ModelConfig": "model.model_config",
    "ModelNotConfigured": "model.model_config",
    "resolve_model_config": "config.model_settings",
    "RetryPolicy": "model.retry",
    "ModelError": "model.errors",
    "ModelHTTPError": "model.errors",
}

__all__ = ["__version__", *_EXPORTS]  # every lazy export of the table above, and the version


__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)
