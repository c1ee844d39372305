"""qwen-tools: Qwen Code's tools system in Python.

The public API is re-exported here and imported lazily, so ``import qwen_tools`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from ._contract.kinds import (
        Kind as Kind,
        MUTATOR_KINDS as MUTATOR_KINDS,
        CONCURRENCY_SAFE_KINDS as CONCURRENCY_SAFE_KINDS,
        READ_ONLY_KINDS as READ_ONLY_KINDS,
    )
    from ._contract.parts import (
        TextPart as TextPart,
        InlineDataPart as InlineDataPart,
        FileDataPart as FileDataPart,
        FunctionCall as FunctionCall,
        FunctionResponse as FunctionResponse,
        Part as Part,
        PartUnion as PartUnion,
        PartListUnion as PartListUnion,
        to_parts as to_parts,
        part_from_dict as part_from_dict,
    )
    from ._contract.display import (
        FileDiff as FileDiff,
        DiffStat as DiffStat,
        TodoItem as TodoItem,
        TodoListDisplay as TodoListDisplay,
        PlanSummaryDisplay as PlanSummaryDisplay,
        McpToolProgressDisplay as McpToolProgressDisplay,
        TaskExecutionDisplay as TaskExecutionDisplay,
        ToolResultDisplay as ToolResultDisplay,
    )
    from ._contract.errors import (
        ToolErrorType as ToolErrorType,
        ToolError as ToolError,
        StructuredToolError as StructuredToolError,
        ToolParamsError as ToolParamsError,
    )
    from ._contract.results import (
        ToolResult as ToolResult,
    )
    from ._contract.abort import (
        AbortSignal as AbortSignal,
        AbortController as AbortController,
        AbortError as AbortError,
    )
    from ._contract.confirmation import (
        ToolConfirmationOutcome as ToolConfirmationOutcome,
        ToolConfirmationPayload as ToolConfirmationPayload,
        EditConfirmationDetails as EditConfirmationDetails,
        ExecConfirmationDetails as ExecConfirmationDetails,
        McpConfirmationDetails as McpConfirmationDetails,
        InfoConfirmationDetails as InfoConfirmationDetails,
        PlanConfirmationDetails as PlanConfirmationDetails,
        ToolCallConfirmationDetails as ToolCallConfirmationDetails,
    )
    from ._contract.invocation import (
        ToolInvocation as ToolInvocation,
        BaseToolInvocation as BaseToolInvocation,
        ToolLocation as ToolLocation,
        UpdateOutput as UpdateOutput,
    )
    from ._contract.declarative import (
        BaseDeclarativeTool as BaseDeclarativeTool,
        FunctionDeclaration as FunctionDeclaration,
    )
    from ._contract.model_tool import (
        ModelDeclarativeTool as ModelDeclarativeTool,
        FunctionTool as FunctionTool,
        tool as tool,
    )
    from ._contract.validation import (
        validate_params as validate_params,
    )
    from ._contract.function_response import (
        function_response_for_result as function_response_for_result,
        convert_to_function_response as convert_to_function_response,
        response_text as response_text,
    )
    from ._registry.registry import (
        ToolRegistry as ToolRegistry,
        ToolRegistrationError as ToolRegistrationError,
    )
    from ._registry.names import (
        ToolNames as ToolNames,
        ToolDisplayNames as ToolDisplayNames,
        canonical_tool_name as canonical_tool_name,
    )
    from ._registry.defaults import (
        build_registry as build_registry,
    )
    from ._config.config import (
        Config as Config,
    )
    from ._config.settings import (
        SettingsError as SettingsError,
        LoadedSettings as LoadedSettings,
        load_settings as load_settings,
    )
    from ._config.tool_settings import (
        ApprovalMode as ApprovalMode,
        ToolSettings as ToolSettings,
        McpServerConfig as McpServerConfig,
    )
    from ._config.workspace import (
        WorkspaceContext as WorkspaceContext,
    )
    from ._config.file_service import (
        FileDiscoveryService as FileDiscoveryService,
        FileFilteringOptions as FileFilteringOptions,
    )
    from ._execution.tool_call import (
        ToolCallRequest as ToolCallRequest,
        CompletedToolCall as CompletedToolCall,
        run_tool_call as run_tool_call,
    )

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
}

__all__ = [
    "__version__",
    "Kind",
    "MUTATOR_KINDS",
    "CONCURRENCY_SAFE_KINDS",
    "READ_ONLY_KINDS",
    "TextPart",
    "InlineDataPart",
    "FileDataPart",
    "FunctionCall",
    "FunctionResponse",
    "Part",
    "PartUnion",
    "PartListUnion",
    "to_parts",
    "part_from_dict",
    "FileDiff",
    "DiffStat",
    "TodoItem",
    "TodoListDisplay",
    "PlanSummaryDisplay",
    "McpToolProgressDisplay",
    "TaskExecutionDisplay",
    "ToolResultDisplay",
    "ToolErrorType",
    "ToolError",
    "StructuredToolError",
    "ToolParamsError",
    "ToolResult",
    "AbortSignal",
    "AbortController",
    "AbortError",
    "ToolConfirmationOutcome",
    "ToolConfirmationPayload",
    "EditConfirmationDetails",
    "ExecConfirmationDetails",
    "McpConfirmationDetails",
    "InfoConfirmationDetails",
    "PlanConfirmationDetails",
    "ToolCallConfirmationDetails",
    "ToolInvocation",
    "BaseToolInvocation",
    "ToolLocation",
    "UpdateOutput",
    "BaseDeclarativeTool",
    "FunctionDeclaration",
    "ModelDeclarativeTool",
    "FunctionTool",
    "tool",
    "validate_params",
    "function_response_for_result",
    "convert_to_function_response",
    "response_text",
    "ToolRegistry",
    "ToolRegistrationError",
    "ToolNames",
    "ToolDisplayNames",
    "canonical_tool_name",
    "build_registry",
    "Config",
    "SettingsError",
    "LoadedSettings",
    "load_settings",
    "ApprovalMode",
    "ToolSettings",
    "McpServerConfig",
    "WorkspaceContext",
    "FileDiscoveryService",
    "FileFilteringOptions",
    "ToolCallRequest",
    "CompletedToolCall",
    "run_tool_call",
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
