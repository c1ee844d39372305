"""The typed view of the tool-related settings (``tools.*``, ``mcp.*``, ``mcpServers``, ...).

:func:`parse_tool_settings` reads only the keys the tools system uses from a merged
:class:`~qwen_tools.config.settings.LoadedSettings`, applies Qwen Code 0.24.4's defaults, and
reports a value of the wrong type or shape as a :class:`SettingsError` naming the file whose value
won and the dotted key. Keys it does not use are never looked at. The one exception is an
``mcpServers`` entry: a bad entry is kept with its :attr:`McpServerConfig.error`, so only that
server is lost (it is reported as disconnected with that reason). ``mcp.serverCommand`` adds (or
replaces) the stdio server named ``mcp``, as in Qwen Code.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, Literal, TypeVar

from qwen_tools.config.settings import LoadedSettings, SettingsError
from qwen_tools.config.web_settings import WebSettings, parse_web_settings

__all__ = [
    "MCP_MISSING_TRANSPORT",
    "ApprovalMode",
    "FileFilteringSettings",
    "McpServerConfig",
    "ToolSettings",
    "parse_tool_settings",
]


class ApprovalMode(StrEnum):
    """How much the user must confirm before tools run."""

    PLAN = "plan"
    DEFAULT = "default"
    AUTO_EDIT = "auto-edit"
    AUTO = "auto"
    """An LLM classifier approves or blocks each call that would ask (see execution.auto_mode)."""
    YOLO = "yolo"

    @classmethod
    def parse(cls, value: str) -> ApprovalMode:
        """Parse a user-supplied mode, case-insensitively.

        ``auto_edit`` and ``autoedit`` mean ``auto-edit``. Anything else raises ``ValueError``.
        """
        normalized = value.strip().lower()
        if normalized in ("auto_edit", "autoedit"):
            return cls.AUTO_EDIT
        try:
            return cls(normalized)
        except ValueError:
            valid = ", ".join(mode.value for mode in cls)
            raise ValueError(
                f'Invalid approval mode: "{value}". Valid values are: {valid}'
            ) from None


_DEFAULT_CUSTOM_IGNORE_FILES = (".agentignore", ".aiignore")
_T = TypeVar("_T")


@dataclass(frozen=True)
class FileFilteringSettings:
    """``context.fileFiltering``: which ignore files the file tools honour."""

    respect_git_ignore: bool = True
    respect_qwen_ignore: bool = True
    custom_ignore_files: tuple[str, ...] = _DEFAULT_CUSTOM_IGNORE_FILES


@dataclass(frozen=True)
class McpServerConfig:
    """One entry of ``mcpServers``.

    ``url`` is an SSE endpoint and ``http_url`` (key ``httpUrl``) a Streamable HTTP one;
    ``timeout`` is in milliseconds. Fields this class does not model (``oauth``, ``type``,
    ``discoveryTimeoutMs``, ``authProviderType``, ...) are kept, unvalidated, in ``extra``.

    ``error`` is set when the entry cannot be used: it has no transport, or a field of the wrong
    type (that field keeps its default). Such an entry stays in the settings so it can be
    reported, but its server is never started.
    """

    command: str | None = None
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    http_url: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    timeout: int | None = None
    trust: bool = False
    include_tools: tuple[str, ...] | None = None
    exclude_tools: tuple[str, ...] = ()
    description: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @property
    def transport(self) -> Literal["stdio", "sse", "http"] | None:
        """The transport Qwen Code would pick: Streamable HTTP, then SSE, then stdio."""
        if self.http_url:
            return "http"
        if self.url:
            return "sse"
        if self.command:
            return "stdio"
        return None


@dataclass(frozen=True)
class ToolSettings:
    """Tool-related settings with Qwen Code 0.24.4's defaults.

    ``core`` is ``None`` when unset (an empty list counts as unset); ``mcp_allowed`` is ``None``
    when unset (an empty list admits no server). ``trusted`` is the folder-trust verdict.
    """

    core: tuple[str, ...] | None = None
    exclude: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    discovery_command: str | None = None
    call_command: str | None = None
    approval_mode: ApprovalMode | None = None
    truncate_tool_output_threshold: int = 25000
    truncate_tool_output_lines: int = 1000
    tool_output_batch_budget: int = 200000
    use_ripgrep: bool = True
    mcp_servers: dict[str, McpServerConfig] = field(default_factory=dict)
    mcp_server_command: str | None = None
    mcp_allowed: tuple[str, ...] | None = None
    mcp_excluded: tuple[str, ...] = ()
    mcp_gated: dict[str, str] = field(default_factory=dict)
    """Servers that run only once approved (a project's ``.mcp.json``): name → entry hash."""
    file_filtering: FileFilteringSettings = field(default_factory=FileFilteringSettings)
    include_directories: tuple[str, ...] = ()
    permissions_allow: tuple[str, ...] = ()
    permissions_ask: tuple[str, ...] = ()
    permissions_deny: tuple[str, ...] = ()
    shell_default_timeout_ms: int = 120000
    sandbox: str | None = None
    sandbox_network: bool = False
    web_search: dict[str, Any] = field(default_factory=dict)
    web: WebSettings = field(default_factory=WebSettings)
    trusted: bool = True


MCP_MISSING_TRANSPORT = (
    "Invalid configuration: missing httpUrl (for Streamable HTTP), url (for SSE), "
    "and command (for stdio)."
)
"""Qwen Code 0.24.4's error for an ``mcpServers`` entry without a transport (``createTransport``)."""
_MCP_FIELDS = frozenset(
    {"command", "args", "env", "cwd", "url", "httpUrl", "headers", "timeout", "trust"}
    | {"includeTools", "excludeTools", "description"}
)


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else text[:77] + "..."


class _Reader:
    """Typed access to the merged settings, raising :class:`SettingsError` on a bad value."""

    def __init__(self, loaded: LoadedSettings) -> None:
        self.loaded = loaded

    def error(self, key: Sequence[str], detail: str) -> SettingsError:
        """The error to raise for ``key``, naming the file whose value won."""
        return SettingsError(detail, path=self.loaded.origin(key), key=".".join(key))

    def raw(self, *key: str) -> Any:
        """The value at ``key``; JSON ``null`` counts as unset."""
        return self.loaded.get(key)

    def bad(self, key: Sequence[str], value: Any, what: str) -> SettingsError:
        """The error for a value of the wrong type or shape at ``key``."""
        return self.error(key, f"expected {what}, got {_show(value)}")

    def section(self, *key: str) -> dict[str, Any]:
        value = self.raw(*key)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.bad(key, value, "an object")
        return value

    def string(self, *key: str) -> str | None:
        value = self.raw(*key)
        if value is None or isinstance(value, str):
            return value
        raise self.bad(key, value, "a string")

    def boolean(self, *key: str, default: bool) -> bool:
        value = self.raw(*key)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        raise self.bad(key, value, "a boolean (true or false)")

    def integer(self, *key: str, default: int | None) -> int | None:
        value = self.raw(*key)
        if value is None:
            return default
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise self.bad(key, value, "an integer")

    def int_default(self, *key: str, default: int) -> int:
        value = self.integer(*key, default=default)
        return default if value is None else value

    def strings(self, *key: str) -> tuple[str, ...] | None:
        value = self.raw(*key)
        if value is None:
            return None
        if isinstance(value, list) and all(isinstance(item, str) for item in value):
            return tuple(value)
        raise self.bad(key, value, "a list of strings")

    def string_map(self, *key: str) -> dict[str, str]:
        """An object of strings; numbers and booleans are turned into strings (as Node would)."""
        out: dict[str, str] = {}
        for name, value in self.section(*key).items():
            if isinstance(value, str):
                out[name] = value
            elif isinstance(value, bool):
                out[name] = "true" if value else "false"
            elif isinstance(value, int | float):
                out[name] = str(int(value)) if float(value).is_integer() else str(value)
            else:
                raise self.bad((*key, name), value, "a string")
        return out


def _approval_mode(reader: _Reader, trusted: bool) -> ApprovalMode | None:
    key = ("tools", "approvalMode")
    text = reader.string(*key)
    if not text:
        return None
    try:
        mode = ApprovalMode.parse(text)
    except ValueError:
        valid = ", ".join(mode.value for mode in ApprovalMode)
        raise reader.bad(key, text, f"one of {valid}") from None
    # An untrusted folder may only plan or ask (Qwen Code forces "default" there).
    if not trusted and mode not in (ApprovalMode.PLAN, ApprovalMode.DEFAULT):
        return ApprovalMode.DEFAULT
    return mode


def _sandbox(reader: _Reader) -> str | None:
    key = ("tools", "sandbox")
    value = reader.raw(*key)
    if value is None or value is False or value == "":
        return None
    if value is True:
        return "default"
    if isinstance(value, str):
        return value
    raise reader.bad(key, value, "a boolean or a string")


def _mcp_server(reader: _Reader, name: str, raw: Any) -> McpServerConfig:
    """One ``mcpServers`` entry; a bad field becomes the entry's ``error`` instead of raising."""
    base = ("mcpServers", name)
    if not isinstance(raw, dict):
        return McpServerConfig(error=str(reader.bad(base, raw, "an object")))
    problems: list[str] = []

    def read(get: Callable[[], _T], default: _T) -> _T:
        try:
            return get()
        except SettingsError as exc:
            problems.append(str(exc))
            return default

    config = McpServerConfig(
        command=read(lambda: reader.string(*base, "command"), None) or None,
        args=read(lambda: reader.strings(*base, "args") or (), ()),
        env=read(lambda: reader.string_map(*base, "env"), {}),
        cwd=read(lambda: reader.string(*base, "cwd"), None) or None,
        url=read(lambda: reader.string(*base, "url"), None) or None,
        http_url=read(lambda: reader.string(*base, "httpUrl"), None) or None,
        headers=read(lambda: reader.string_map(*base, "headers"), {}),
        timeout=read(lambda: reader.integer(*base, "timeout", default=None), None),
        trust=read(lambda: reader.boolean(*base, "trust", default=False), False),
        include_tools=read(lambda: reader.strings(*base, "includeTools"), None),
        exclude_tools=read(lambda: reader.strings(*base, "excludeTools") or (), ()),
        description=read(lambda: reader.string(*base, "description"), None),
        extra={key: value for key, value in raw.items() if key not in _MCP_FIELDS},
    )
    if config.timeout is not None and config.timeout < 0:
        what = "a non-negative number of milliseconds"
        problems.append(str(reader.bad((*base, "timeout"), config.timeout, what)))
    if not problems and config.transport is None:
        problems.append(MCP_MISSING_TRANSPORT)
    return replace(config, error=problems[0]) if problems else config


def _server_command_entry(command: str) -> McpServerConfig:
    """The ``mcp`` server of ``mcp.serverCommand`` (Qwen Code's ``populateMcpServerCommand``).

    The command is split as a shell would (quotes, escapes; ``$VAR`` was expanded when the file
    was read); a shell operator (``|``, ``&&``, ``;``, ``>``, ``(`` …) cannot be run without a
    shell and makes the entry fail with Qwen Code's ``failed to parse mcpServerCommand: <cmd>``.
    It runs in the project root, like every stdio server without ``cwd``.
    """
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    try:
        words = list(lexer)
    except ValueError:
        words = ["("]
    if any(_SHELL_OPERATOR.fullmatch(word) for word in words):
        return McpServerConfig(error=f"failed to parse mcpServerCommand: {command}")
    if not words:
        return McpServerConfig(error=MCP_MISSING_TRANSPORT)
    return McpServerConfig(command=words[0], args=tuple(words[1:]))


_SHELL_OPERATOR = re.compile(r"[();<>|&]+")


def _server_names(values: tuple[str, ...] | None) -> tuple[str, ...] | None:
    """Drop empty names and duplicates, as Qwen Code does for ``mcp.allowed`` / ``mcp.excluded``."""
    return None if values is None else tuple(dict.fromkeys(v for v in values if v))


def parse_tool_settings(loaded: LoadedSettings) -> ToolSettings:
    """Build :class:`ToolSettings` from merged settings; raise :class:`SettingsError` on bad values.

    The error names the file whose value won and the dotted key, e.g.
    ``Invalid value for "tools.approvalMode" in /p/.qwen/settings.json: expected one of ...``.
    """
    r = _Reader(loaded)
    for section in ("tools", "mcp", "context", "permissions", "mcpServers"):
        r.section(section)
    r.section("tools", "shell")
    r.section("context", "fileFiltering")
    web_search = r.section("tools", "webSearch")

    core = r.strings("tools", "core")
    custom_ignore = r.strings("context", "fileFiltering", "customIgnoreFiles")
    filtering = FileFilteringSettings(
        respect_git_ignore=r.boolean("context", "fileFiltering", "respectGitIgnore", default=True),
        respect_qwen_ignore=r.boolean(
            "context", "fileFiltering", "respectQwenIgnore", default=True
        ),
        custom_ignore_files=_DEFAULT_CUSTOM_IGNORE_FILES
        if custom_ignore is None
        else custom_ignore,
    )
    servers = {name: _mcp_server(r, name, raw) for name, raw in r.section("mcpServers").items()}
    server_command = r.string("mcp", "serverCommand") or None
    if server_command is not None:
        servers["mcp"] = _server_command_entry(server_command)
    return ToolSettings(
        core=core or None,
        exclude=r.strings("tools", "exclude") or (),
        allowed=r.strings("tools", "allowed") or (),
        discovery_command=r.string("tools", "discoveryCommand") or None,
        call_command=r.string("tools", "callCommand") or None,
        approval_mode=_approval_mode(r, loaded.trusted),
        truncate_tool_output_threshold=r.int_default(
            "tools", "truncateToolOutputThreshold", default=25000
        ),
        truncate_tool_output_lines=r.int_default("tools", "truncateToolOutputLines", default=1000),
        tool_output_batch_budget=r.int_default("tools", "toolOutputBatchBudget", default=200000),
        use_ripgrep=r.boolean("tools", "useRipgrep", default=True),
        mcp_servers=servers,
        mcp_server_command=server_command,
        mcp_allowed=_server_names(r.strings("mcp", "allowed")),
        mcp_excluded=_server_names(r.strings("mcp", "excluded")) or (),
        file_filtering=filtering,
        include_directories=r.strings("context", "includeDirectories") or (),
        permissions_allow=r.strings("permissions", "allow") or (),
        permissions_ask=r.strings("permissions", "ask") or (),
        permissions_deny=r.strings("permissions", "deny") or (),
        shell_default_timeout_ms=r.int_default(
            "tools", "shell", "defaultTimeoutMs", default=120000
        ),
        sandbox=_sandbox(r),
        sandbox_network=r.boolean("tools", "sandboxNetwork", default=False),
        web_search=dict(web_search),
        web=parse_web_settings(loaded),
        trusted=loaded.trusted,
    )
