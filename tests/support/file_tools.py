"""Running the file tools (read_file, write_file, edit) through the call pipeline in tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qwen_tools import (
    ApprovalMode,
    CompletedToolCall,
    Config,
    ToolCallRequest,
    ToolRegistry,
    run_tool_call,
)
from qwen_tools.tools.edit.tool import EditTool
from qwen_tools.tools.read_file import ReadFileTool
from qwen_tools.tools.write_file.tool import WriteFileTool

NEVER_READ = (
    "File {p} has not been read in this session. Use the read_file tool first to load the "
    "current content (read the full file \u2014 overwriting replaces every byte, so any unseen "
    "bytes would be discarded) before overwriting it."
)


def registry(config: Config) -> ToolRegistry:
    return ToolRegistry([ReadFileTool(config), WriteFileTool(config), EditTool(config)])


async def call(
    config: Config,
    args: dict[str, Any],
    name: str = "write_file",
    *,
    confirm: Any = None,
) -> CompletedToolCall:
    return await run_tool_call(
        registry(config), config, ToolCallRequest(name, args), confirm=confirm
    )


def yolo(root: Path, **kwargs: Any) -> Config:
    return Config(root, approval_mode=ApprovalMode.YOLO, **kwargs)


async def read_first(config: Config, path: Path) -> None:
    done = await call(config, {"file_path": str(path)}, "read_file")
    assert done.status == "success", done.response_text
