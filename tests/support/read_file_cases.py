"""Shared fixtures of the read_file tests: sample texts and a one-call helper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.function_response import function_response_for_result, response_text
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools import ReadFileTool

NOTES = "".join(
    f"line {i}: {word}\n"
    for i, word in enumerate(
        [
            "alpha",
            "beta",
            "gamma",
            "delta TODO check this",
            "epsilon",
            "zeta",
            "eta",
            "theta TODO and this",
            "iota",
            "kappa",
        ],
        start=1,
    )
)
FRENCH = (
    "Le café est très bon, n'est-ce pas? Il fait beau aujourd'hui à Paris, et les élèves "
    "sont déjà partis.\n"
) * 3
CONTROLS = "".join(map(chr, range(9))) + "\n" + "".join(map(chr, range(11, 32)))
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"


def make_tool(root: Path, **settings: Any) -> ReadFileTool:
    return ReadFileTool(Config(root, settings=ToolSettings(**settings)))


async def read(root: Path, params: dict[str, Any], **settings: Any) -> ToolResult:
    """The tool's result for valid params (invalid ones raise ``ToolParamsError``)."""
    return await make_tool(root, **settings).build_and_execute(params)


def model_text(result: ToolResult) -> str:
    return response_text(function_response_for_result("read_file", "c1", result))


def write(root: Path, name: str, data: str | bytes) -> str:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_bytes(data.encode("utf-8"))
    return str(path)
