"""Built-in tools that work on the local file system, faithful to Qwen Code 0.24.4.

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

:func:`create_builtin_tools` builds one of each for a :class:`~qwen_tools._config.config.Config`.
"""

from __future__ import annotations

from typing import Any

from qwen_tools._config.config import Config
from qwen_tools._contract.declarative import BaseDeclarativeTool

from .edit import EditTool
from .enter_plan_mode import EnterPlanModeTool
from .exit_plan_mode import ExitPlanModeTool
from .glob import GlobTool
from .grep import GrepTool
from .list_directory import ListDirectoryTool
from .read_file import ReadFileTool
from .read_many_files import ReadManyFilesTool
from .save_memory import SaveMemoryTool
from .shell import ShellTool
from .task import TaskTool
from .task_stop import TaskStopTool
from .todo_write import TodoWriteTool
from .web_fetch import WebFetchTool
from .web_search import WebSearchTool, web_search_enabled
from .write_file import WriteFileTool

__all__ = [
    "EditTool",
    "EnterPlanModeTool",
    "ExitPlanModeTool",
    "GlobTool",
    "GrepTool",
    "ListDirectoryTool",
    "ReadFileTool",
    "ReadManyFilesTool",
    "SaveMemoryTool",
    "ShellTool",
    "TaskStopTool",
    "TaskTool",
    "TodoWriteTool",
    "WebFetchTool",
    "WebSearchTool",
    "WriteFileTool",
    "create_builtin_tools",
]


def create_builtin_tools(config: Config) -> list[BaseDeclarativeTool[Any]]:
    """One instance of every built-in tool, bound to ``config``."""
    tools: list[BaseDeclarativeTool[Any]] = [
        ReadFileTool(config),
        ListDirectoryTool(config),
        GlobTool(config),
        GrepTool(config),
        WriteFileTool(config),
        EditTool(config),
        ReadManyFilesTool(config),
        ShellTool(config),
        TaskStopTool(config),
        TodoWriteTool(config),
        SaveMemoryTool(config),
        TaskTool(config),
        WebFetchTool(config),
    ]
    if config.interactive:
        # as in Qwen Code, plan mode needs someone to approve the plan: headless sessions
        # do without these two tools
        tools += [EnterPlanModeTool(config), ExitPlanModeTool(config)]
    if web_search_enabled(config):
        tools.append(WebSearchTool(config))
    return tools
