"""``task``/``agent`` params: 0.24.4's own checks, in its order, and our refusals after them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.tools.task.params import check_task_params, unsupported_param
from qwen_tools.tools.task.tool import TaskTool

BASE = {"description": "d", "prompt": "p"}
FORK_ONLY = 'Parameter "{}" can only be used with subagent_type "fork".'
TEAMMATE = 'Parameter "{}" cannot be used when spawning a named teammate.'


@pytest.fixture
def config(ws: Path, tmp_path: Path) -> Config:
    home = Path(os.path.realpath(tmp_path)) / "qwen-home"
    home.mkdir()
    return Config(ws, home_dir=home)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({}, None),
        ({"run_in_background": True, "todo_id": "t1", "unknown": [1]}, None),
        (
            {"todo_id": " "},
            'Parameter "todo_id" must be a non-empty string of at most 500 characters.',
        ),
        (
            {"todo_id": "\U0001f600" * 251},  # 502 UTF-16 units
            'Parameter "todo_id" must be a non-empty string of at most 500 characters.',
        ),
        ({"subagent_type": None}, 'Parameter "subagent_type" must be a non-empty string.'),
        ({"model": ""}, 'Parameter "model" must be a non-empty model grade when set.'),
        ({"model": "fast"}, 'Unknown model grade "fast". Available: .'),
        (
            {"model": "fast", "subagent_type": "Fork"},
            'Parameter "model" cannot be used with subagent_type "fork".',
        ),
        (
            {"fork_turns": "0"},
            'Parameter "fork_turns" must be "all" or a positive integer string such as "3".',
        ),
        ({"fork_turns": "all", "subagent_type": "Explore"}, FORK_ONLY.format("fork_turns")),
        ({"fork_turns": "12", "subagent_type": "fork", "name": "n"}, TEAMMATE.format("fork_turns")),
        ({"fork_tools": ["read_file"]}, FORK_ONLY.format("fork_tools")),
        ({"fork_profile": "p1"}, FORK_ONLY.format("fork_profile")),
        (
            {"fork_profile": "p1", "fork_tools": [], "subagent_type": "fork"},
            'Parameters "fork_profile" and "fork_tools" cannot be used together.',
        ),
        ({"isolation": "copy"}, 'Parameter "isolation" must be "worktree" when set.'),
        (
            {"isolation": "worktree"},
            'Parameter "isolation" requires an explicit subagent_type (and cannot be "fork").',
        ),
        ({"working_dir": "  "}, None),
        ({"working_dir": None}, None),
        ({"working_dir": 3}, 'Parameter "working_dir" must be a non-empty string when set.'),
        (
            {"working_dir": "/w", "subagent_type": "Explore", "run_in_background": True},
            'Parameters "working_dir" and "run_in_background" are incompatible: the caller owns '
            "the worktree lifecycle and could remove it while a background agent is still "
            "running.",
        ),
        (
            {"working_dir": "/w"},
            'Parameter "working_dir" requires an explicit subagent_type (and cannot be "fork").',
        ),
        (
            {"plan_mode_required": "yes"},
            'Parameter "plan_mode_required" must be a boolean when set.',
        ),
        (
            {"plan_mode_required": True},
            'Parameter "plan_mode_required" requires a named teammate via "name".',
        ),
        ({"read_only": True, "name": "n"}, 'Parameter "read_only" requires an active team.'),
        ({"read_only": False}, None),
    ],
)
def test_reference_checks(extra: dict[str, Any], message: str | None) -> None:
    assert check_task_params({**BASE, **extra}) == message


def test_reference_checks_come_before_the_subagent_lookup(config: Config) -> None:
    tool = TaskTool(config)
    params = {**BASE, "subagent_type": "nope", "fork_turns": "all"}
    assert tool.validate_tool_params(params) == FORK_ONLY.format("fork_turns")
    assert tool.validate_tool_params({**BASE, "subagent_type": "fork"}) == (
        'Subagent "fork" not found. Available subagents: general-purpose, Explore'
    )


@pytest.mark.parametrize(
    ("extra", "param"),
    [
        ({"isolation": "worktree", "subagent_type": "Explore"}, "isolation"),
        ({"working_dir": "/w", "subagent_type": "Explore"}, "working_dir"),
    ],
)
def test_params_we_cannot_honour_are_refused(
    config: Config, extra: dict[str, Any], param: str
) -> None:
    message = TaskTool(config).validate_tool_params({**BASE, **extra})
    assert message is not None and message.startswith(f'Parameter "{param}" is not supported:')
    assert unsupported_param(BASE) is None


def test_params_are_not_coerced(config: Config) -> None:
    tool = TaskTool(config)
    params = {"description": "d", "prompt": "p", "run_in_background": "false"}
    invocation = tool.build(params)
    assert invocation.params is params  # kept as sent; run_in_background has no effect here
