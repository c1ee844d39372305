"""Our tools in a LangGraph graph (LangChain ``BaseTool``s), approvals as the graph's interrupts.

Run: ``python examples/langgraph_agent.py [WORKSPACE]`` (needs ``qwen-tools[langchain]``).
The chat model is LangChain's ``GenericFakeChatModel`` so the example runs offline: it writes
a file (which needs approval), then answers. Bind a real chat model instead.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command

from qwen_tools.integrations.langchain import QwenTools

os.environ.setdefault("LANGSMITH_TRACING", "false")


def build_graph(model: Any, tools: list[Any]) -> Any:
    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode(tools))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition, {"tools": "tools", END: END})
    builder.add_edge("tools", "agent")
    return builder.compile(checkpointer=InMemorySaver())  # interrupts need a checkpointer


async def main(workspace: Path) -> None:
    args = {"file_path": str(workspace / "plan.md"), "content": "# Plan\n"}
    model = GenericFakeChatModel(
        messages=iter(
            [
                AIMessage(content="", tool_calls=[{"name": "write_file", "args": args, "id": "w"}]),
                AIMessage(content="Wrote plan.md."),
            ]
        )
    )
    config: Any = {"configurable": {"thread_id": "example"}}
    async with QwenTools(workspace) as qwen:
        app = build_graph(model, qwen.tools)
        state = await app.ainvoke({"messages": [("user", "Write a plan")]}, config)
        while "__interrupt__" in state:
            for pending in state["__interrupt__"]:
                print(f"approve {pending.value['tool']}? -> once")
            state = await app.ainvoke(Command(resume="once"), config)
    print(state["messages"][-1].content)
    print("file:", (workspace / "plan.md").read_text().strip())


if __name__ == "__main__":
    if len(sys.argv) > 1:
        asyncio.run(main(Path(sys.argv[1]).resolve()))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            asyncio.run(main(Path(tmp).resolve()))
