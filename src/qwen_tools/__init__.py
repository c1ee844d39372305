"""qwen-tools: Qwen Code's tools system in Python.

The public API is re-exported here and imported lazily, so ``import qwen_tools`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from qwen_tools._version import __version__

if TYPE_CHECKING:  # the static view of the lazy exports below
    from qwen_tools._agent.events import (
        AgentEvent as AgentEvent,
        Finished as Finished,
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
    from qwen_tools._agent.loop import AgentLoop as AgentLoop, iter_events as iter_events
    from qwen_tools._agent.protocol import (
        SubagentProgress as SubagentProgress,
        SubagentReport as SubagentReport,
        SubagentRequest as SubagentRequest,
        SubagentRunner as SubagentRunner,
    )
    from qwen_tools._agent.session import AgentSession as AgentSession
    from qwen_tools._config.config import Config as Config
    from qwen_tools._config.file_service import (
        FileDiscoveryService as FileDiscoveryService,
        FileFilteringOptions as FileFilteringOptions,
    )
    from qwen_tools._config.settings import (
        LoadedSettings as LoadedSettings,
        SettingsError as SettingsError,
        load_settings as load_settings,
    )
    from qwen_tools._config.tool_settings import (
        ApprovalMode as ApprovalMode,
        McpServerConfig as McpServerConfig,
        ToolSettings as ToolSettings,
    )
    from qwen_tools._config.workspace import WorkspaceContext as WorkspaceContext
    from qwen_tools._contract.abort import (
        AbortController as AbortController,
        AbortError as AbortError,
        AbortSignal as AbortSignal,
    )
    from qwen_tools._contract.confirmation import (
        EditConfirmationDetails as EditConfirmationDetails,
        ExecConfirmationDetails as ExecConfirmationDetails,
        InfoConfirmationDetails as InfoConfirmationDetails,
        McpConfirmationDetails as McpConfirmationDetails,
        PlanConfirmationDetails as PlanConfirmationDetails,
        ToolCallConfirmationDetails as ToolCallConfirmationDetails,
        ToolConfirmationOutcome as ToolConfirmationOutcome,
        ToolConfirmationPayload as ToolConfirmationPayload,
    )
    from qwen_tools._contract.declarative import (
        BaseDeclarativeTool as BaseDeclarativeTool,
        FunctionDeclaration as FunctionDeclaration,
    )
    from qwen_tools._contract.display import (
        DiffStat as DiffStat,
        FileDiff as FileDiff,
        McpToolProgressDisplay as McpToolProgressDisplay,
        PlanSummaryDisplay as PlanSummaryDisplay,
        TaskExecutionDisplay as TaskExecutionDisplay,
        TodoItem as TodoItem,
        TodoListDisplay as TodoListDisplay,
        ToolResultDisplay as ToolResultDisplay,
    )
    from qwen_tools._contract.errors import (
        StructuredToolError as StructuredToolError,
        ToolError as ToolError,
        ToolErrorType as ToolErrorType,
        ToolParamsError as ToolParamsError,
    )
    from qwen_tools._contract.function_response import (
        convert_to_function_response as convert_to_function_response,
        function_response_for_result as function_response_for_result,
        response_text as response_text,
    )
    from qwen_tools._contract.invocation import (
        BaseToolInvocation as BaseToolInvocation,
        ToolInvocation as ToolInvocation,
        ToolLocation as ToolLocation,
        UpdateOutput as UpdateOutput,
    )
    from qwen_tools._contract.kinds import (
        CONCURRENCY_SAFE_KINDS as CONCURRENCY_SAFE_KINDS,
        MUTATOR_KINDS as MUTATOR_KINDS,
        READ_ONLY_KINDS as READ_ONLY_KINDS,
        Kind as Kind,
    )
    from qwen_tools._contract.model_tool import (
        FunctionTool as FunctionTool,
        ModelDeclarativeTool as ModelDeclarativeTool,
        tool as tool,
    )
    from qwen_tools._contract.modifiable import (
        ModifiableTool as ModifiableTool,
        ModifyContext as ModifyContext,
        is_modifiable as is_modifiable,
    )
    from qwen_tools._contract.parts import (
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
    from qwen_tools._contract.results import ToolResult as ToolResult
    from qwen_tools._contract.tool_context import ToolContext as ToolContext
    from qwen_tools._contract.validation import validate_params as validate_params
    from qwen_tools._execution.scheduler import (
        ToolCallEvent as ToolCallEvent,
        ToolCallStatus as ToolCallStatus,
        ToolScheduler as ToolScheduler,
    )
    from qwen_tools._execution.tool_call import (
        CompletedToolCall as CompletedToolCall,
        ToolCallRequest as ToolCallRequest,
        run_tool_call as run_tool_call,
    )
    from qwen_tools._mcp.manager import McpManager as McpManager
    from qwen_tools._model.client import ChatClient as ChatClient
    from qwen_tools._model.errors import ModelError as ModelError, ModelHTTPError as ModelHTTPError
    from qwen_tools._model.model_config import (
        ModelConfig as ModelConfig,
        ModelNotConfigured as ModelNotConfigured,
        resolve_model_config as resolve_model_config,
    )
    from qwen_tools._model.protocol import ContentGenerator as ContentGenerator
    from qwen_tools._model.retry import RetryPolicy as RetryPolicy
    from qwen_tools._registry.defaults import build_registry as build_registry
    from qwen_tools._registry.names import (
        ToolDisplayNames as ToolDisplayNames,
        ToolNames as ToolNames,
        canonical_tool_name as canonical_tool_name,
    )
    from qwen_tools._registry.registry import (
        ToolRegistrationError as ToolRegistrationError,
        ToolRegistry as ToolRegistry,
    )
    from qwen_tools._session.session import Session as Session

_EXPORTS: dict[str, str] = {
    "Kind": "_contract.kinds",
    "MUTATOR_KINDS": "_contract.kinds",
    "CONCURRENCY_SAFE_KINDS": "_contract.kinds",
    "READ_ONLY_KINDS": "_contract.kinds",
    "TextPart": "_contract.parts",
    "InlineDataPart": "_contract.parts",
    "FileDataPart": "_contract.parts",
    "FunctionCall": "_contract.parts",
    "FunctionResponse": "_contract.parts",
    "Part": "_contract.parts",
    "PartUnion": "_contract.parts",
    "PartListUnion": "_contract.parts",
    "to_parts": "_contract.parts",
    "part_from_dict": "_contract.parts",
    "FileDiff": "_contract.display",
    "DiffStat": "_contract.display",
    "TodoItem": "_contract.display",
    "TodoListDisplay": "_contract.display",
    "PlanSummaryDisplay": "_contract.display",
    "McpToolProgressDisplay": "_contract.display",
    "TaskExecutionDisplay": "_contract.display",
    "ToolResultDisplay": "_contract.display",
    "ToolErrorType": "_contract.errors",
    "ToolError": "_contract.errors",
    "StructuredToolError": "_contract.errors",
    "ToolParamsError": "_contract.errors",
    "ToolResult": "_contract.results",
    "AbortSignal": "_contract.abort",
    "AbortController": "_contract.abort",
    "AbortError": "_contract.abort",
    "ToolConfirmationOutcome": "_contract.confirmation",
    "ToolConfirmationPayload": "_contract.confirmation",
    "EditConfirmationDetails": "_contract.confirmation",
    "ExecConfirmationDetails": "_contract.confirmation",
    "McpConfirmationDetails": "_contract.confirmation",
    "InfoConfirmationDetails": "_contract.confirmation",
    "PlanConfirmationDetails": "_contract.confirmation",
    "ToolCallConfirmationDetails": "_contract.confirmation",
    "ToolInvocation": "_contract.invocation",
    "BaseToolInvocation": "_contract.invocation",
    "ToolLocation": "_contract.invocation",
    "UpdateOutput": "_contract.invocation",
    "BaseDeclarativeTool": "_contract.declarative",
    "FunctionDeclaration": "_contract.declarative",
    "ModifiableTool": "_contract.modifiable",
    "ModifyContext": "_contract.modifiable",
    "is_modifiable": "_contract.modifiable",
    "ModelDeclarativeTool": "_contract.model_tool",
    "FunctionTool": "_contract.model_tool",
    "tool": "_contract.model_tool",
    "validate_params": "_contract.validation",
    "function_response_for_result": "_contract.function_response",
    "convert_to_function_response": "_contract.function_response",
    "response_text": "_contract.function_response",
    "ToolRegistry": "_registry.registry",
    "ToolRegistrationError": "_registry.registry",
    "ToolNames": "_registry.names",
    "ToolDisplayNames": "_registry.names",
    "canonical_tool_name": "_registry.names",
    "build_registry": "_registry.defaults",
    "Config": "_config.config",
    "SettingsError": "_config.settings",
    "LoadedSettings": "_config.settings",
    "load_settings": "_config.settings",
    "ApprovalMode": "_config.tool_settings",
    "ToolSettings": "_config.tool_settings",
    "McpServerConfig": "_config.tool_settings",
    "WorkspaceContext": "_config.workspace",
    "FileDiscoveryService": "_config.file_service",
    "FileFilteringOptions": "_config.file_service",
    "ToolCallRequest": "_execution.tool_call",
    "CompletedToolCall": "_execution.tool_call",
    "run_tool_call": "_execution.tool_call",
    "ToolScheduler": "_execution.scheduler",
    "ToolCallEvent": "_execution.scheduler",
    "ToolCallStatus": "_execution.scheduler",
    "McpManager": "_mcp.manager",
    "Session": "_session.session",
    "ToolContext": "_contract.tool_context",
    "AgentSession": "_agent.session",
    "AgentLoop": "_agent.loop",
    "iter_events": "_agent.loop",
    "StopReason": "_agent.events",
    "TurnStarted": "_agent.events",
    "TextDelta": "_agent.events",
    "ThinkingDelta": "_agent.events",
    "Retrying": "_agent.events",
    "ModelTurn": "_agent.events",
    "ToolCallScheduled": "_agent.events",
    "ToolCallAwaitingApproval": "_agent.events",
    "ToolCallStarted": "_agent.events",
    "ToolCallOutput": "_agent.events",
    "ToolCallFinished": "_agent.events",
    "TurnFinished": "_agent.events",
    "Finished": "_agent.events",
    "AgentEvent": "_agent.events",
    "SubagentRunner": "_agent.protocol",
    "SubagentRequest": "_agent.protocol",
    "SubagentProgress": "_agent.protocol",
    "SubagentReport": "_agent.protocol",
    "ContentGenerator": "_model.protocol",
    "ChatClient": "_model.client",
    "ModelConfig": "_model.model_config",
    "ModelNotConfigured": "_model.model_config",
    "resolve_model_config": "_model.model_config",
    "RetryPolicy": "_model.retry",
    "ModelError": "_model.errors",
    "ModelHTTPError": "_model.errors",
}

__all__ = [
    "CONCURRENCY_SAFE_KINDS",
    "MUTATOR_KINDS",
    "READ_ONLY_KINDS",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "AgentEvent",
    "AgentLoop",
    "AgentSession",
    "ApprovalMode",
    "BaseDeclarativeTool",
    "BaseToolInvocation",
    "ChatClient",
    "CompletedToolCall",
    "Config",
    "ContentGenerator",
    "DiffStat",
    "EditConfirmationDetails",
    "ExecConfirmationDetails",
    "FileDataPart",
    "FileDiff",
    "FileDiscoveryService",
    "FileFilteringOptions",
    "Finished",
    "FunctionCall",
    "FunctionDeclaration",
    "FunctionResponse",
    "FunctionTool",
    "InfoConfirmationDetails",
    "InlineDataPart",
    "Kind",
    "LoadedSettings",
    "McpConfirmationDetails",
    "McpManager",
    "McpServerConfig",
    "McpToolProgressDisplay",
    "ModelConfig",
    "ModelDeclarativeTool",
    "ModelError",
    "ModelHTTPError",
    "ModelNotConfigured",
    "ModelTurn",
    "ModifiableTool",
    "ModifyContext",
    "Part",
    "PartListUnion",
    "PartUnion",
    "PlanConfirmationDetails",
    "PlanSummaryDisplay",
    "RetryPolicy",
    "Retrying",
    "Session",
    "SettingsError",
    "StopReason",
    "StructuredToolError",
    "SubagentProgress",
    "SubagentReport",
    "SubagentRequest",
    "SubagentRunner",
    "TaskExecutionDisplay",
    "TextDelta",
    "TextPart",
    "ThinkingDelta",
    "TodoItem",
    "TodoListDisplay",
    "ToolCallAwaitingApproval",
    "ToolCallConfirmationDetails",
    "ToolCallEvent",
    "ToolCallFinished",
    "ToolCallOutput",
    "ToolCallRequest",
    "ToolCallScheduled",
    "ToolCallStarted",
    "ToolCallStatus",
    "ToolConfirmationOutcome",
    "ToolConfirmationPayload",
    "ToolContext",
    "ToolDisplayNames",
    "ToolError",
    "ToolErrorType",
    "ToolInvocation",
    "ToolLocation",
    "ToolNames",
    "ToolParamsError",
    "ToolRegistrationError",
    "ToolRegistry",
    "ToolResult",
    "ToolResultDisplay",
    "ToolScheduler",
    "ToolSettings",
    "TurnFinished",
    "TurnStarted",
    "UpdateOutput",
    "WorkspaceContext",
    "__version__",
    "build_registry",
    "canonical_tool_name",
    "convert_to_function_response",
    "function_response_for_result",
    "is_modifiable",
    "iter_events",
    "load_settings",
    "part_from_dict",
    "resolve_model_config",
    "response_text",
    "run_tool_call",
    "to_parts",
    "tool",
    "validate_params",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'qwen_tools' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
