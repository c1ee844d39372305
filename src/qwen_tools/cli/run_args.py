"""The ``run`` sub-command's arguments (standard library only: ``--help`` must stay fast).

The flags mirror Qwen Code's headless mode: ``qwen-tools run --approval-mode yolo
--output-format json --max-session-turns 10 "PROMPT"`` behaves as ``qwen`` with the same
flags, and ``qwen-tools`` given flags or a prompt but no command runs ``run``.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence

OUTPUT_FORMATS = ("text", "json", "stream-json")


def _turns(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid number of turns: {text!r}") from None


def add_run_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    add_workspace_options: Callable[[argparse.ArgumentParser], None],
    approval_modes: Sequence[str],
) -> argparse.ArgumentParser:
    """Register ``run`` on the sub-command parser."""
    run = sub.add_parser(
        "run",
        help="run the agent on a prompt, headless (model from OPENAI_* or settings)",
        description=(
            "Send PROMPT to the configured OpenAI-compatible model and let it use the tools "
            "until it answers. Piped stdin is prepended to the prompt. Without a terminal, "
            "calls needing approval are refused unless --approval-mode allows them. "
            "Exit codes: 0 done, 1 model/API error, 2 usage, 3 settings or no model, "
            "53 session turn limit, 130 interrupted."
        ),
    )
    run.add_argument("prompt_words", nargs="*", metavar="PROMPT", help="the prompt")
    run.add_argument("-p", "--prompt", help="the prompt (instead of PROMPT)")
    run.add_argument(
        "--approval-mode",
        choices=approval_modes,
        help="approval mode (default: from settings, else 'default')",
    )
    run.add_argument(
        "-y", "--yolo", action="store_true", help="approve every tool call (--approval-mode yolo)"
    )
    run.add_argument(
        "-o",
        "--output-format",
        choices=OUTPUT_FORMATS,
        default="text",
        help="text (the answer), json (all messages at the end) or stream-json (one per line)",
    )
    run.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="with stream-json, also emit stream_event lines as the answer arrives",
    )
    run.add_argument(
        "--max-session-turns",
        type=_turns,
        metavar="N",
        help="stop after N model requests (default: model.maxSessionTurns, else no limit)",
    )
    run.add_argument("-m", "--model", help="model name (overrides OPENAI_MODEL and model.name)")
    run.add_argument(
        "--experimental-lsp",
        action="store_true",
        help="offer the lsp tool (language servers of .lsp.json / lspServers), as lsp.enabled",
    )
    add_workspace_options(run)
    return run
