"""Our tools in the OpenAI Agents SDK, with an approval round trip (the run's interruptions).

Run: ``python examples/openai_agents_sdk.py [WORKSPACE]`` (needs ``qwen-tools[openai-agents]``).
The model is the SDK's ``ScriptedModel`` so the example runs offline: it runs a shell command
(which needs approval), then answers. Give the ``Agent`` a real model for the real thing.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

from agents import Agent, Runner
from agents.testing import ScriptedModel, assistant_message, function_call

from qwen_tools.integrations.openai_agents import QwenTools

os.environ.setdefault("OPENAI_AGENTS_DISABLE_TRACING", "1")  # no trace upload without a key


async def main(workspace: Path) -> None:
    model = ScriptedModel(
        [
            {
                "output": [
                    function_call("run_shell_command", {"command": "touch made.txt"}, call_id="c1")
                ]
            },
            {"output": [assistant_message("Created made.txt.")]},
        ]
    )
    async with QwenTools(workspace, strict=False) as qwen:  # a Session on the directory
        agent = Agent(name="coder", model=model, tools=qwen.tools)
        result = await Runner.run(agent, "Create made.txt")
        while result.interruptions:
            state = result.to_state()
            for item in result.interruptions:
                prompt = qwen.approval_request(item)  # our prompt: tool, command, diff...
                print("approve?", prompt.confirmation if prompt else item, "-> always")
                state.approve(item, always_approve=True)  # "always" is recorded in our session
            result = await Runner.run(agent, state)
    print(result.final_output)
    print("exists:", (workspace / "made.txt").exists())


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1]).resolve()))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp).resolve()))
