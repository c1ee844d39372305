"""qwen-tools: Qwen Code's tools system in Python.

The public API is re-exported here and imported lazily, so ``import qwen_tools`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from ._config.config import (
        Config as Config,
    )
    from ._config.file_service import (
        FileDiscoveryService as FileDiscoveryService,
    )
    from ._config.file_service import (
        FileFilteringOptions as FileFilteringOptions,
    )
    from ._config.settings import (
        LoadedSettings as LoadedSettings,
    )
    from ._config.settings import (
        SettingsError as SettingsError,
    )
    from ._config.settings import (
        load_settings as load_settings,
    )
    from ._config.tool_settings import (
        ApprovalMode as ApprovalMode,
    )
    from ._config.tool_settings import (
        McpServerConfig as McpServerConfig,
    )
    from ._config.tool_settings import (
        ToolSettings as ToolSettings,
    )
    from ._config.workspace import (
        WorkspaceContext as WorkspaceContext,
    )
    from ._contract.abort import (
        AbortController as AbortController,
    )
    from ._contract.abort import (
        AbortError as AbortError,
    )
    from ._contract.abort import (
        AbortSignal as AbortSignal,
    )
    from ._contract.confirmation import (
        EditConfirmationDetails as EditConfirmationDetails,
    )
    from ._contract.confirmation import (
        ExecConfirmationDetails as ExecConfirmationDetails,
    )
    from ._contract.confirmation import (
        InfoConfirmationDetails as InfoConfirmationDetails,
    )
    from ._contract.confirmation import (
        McpConfirmationDetails as McpConfirmationDetails,
    )
    from ._contract.confirmation import (
        PlanConfirmationDetails as PlanConfirmationDetails,
    )
    from ._contract.confirmation import (
        ToolCallConfirmationDetails as ToolCallConfirmationDetails,
    )
    from ._contract.confirmation import (
        ToolConfirmationOutcome as ToolConfirmationOutcome,
    )
    from ._contract.confirmation import (
        ToolConfirmationPayload as ToolConfirmationPayload,
    )
    from ._contract.declarative import (
        BaseDeclarativeTool as BaseDeclarativeTool,
    )
    from ._contract.declarative import (
        FunctionDeclaration as FunctionDeclaration,
    )
    from ._contract.display import (
        DiffStat as DiffStat,
    )
    from ._contract.display import (
        FileDiff as FileDiff,
    )
    from ._contract.display import (
        McpToolProgressDisplay as McpToolProgressDisplay,
    )
    from ._contract.display import (
        PlanSummaryDisplay as PlanSummaryDisplay,
    )
    from ._contract.display import (
        TaskExecutionDisplay as TaskExecutionDisplay,
    )
    from ._contract.display import (
        TodoItem as TodoItem,
    )
    from ._contract.display import (
        TodoListDisplay as TodoListDisplay,
    )
    from ._contract.display import (
        ToolResultDisplay as ToolResultDisplay,
    )
    from ._contract.errors import (
        StructuredToolError as StructuredToolError,
    )
    from ._contract.errors import (
        ToolError as ToolError,
    )
    from ._contract.errors import (
        ToolErrorType as ToolErrorType,
    )
    from ._contract.errors import (
        ToolParamsError as ToolParamsError,
    )
    from ._contract.function_response import (
        convert_to_function_response as convert_to_function_response,
    )
    from ._contract.function_response import (
        function_response_for_result as function_response_for_result,
    )
    from ._contract.function_response import (
        response_text as response_text,
    )
    from ._contract.invocation import (
        BaseToolInvocation as BaseToolInvocation,
    )
    from ._contract.invocation import (
        ToolInvocation as ToolInvocation,
    )
    from ._contract.invocation import (
        ToolLocation as ToolLocation,
    )
    from ._contract.invocation import (
        UpdateOutput as UpdateOutput,
    )
    from ._contract.kinds import (
        CONCURRENCY_SAFE_KINDS as CONCURRENCY_SAFE_KINDS,
    )
    from ._contract.kinds import (
        MUTATOR_KINDS as MUTATOR_KINDS,
    )
    from ._contract.kinds import (
        READ_ONLY_KINDS as READ_ONLY_KINDS,
    )
    from ._contract.kinds import (
        Kind as Kind,
    )
    from ._contract.model_tool import (
        FunctionTool as FunctionTool,
    )
    from ._contract.model_tool import (
        ModelDeclarativeTool as ModelDeclarativeTool,
    )
    from ._contract.model_tool import (
        tool as tool,
    )
    from ._contract.modifiable import (
        ModifiableTool as ModifiableTool,
    )
    from ._contract.modifiable import (
        ModifyContext as ModifyContext,
    )
    from ._contract.modifiable import (
        is_modifiable as is_modifiable,
    )
    from ._contract.parts import (
        FileDataPart as FileDataPart,
    )
    from ._contract.parts import (
        FunctionCall as FunctionCall,
    )
    from ._contract.parts import (
        FunctionResponse as FunctionResponse,
    )
    from ._contract.parts import (
        InlineDataPart as InlineDataPart,
    )
    from ._contract.parts import (
        Part as Part,
    )
    from ._contract.parts import (
        PartListUnion as PartListUnion,
    )
    from ._contract.parts import (
        PartUnion as PartUnion,
    )
    from ._contract.parts import (
        TextPart as TextPart,
    )
    from ._contract.parts import (
        part_from_dict as part_from_dict,
    )
    from ._contract.parts import (
        to_parts as to_parts,
    )
    from ._contract.results import (
        ToolResult as ToolResult,
    )
    from ._contract.validation import (
        validate_params as validate_params,
    )
    from ._execution.tool_call import (
        CompletedToolCall as CompletedToolCall,
    )
    from ._execution.tool_call import (
        ToolCallRequest as ToolCallRequest,
    )
    from ._execution.tool_call import (
        run_tool_call as run_tool_call,
    )
    from ._registry.defaults import (
        build_registry as build_registry,
    )
    from ._registry.names import (
        ToolDisplayNames as ToolDisplayNames,
    )
    from ._registry.names import (
        ToolNames as ToolNames,
    )
    from ._registry.names import (
        canonical_tool_name as canonical_tool_name,
    )
    from ._registry.registry import (
        ToolRegistrationError as ToolRegistrationError,
    )
    from ._registry.registry import (
        ToolRegistry as ToolRegistry,
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
}

__all__ = [
    "CONCURRENCY_SAFE_KINDS",
    "MUTATOR_KINDS",
    "READ_ONLY_KINDS",
    "AbortController",
    "AbortError",
    "AbortSignal",
    "ApprovalMode",
    "BaseDeclarativeTool",
    "BaseToolInvocation",
    "CompletedToolCall",
    "Config",
    "DiffStat",
    "EditConfirmationDetails",
    "ExecConfirmationDetails",
    "FileDataPart",
    "FileDiff",
    "FileDiscoveryService",
    "FileFilteringOptions",
    "FunctionCall",
    "FunctionDeclaration",
    "FunctionResponse",
    "FunctionTool",
    "InfoConfirmationDetails",
    "InlineDataPart",
    "Kind",
    "LoadedSettings",
    "McpConfirmationDetails",
    "McpServerConfig",
    "McpToolProgressDisplay",
    "ModelDeclarativeTool",
    "ModifiableTool",
    "ModifyContext",
    "Part",
    "PartListUnion",
    "PartUnion",
    "PlanConfirmationDetails",
    "PlanSummaryDisplay",
    "SettingsError",
    "StructuredToolError",
    "TaskExecutionDisplay",
    "TextPart",
    "TodoItem",
    "TodoListDisplay",
    "ToolCallConfirmationDetails",
    "ToolCallRequest",
    "ToolConfirmationOutcome",
    "ToolConfirmationPayload",
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
    "ToolSettings",
    "UpdateOutput",
    "WorkspaceContext",
    "__version__",
    "build_registry",
    "canonical_tool_name",
    "convert_to_function_response",
    "function_response_for_result",
    "is_modifiable",
    "load_settings",
    "part_from_dict",
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
