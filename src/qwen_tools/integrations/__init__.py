"""Our tools inside other agent frameworks: pydantic-ai, the OpenAI Agents SDK, LangChain/LangGraph.

Each adapter is a public module named after its framework (:mod:`.pydantic_ai`,
:mod:`.openai_agents`, :mod:`.langchain`), installed with the extra of the same name
(``pip install qwen-tools[pydantic-ai]``). Each is built from an open :class:`~qwen_tools.Session`
or from a workspace directory, runs calls through the session's whole flow (validation, rules,
hooks, approval mode, output budget) and maps a call that needs the user's approval to the
framework's own human-in-the-loop mechanism. :mod:`.bridge` holds what they share.
"""
