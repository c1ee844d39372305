"""One call of one tool through the pipeline the model's calls take, for tool tests.

:func:`run_call` registers the tool alone and sends the call through
:func:`qwen_tools.run_tool_call` (look-up, validation, approval, execution): invalid params,
refusals and failures come back as the :class:`~qwen_tools.CompletedToolCall` the model's
answer is made of (``response_text``, ``error_type``). A call whose params are valid can also
go straight through the tool's ``build_and_execute``.
"""

from __future__ import annotations

from typing import Any

from qwen_tools import CompletedToolCall, Config, ToolCallRequest, ToolRegistry, run_tool_call


async def run_call(
    tool: Any, args: Any, config: Config | None = None, *, confirm: Any = None
) -> CompletedToolCall:
    """``tool`` called with ``args`` as the model would call it (``config``: the tool's own)."""
    session: Config = config if config is not None else tool.config
    request = ToolCallRequest(tool.name, args, "c1")
    return await run_tool_call(ToolRegistry([tool]), session, request, confirm=confirm)
