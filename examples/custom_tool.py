"""A custom tool made with ``@tool``, called through a ``Session`` next to the built-ins.

Run: ``python examples/custom_tool.py [WORKSPACE]`` (default: a fresh temporary directory).
No model and no network: the calls are made the way a model's function calls are.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

from qwen_tools import Kind, Session, ToolContext, tool


@tool(kind=Kind.READ)
def word_count(text: str, unique: bool = False) -> dict[str, int]:
    """Count the words in a text.

    Args:
        text: The text to count.
        unique: Count distinct words only.
    """
    words = text.split()
    return {"words": len(set(words)) if unique else len(words)}  # the model reads it as JSON


@tool(kind=Kind.READ)
def project_name(ctx: ToolContext) -> str:
    """The workspace's directory name."""
    return ctx.target_dir.name  # ctx is the session's context; it is not in the schema


async def main(workspace: Path) -> None:
    (workspace / "notes.txt").write_text("one two two three\n")
    async with Session(workspace, tools=[word_count, project_name]) as session:
        counted = await session.call("word_count", {"text": "a b a", "unique": "true"})
        print("word_count:", counted.response_text)  # "true" is coerced to a boolean
        print("project_name:", (await session.call("project_name", {})).response_text)
        read = await session.call("read_file", {"absolute_path": str(workspace / "notes.txt")})
        print("read_file:", read.status, read.response_text.strip())
        names = [d["function"]["name"] for d in session.declarations("openai")]
        print("declared:", "word_count" in names, "read_file" in names)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1]).resolve()))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp).resolve()))
