"""One read_file session for tests: a ``Config`` and its tool, and a file writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.function_response import function_response_for_result, response_text
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.read_file import ReadFileTool


class Session:
    """One ``Config`` (one session) and its read_file tool."""

    def __init__(self, root: Path, **settings: Any) -> None:
        self.config = Config(root, settings=ToolSettings(**settings))
        self.tool = ReadFileTool(self.config)

    async def read(self, path: str | Path, **params: Any) -> ToolResult:
        return await self.tool.validate_build_and_execute({"file_path": str(path), **params})

    async def text(self, path: str | Path, **params: Any) -> str:
        result = await self.read(path, **params)
        return response_text(function_response_for_result("read_file", "c1", result))


def write(root: Path, name: str, data: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path
