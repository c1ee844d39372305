"""The agent loop on a local model: any OpenAI-compatible endpoint (vLLM, SGLang, Ollama, ...).

Run::

    OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=none OPENAI_MODEL=qwen3-coder \\
        python examples/local_agent.py [WORKSPACE] ["PROMPT"]

The model is configured as for Qwen Code (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``OPENAI_MODEL``, or ``model.name`` / ``security.auth`` in ``settings.json``). Calls that need
approval are refused here (no ``confirm`` handler): the model is told and goes on.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from qwen_tools import (
    AgentSession,
    Config,
    ModelNotConfigured,
    TextDelta,
    ToolCallFinished,
    build_registry,
    resolve_model_config,
)


async def main(workspace: Path, prompt: str) -> int:
    config = Config.load(workspace)
    try:
        model = resolve_model_config(config.loaded_settings)
    except ModelNotConfigured as exc:
        print(exc, file=sys.stderr)
        return 3

    def show(event: object) -> None:
        if isinstance(event, TextDelta):
            print(event.text, end="", flush=True)
        elif isinstance(event, ToolCallFinished):
            print(f"[{event.completed.request.name}: {event.completed.status}]", flush=True)

    async with AgentSession(config, build_registry(config), model) as session:
        loop = session.new_loop(on_event=show, max_turns=10)
        finished = await loop.send(prompt)  # call send() again to continue the conversation
    print(f"\n{finished.reason.name} after {finished.turns} turn(s)")
    return 0


if __name__ == "__main__":
    where = Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    task = sys.argv[2] if len(sys.argv) > 2 else "List the files here and say what they are."
    sys.exit(asyncio.run(main(where, task)))
