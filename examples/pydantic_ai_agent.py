"""Our tools in a pydantic-ai agent, with an approval round trip (pydantic-ai's deferred tools).

Run: ``python examples/pydantic_ai_agent.py [WORKSPACE]`` (needs ``qwen-tools[pydantic-ai]``).
The model here is pydantic-ai's ``FunctionModel``, scripted so the example runs offline: it
writes a file (which needs the user's approval), then answers. Swap in any pydantic-ai model
(``Agent("openai:gpt-4o", ...)``) for the real thing.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path
from typing import Any

from pydantic_ai import Agent, DeferredToolRequests
from pydantic_ai.messages import ModelMessage, ModelResponse, TextPart, ToolCallPart
from pydantic_ai.models.function import AgentInfo, FunctionModel

from qwen_tools.integrations.pydantic_ai import QwenToolset, approval_results


def scripted_model(target: Path) -> FunctionModel:
    """Turn 1: write ``target``; afterwards: answer with the last thing a tool said."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if len(messages) == 1:
            args = {"file_path": str(target), "content": "hello from pydantic-ai\n"}
            return ModelResponse(parts=[ToolCallPart("write_file", args, tool_call_id="w1")])
        said = [getattr(part, "content", "") for part in messages[-1].parts]
        return ModelResponse(parts=[TextPart(f"Done: {said[-1]}")])

    return FunctionModel(respond)


def ask_user(prompt: dict[str, Any]) -> str:
    """Stands for your UI: show the prompt (tool, diff or command), return once/always/deny."""
    print(f"approve {prompt['tool']} ({prompt['confirmation']['type']})? -> once")
    return "once"


async def main(workspace: Path) -> None:
    target = workspace / "hello.txt"
    agent = Agent(
        scripted_model(target),
        toolsets=[QwenToolset(workspace)],
        output_type=[str, DeferredToolRequests],
    )
    async with agent:  # keeps one Session open across runs (its state carries over)
        result = await agent.run("Write hello.txt")
        while isinstance(result.output, DeferredToolRequests):
            requests = result.output
            answers = {
                c.tool_call_id: ask_user(requests.metadata[c.tool_call_id])
                for c in requests.approvals
            }
            result = await agent.run(
                message_history=result.all_messages(),
                deferred_tool_results=approval_results(answers),
            )
    print(result.output)
    print("file:", target.read_text().strip())


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1]).resolve()))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp).resolve()))
