"""The built-in tools, faithful to Qwen Code 0.24.4: one module, or one package, per tool.

* :class:`ReadFileTool` — ``read_file`` (display name ``ReadFile``, kind ``read``)
* :class:`ListDirectoryTool` — ``list_directory`` (``ListFiles``, ``search``)
* :class:`GlobTool` — ``glob`` (``Glob``, ``search``)
* :class:`GrepTool` — ``grep_search`` (``Grep``, ``search``)
* :class:`WriteFileTool` — ``write_file`` (``WriteFile``, ``edit``)
* :class:`EditTool` — ``edit`` (``Edit``, ``edit``)
* :class:`ReadManyFilesTool` — ``read_many_files`` (``ReadManyFiles``, ``read``)
* :class:`ShellTool` — ``run_shell_command`` (``Shell``, ``execute``)
* :class:`TaskStopTool` — ``task_stop`` (``TaskStop``, ``other``): stops background shells
* :class:`TodoWriteTool` — ``todo_write`` (``TodoList``, ``think``)
* :class:`SaveMemoryTool` — ``save_memory`` (``SaveMemory``, ``think``)
* :class:`TaskTool` — ``task`` (``Task``, ``agent``): runs a subagent (needs a model)
* :class:`EnterPlanModeTool` / :class:`ExitPlanModeTool` — ``enter_plan_mode`` / ``exit_plan_mode``
* :class:`WebFetchTool` — ``web_fetch`` (``WebFetch``, ``fetch``)
* :class:`WebSearchTool` — ``web_search`` (``WebSearch``, ``search``): when a provider is configured
* :class:`LspTool` — ``lsp`` (``Lsp``, ``other``): when LSP is enabled and a language server is
  configured (:mod:`qwen_tools.lsp`)

A tool's package holds the tool (``tool.py``), its typed params (``params.py``, where they are
typed) and the engines only it uses (``grep/``: ripgrep and the Python engine; ``web_fetch/``:
the HTTP client and the SSRF guard). Shared by several tools: :mod:`.common` (the path check,
glob syntax, file filtering) and :mod:`.file_reading` (one file read as ``read_file`` and
``read_many_files`` show it). The tools' names are in :mod:`qwen_tools.contract.tool_names`.

:func:`create_builtin_tools` builds one of each for a :class:`~qwen_tools.config.config.Config`;
:func:`builtin_tool_factories` names them without importing them (a tool's module, and the
engines it needs, are imported when the tool is first built). The classes are exported lazily,
and so is each tool's params type (a ``TypedDict`` of its schema: :class:`ReadFileParams`, ...).
"""

from __future__ import annotations

import importlib
import sys
from typing import TYPE_CHECKING, Any

from qwen_tools._lazy import lazy_exports
from qwen_tools.config.config import Config
from qwen_tools.config.lsp_settings import lsp_enabled
from qwen_tools.config.web_settings import resolve_web_search
from qwen_tools.contract.tool_factory import ToolFactory
from qwen_tools.contract.tool_names import ToolNames

if TYPE_CHECKING:  # the static view of the lazy exports below
    from qwen_tools.contract.declarative import BaseDeclarativeTool
    from qwen_tools.tools.common.filtering import FileFilteringParams as FileFilteringParams
    from qwen_tools.tools.edit.params import EditParams as EditParams
    from qwen_tools.tools.edit.tool import EditTool as EditTool
    from qwen_tools.tools.enter_plan_mode import (
        EnterPlanModeParams as EnterPlanModeParams,
        EnterPlanModeTool as EnterPlanModeTool,
    )
    from qwen_tools.tools.exit_plan_mode import (
        ExitPlanModeParams as ExitPlanModeParams,
        ExitPlanModeTool as ExitPlanModeTool,
    )
    from qwen_tools.tools.glob.params import GlobParams as GlobParams
    from qwen_tools.tools.glob.tool import GlobTool as GlobTool
    from qwen_tools.tools.grep.params import GrepParams as GrepParams
    from qwen_tools.tools.grep.tool import GrepTool as GrepTool
    from qwen_tools.tools.list_directory import (
        ListDirectoryParams as ListDirectoryParams,
        ListDirectoryTool as ListDirectoryTool,
    )
    from qwen_tools.tools.lsp.params import LspParams as LspParams
    from qwen_tools.tools.lsp.tool import LspTool as LspTool
    from qwen_tools.tools.read_file import (
        ReadFileParams as ReadFileParams,
        ReadFileTool as ReadFileTool,
    )
    from qwen_tools.tools.read_many_files.params import ReadManyFilesParams as ReadManyFilesParams
    from qwen_tools.tools.read_many_files.tool import ReadManyFilesTool as ReadManyFilesTool
    from qwen_tools.tools.save_memory.params import SaveMemoryParams as SaveMemoryParams
    from qwen_tools.tools.save_memory.tool import SaveMemoryTool as SaveMemoryTool
    from qwen_tools.tools.shell.params import ShellParams as ShellParams
    from qwen_tools.tools.shell.tool import ShellTool as ShellTool
    from qwen_tools.tools.task.params import TaskParams as TaskParams
    from qwen_tools.tools.task.tool import TaskTool as TaskTool
    from qwen_tools.tools.task_stop import (
        TaskStopParams as TaskStopParams,
        TaskStopTool as TaskStopTool,
    )
    from qwen_tools.tools.todo_write.params import (
        TodoItemParams as TodoItemParams,
        TodoWriteParams as TodoWriteParams,
    )
    from qwen_tools.tools.todo_write.tool import TodoWriteTool as TodoWriteTool
    from qwen_tools.tools.web_fetch.params import WebFetchParams as WebFetchParams
    from qwen_tools.tools.web_fetch.tool import WebFetchTool as WebFetchTool
    from qwen_tools.tools.web_search.params import WebSearchParams as WebSearchParams
    from qwen_tools.tools.web_search.tool import WebSearchTool as WebSearchTool
    from qwen_tools.tools.write_file.params import WriteFileParams as WriteFileParams
    from qwen_tools.tools.write_file.tool import WriteFileTool as WriteFileTool

_TOOLS: dict[str, tuple[str, str]] = {
    # tool name: (module, class), in the order the tools are registered
    ToolNames.READ_FILE: ("read_file", "ReadFileTool"),
    ToolNames.LIST_DIRECTORY: ("list_directory", "ListDirectoryTool"),
    ToolNames.GLOB: ("glob.tool", "GlobTool"),
    ToolNames.GREP: ("grep.tool", "GrepTool"),
    ToolNames.WRITE_FILE: ("write_file.tool", "WriteFileTool"),
    ToolNames.EDIT: ("edit.tool", "EditTool"),
    ToolNames.READ_MANY_FILES: ("read_many_files.tool", "ReadManyFilesTool"),
    ToolNames.SHELL: ("shell.tool", "ShellTool"),
    ToolNames.TASK_STOP: ("task_stop", "TaskStopTool"),
    ToolNames.TODO_WRITE: ("todo_write.tool", "TodoWriteTool"),
    ToolNames.MEMORY: ("save_memory.tool", "SaveMemoryTool"),
    ToolNames.TASK: ("task.tool", "TaskTool"),
    ToolNames.WEB_FETCH: ("web_fetch.tool", "WebFetchTool"),
    ToolNames.ENTER_PLAN_MODE: ("enter_plan_mode", "EnterPlanModeTool"),
    ToolNames.EXIT_PLAN_MODE: ("exit_plan_mode", "ExitPlanModeTool"),
    ToolNames.WEB_SEARCH: ("web_search.tool", "WebSearchTool"),
    ToolNames.LSP: ("lsp.tool", "LspTool"),
}
_PARAMS: dict[str, str] = {
    # params type: the module that defines it
    "ReadFileParams": "read_file",
    "ListDirectoryParams": "list_directory",
    "GlobParams": "glob.params",
    "GrepParams": "grep.params",
    "WriteFileParams": "write_file.params",
    "EditParams": "edit.params",
    "ReadManyFilesParams": "read_many_files.params",
    "FileFilteringParams": "common.filtering",
    "ShellParams": "shell.params",
    "TaskStopParams": "task_stop",
    "TodoWriteParams": "todo_write.params",
    "TodoItemParams": "todo_write.params",
    "SaveMemoryParams": "save_memory.params",
    "TaskParams": "task.params",
    "WebFetchParams": "web_fetch.params",
    "EnterPlanModeParams": "enter_plan_mode",
    "ExitPlanModeParams": "exit_plan_mode",
    "WebSearchParams": "web_search.params",
    "LspParams": "lsp.params",
}
_EXPORTS = {cls: module for module, cls in _TOOLS.values()} | _PARAMS

__all__ = [
    "EditParams",
    "EditTool",
    "EnterPlanModeParams",
    "EnterPlanModeTool",
    "ExitPlanModeParams",
    "ExitPlanModeTool",
    "FileFilteringParams",
    "GlobParams",
    "GlobTool",
    "GrepParams",
    "GrepTool",
    "ListDirectoryParams",
    "ListDirectoryTool",
    "LspParams",
    "LspTool",
    "ReadFileParams",
    "ReadFileTool",
    "ReadManyFilesParams",
    "ReadManyFilesTool",
    "SaveMemoryParams",
    "SaveMemoryTool",
    "ShellParams",
    "ShellTool",
    "TaskParams",
    "TaskStopParams",
    "TaskStopTool",
    "TaskTool",
    "TodoItemParams",
    "TodoWriteParams",
    "TodoWriteTool",
    "WebFetchParams",
    "WebFetchTool",
    "WebSearchParams",
    "WebSearchTool",
    "WriteFileParams",
    "WriteFileTool",
    "builtin_tool_factories",
    "create_builtin_tools",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)


def __dir__() -> list[str]:
    return sorted(__all__)


def _builder(config: Config, name: str) -> ToolFactory:
    module, cls = _TOOLS[name]

    def build() -> BaseDeclarativeTool[Any]:
        loaded = sys.modules.get(f"{__name__}.{module}")  # a session's tool, after the first
        if loaded is None:
            loaded = importlib.import_module(f".{module}", __name__)
        tool_class: Any = getattr(loaded, cls)
        tool: BaseDeclarativeTool[Any] = tool_class(config)
        return tool

    return ToolFactory(name, build)


def builtin_tool_factories(config: Config) -> list[ToolFactory]:
    """The built-in tools ``config`` offers, by name, each built (and imported) on first use."""
    names = list(_TOOLS)[:13]
    if config.interactive:
        # as in Qwen Code, plan mode needs someone to approve the plan: headless sessions
        # do without these two tools
        names += [ToolNames.ENTER_PLAN_MODE, ToolNames.EXIT_PLAN_MODE]
    if resolve_web_search(config.settings.web.search, None) is not None:
        # web_search is registered when some provider is configured (web_search_enabled)
        names.append(ToolNames.WEB_SEARCH)
    if lsp_enabled(config):
        from qwen_tools.tools.lsp.enabled import lsp_server_configs

        if lsp_server_configs(config):  # lsp.enabled (or --experimental-lsp) and a server
            names.append(ToolNames.LSP)
    return [_builder(config, name) for name in names]


def create_builtin_tools(config: Config) -> list[BaseDeclarativeTool[Any]]:
    """One instance of every built-in tool, bound to ``config``."""
    return [factory.build() for factory in builtin_tool_factories(config)]
