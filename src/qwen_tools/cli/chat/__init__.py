"""``qwen-tools chat``: an interactive session in the terminal (prompt_toolkit in, rich out).

Only the standard library is imported here (``--help`` stays fast): :func:`run_chat` imports
the app when the command runs.

* :mod:`.app` — the session: read a prompt, run it through the agent loop, show its events;
* :mod:`.prompt` — the input line; :mod:`.commands` — the slash commands
  (:mod:`.session_commands` — those about the session, and the summary on quit);
* :mod:`.footer` — the line under the input box; :mod:`.shell_mode` — ``!command``;
* :mod:`.at_files` — ``@path`` completion and attached files;
* :mod:`.compress` — ``/compress`` (the history replaced by the model's summary);
* :mod:`.saved_chats` — chats saved as they go, for ``/resume`` and ``chat --resume``;
* :mod:`.screen`, :mod:`.stream_view`, :mod:`.tool_box`, :mod:`.displays`, :mod:`.markdown` —
  what a turn looks like while it runs and once it is done;
* :mod:`.dialog` — the inline confirmation dialog; :mod:`.terminal` — the terminal while a turn
  runs (no echo, Ctrl-C cancels).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence


def add_chat_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    add_workspace_options: Callable[[argparse.ArgumentParser], None],
    approval_modes: Sequence[str],
) -> argparse.ArgumentParser:
    """Register ``chat`` on the sub-command parser."""
    chat = sub.add_parser(
        "chat",
        help="an interactive session with the agent in the terminal",
        description=(
            "Talk to the configured OpenAI-compatible model (OPENAI_* or settings, as for "
            "'run'); tool calls are shown as they run and confirmations are asked inline. "
            "Type /help in the session for commands and keys."
        ),
    )
    chat.add_argument(
        "--approval-mode",
        choices=approval_modes,
        help="approval mode (default: from settings, else 'default'; /mode changes it)",
    )
    chat.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="latest",
        metavar="ID",
        help="continue a saved chat of this project (the latest without ID; /resume lists them)",
    )
    chat.add_argument("-m", "--model", help="model name (overrides OPENAI_MODEL and model.name)")
    chat.add_argument(
        "--experimental-lsp",
        action="store_true",
        help="offer the lsp tool (language servers of .lsp.json / lspServers), as lsp.enabled",
    )
    add_workspace_options(chat)
    return chat


def run_chat(args: argparse.Namespace) -> int:
    """Run the interactive session; returns the process exit code."""
    from qwen_tools.cli.chat.app import run_chat_command

    return run_chat_command(args)
