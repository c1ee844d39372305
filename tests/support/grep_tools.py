"""Helpers for the ``grep_search`` tests: the probe tree and running a call on one engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.abort import AbortSignal
from qwen_tools.contract.errors import ToolParamsError
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.grep.tool import GrepTool

ENGINES = ["ripgrep", "python"]


def write(root: Path, name: str, content: str | bytes) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def build_probe_tree(root: Path) -> Path:
    """The probe fixture the expectations were recorded on (``root`` is a git repository)."""
    write(root, "notes.txt", "alpha\nTODO one\nbeta\n")
    write(root, "src/a.py", "def f():\n    return 1  # TODO\n")
    write(root, "src/b.py", "x = 1\ninterface{}\n")
    write(root, ".hidden/h.txt", "TODO hidden\n")
    write(root, ".env", "TODO env\n")
    write(root, "ignored_dir/o.txt", "TODO ignored\n")
    write(root, "qi/secret.txt", "TODO secret\n")
    write(root, "bin.dat", b"TODO\0bin\n")
    write(root, "long.txt", "TODO " + "x" * 300 + "\n")
    write(root, "many.txt", "".join(f"TODO {i}\n" for i in range(12)))
    write(root, "latin.txt", b"TODO caf\xe9\n")
    write(root, "u16.txt", b"\xff\xfe" + "TODO u16\n".encode("utf-16-le"))
    write(root, "crlf.txt", b"TODO crlf\r\n")
    write(root, "dup.py", "a = 1\nb = 2\na = 1\n")
    write(root, ".gitignore", "ignored_dir/\n*.log\n")
    write(root, "app.log", "TODO log\n")
    write(root, ".qwenignore", "qi/\n")
    return root


async def run(
    root: Path, args: dict[str, Any], engine: str, config: Config | None = None, **settings: Any
) -> str:
    """What the model receives: the validation message or the result text."""
    return text_of(await result_of(root, args, engine, config, **settings))


async def result_of(
    root: Path, args: dict[str, Any], engine: str, config: Config | None = None, **settings: Any
) -> ToolResult:
    config = config or Config(root, settings=ToolSettings(**settings))
    tool = GrepTool(config, engine=engine)  # type: ignore[arg-type]
    try:
        invocation = tool.build(args)
    except ToolParamsError as exc:
        return ToolResult(llm_content=str(exc), return_display="(invalid)")
    return await invocation.execute(AbortSignal())


def text_of(result: ToolResult) -> str:
    assert isinstance(result.llm_content, str)
    return result.llm_content
