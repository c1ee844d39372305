"""Tools discovered by running ``tools.discoveryCommand`` (the protocol of Qwen Code 0.24.4).

The command is split with :func:`shlex.split` (``$VAR`` was already expanded by the settings
loader) and run without a shell in the project root, stdin ``/dev/null``, in its own process
group, for at most ``timeout_s`` seconds (then the group is killed), each stream capped at 10 MiB.
It must exit with 0 and print a JSON array. Each array item is one of:

* an object with a ``function_declarations`` array: all of its declarations;
* else an object with a ``functionDeclarations`` array: all of its declarations;
* else an object with a ``name``: the item is itself a declaration.

A declaration gives ``name``, ``description`` and its parameters as ``parametersJsonSchema``
or, in the classic Gemini form, ``parameters`` (see :mod:`.schema`).

Differences from 0.24.4, which we consider improvements (framework spec §9 items 1, 2 and 4):

* discovery always runs (0.24.4 only with ``QWEN_CODE_LEGACY_MCP_BLOCKING=1``);
* classic ``parameters`` are honoured instead of being replaced by an empty schema;
* a failure — the command cannot be split or started, times out, overflows, exits with a
  non-zero code or a signal, or prints something that is not a JSON array — never raises: it is
  logged on ``qwen_tools.discovery`` and reported in :attr:`DiscoveryReport.problems`, and no tool
  is discovered (0.24.4 re-throws and the registry is not created);
* the command has a timeout (0.24.4 waits forever);
* a declaration without a name, or with a name already declared earlier in the output, is
  skipped with a problem entry (0.24.4 lets the later one overwrite the earlier one).

The reference's texts are kept where it has them (``Tool discovery command failed with exit
code 2``, ``Tool discovery command did not return a JSON array of tools.``, …).
"""

from __future__ import annotations

import json
import logging
import shlex
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from qwen_tools.discovery.discovered_tool import DiscoveredTool
from qwen_tools.discovery.process import MAX_STREAM_BYTES, CommandRun, run_command, signal_name
from qwen_tools.discovery.schema import declaration_schema

if TYPE_CHECKING:
    from qwen_tools.config.config import Config

__all__ = [
    "DEFAULT_DISCOVERY_TIMEOUT_S",
    "Declaration",
    "Declarations",
    "DiscoveryReport",
    "discover_command_tools",
    "discover_declarations",
]

logger = logging.getLogger("qwen_tools.discovery")

DEFAULT_DISCOVERY_TIMEOUT_S = 30.0
NO_NAME = "Discovered a tool with no name. Skipping."
NOT_AN_ARRAY = "Tool discovery command did not return a JSON array of tools."
EMPTY_COMMAND = "Tool discovery command is empty or contains only whitespace."
_STDERR_SHOWN = 500


@dataclass(slots=True)
class DiscoveryReport:
    """What a discovery run found, and what went wrong (one readable sentence per problem)."""

    tools: list[DiscoveredTool] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


class _Failed(Exception):
    """Discovery failed as a whole; the message is the reason."""


def _problem(report: DiscoveryReport, text: str) -> None:
    logger.warning("%s", text)
    report.problems.append(text)


def _check_run(run: CommandRun, timeout_s: float) -> None:
    if run.spawn_error is not None:
        raise _Failed(run.spawn_error)
    if run.overflow:
        raise _Failed(
            f"Tool discovery command output exceeded size limit of {MAX_STREAM_BYTES} bytes."
        )
    if run.timed_out:
        raise _Failed(
            f"Tool discovery command timed out after {timeout_s:g} s; its process group was killed."
        )
    if run.signal is not None:
        raise _Failed(f"Tool discovery command was killed by signal {signal_name(run.signal)}")
    if run.exit_code != 0:
        reason = f"Tool discovery command failed with exit code {run.exit_code}"
        stderr = run.stderr.strip()
        if stderr:
            shown = stderr if len(stderr) <= _STDERR_SHOWN else "…" + stderr[-_STDERR_SHOWN:]
            reason += f" (stderr: {shown})"
        raise _Failed(reason)
    if run.stderr.strip():
        logger.debug("Tool discovery command wrote to stderr: %s", run.stderr.strip())


def _parse_output(stdout: str) -> list[Any]:
    try:
        items = json.loads(stdout.strip().lstrip("\ufeff"))
    except json.JSONDecodeError as exc:
        raise _Failed(
            "Tool discovery command did not print valid JSON: "
            f"{exc.msg} (line {exc.lineno} column {exc.colno})"
        ) from None
    if not isinstance(items, list):
        raise _Failed(NOT_AN_ARRAY)
    return items


def _declarations(items: list[Any], report: DiscoveryReport) -> Iterator[Any]:
    """The declarations of the array's items, in order (see the module docstring)."""
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            _problem(report, f"Discovery output item [{index}] is not an object; ignored.")
        elif isinstance(item.get("function_declarations"), list):
            yield from item["function_declarations"]
        elif isinstance(item.get("functionDeclarations"), list):
            yield from item["functionDeclarations"]
        elif item.get("name"):
            yield item
        else:
            _problem(
                report,
                f"Discovery output item [{index}] has no name, function_declarations or "
                "functionDeclarations; ignored.",
            )


def _declared(items: list[Any], problems: DiscoveryReport) -> list[Declaration]:
    seen: set[str] = set()
    found: list[Declaration] = []
    for declaration in _declarations(items, problems):
        name = declaration.get("name") if isinstance(declaration, Mapping) else None
        if not name:
            _problem(problems, NO_NAME)
            continue
        if not isinstance(name, str):
            _problem(
                problems,
                f"Discovered a tool whose name is not a string ({json.dumps(name)}). Skipping.",
            )
            continue
        if name in seen:
            _problem(
                problems,
                f'Discovered tool "{name}" is declared more than once; '
                "the first declaration is kept.",
            )
            continue
        seen.add(name)
        description = declaration.get("description")
        found.append(
            Declaration(
                name,
                description if isinstance(description, str) else "",
                declaration_schema(declaration),
            )
        )
    return found


@dataclass(frozen=True, slots=True)
class Declaration:
    """One discovered tool as declared: what depends only on the command's output."""

    name: str
    description: str
    schema: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Declarations:
    """What one run of the discovery command declared, and the problems met (logged once)."""

    items: tuple[Declaration, ...] = ()
    problems: tuple[str, ...] = ()

    def report(self, config: Config) -> DiscoveryReport:
        """The tools of these declarations, bound to ``config`` (a session's own)."""
        tools = [DiscoveredTool(config, d.name, d.description, d.schema) for d in self.items]
        return DiscoveryReport(tools, list(self.problems))


async def discover_declarations(
    config: Config, *, timeout_s: float = DEFAULT_DISCOVERY_TIMEOUT_S
) -> Declarations:
    """Run ``tools.discoveryCommand`` and read its declarations (none when it is not set).

    Never raises for the command's sake: every failure is a logged entry of ``problems``.
    """
    problems = DiscoveryReport()
    command = config.settings.discovery_command
    if not command:
        return Declarations()
    try:
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise _Failed(
                f"Tool discovery command could not be split into arguments: {exc}"
            ) from None
        if not argv:
            raise _Failed(EMPTY_COMMAND)
        run = await run_command(argv, cwd=str(config.target_dir), timeout_s=timeout_s)
        _check_run(run, timeout_s)
        items = _parse_output(run.stdout)
    except _Failed as exc:
        _problem(problems, f'Tool discovery command "{command}" failed: {exc}')
        return Declarations((), tuple(problems.problems))
    found = _declared(items, problems)
    if found and not config.settings.call_command:
        _problem(
            problems,
            f"{len(found)} tool(s) were discovered, but tools.callCommand is not set, "
            "so calling them will fail.",
        )
    return Declarations(tuple(found), tuple(problems.problems))


async def discover_command_tools(
    config: Config, *, timeout_s: float = DEFAULT_DISCOVERY_TIMEOUT_S
) -> DiscoveryReport:
    """Run ``tools.discoveryCommand`` and build a :class:`DiscoveredTool` per declaration.

    Returns an empty report when no command is configured. Never raises for the command's sake:
    every failure is a logged entry of :attr:`DiscoveryReport.problems`.
    """
    return (await discover_declarations(config, timeout_s=timeout_s)).report(config)
