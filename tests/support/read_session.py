"""One read_file session for tests: a ``Config`` and its tool, and a file writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.read_file import ReadFileTool
from support.one_call import run_call


class Session:
    """One ``Config`` (one session) and its read_file tool."""

    def __init__(self, root: Path, **settings: Any) -> None:
        self.config = Config(root, settings=ToolSettings(**settings))
        self.tool = ReadFileTool(self.config)

    async def read(self, path: str | Path, **params: Any) -> ToolResult:
        """The tool's result for valid params (invalid ones raise ``ToolParamsError``)."""
        return await self.tool.build_and_execute({"file_path": str(path), **params})

    async def text(self, path: str | Path, **params: Any) -> str:
        """What the model reads after the call, invalid params included."""
        done = await run_call(self.tool, {"file_path": str(path), **params})
        return done.response_text


def write(root: Path, name: str, data: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path
