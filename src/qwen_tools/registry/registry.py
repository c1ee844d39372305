"""``ToolRegistry``: the tools a session offers, looked up by name and declared to the model.

A tool can be registered as a :class:`ToolFactory` (its name and how to build it): it is built,
and its module imported, only when something asks for it, so a call to one built-in does not
import the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal

from qwen_tools.contract.tool_factory import ToolFactory
from qwen_tools.contract.tool_names import canonical_tool_name

if TYPE_CHECKING:  # the tool contract is imported by the tools themselves, when built
    from qwen_tools.contract.declarative import BaseDeclarativeTool, FunctionDeclaration
    from qwen_tools.contract.kinds import Kind

    AnyTool = BaseDeclarativeTool[Any]

logger = logging.getLogger("qwen_tools.registry")

DenyRule = Callable[[str, tuple[str, ...], str | None], str | None]
"""(tool name, aliases, MCP server name) → the deny rule that disables the tool, or ``None``."""
ExportFormat = Literal["openai", "openai-strict", "anthropic", "gemini", "mcp"]


class ToolRegistrationError(ValueError):
    """Raised when a tool cannot be registered (e.g. its name is already taken)."""


class ToolRegistry:
    """Holds the registered tools, keyed by their model-facing name.

    Unlike Qwen Code 0.24.4, which silently overwrites, registering a second non-MCP tool
    under a taken name raises :class:`ToolRegistrationError`. Tools of an MCP server
    (``server_name`` set) replace their own earlier registration, so a server can be
    rediscovered.
    """

    def __init__(self, tools: Iterable[AnyTool] = ()) -> None:
        self._tools: dict[str, AnyTool | ToolFactory] = {}
        self._missing_hints: dict[str, Callable[[str], str | None]] = {}
        self.deny_rule: DenyRule | None = None
        """Names the whole-tool deny rule that keeps a tool out (set from the settings)."""
        for tool in tools:
            self.register_tool(tool)

    def __len__(self) -> int:
        return len(self._tools)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.get_tool(name) is not None

    def __iter__(self) -> Any:
        return iter(self.get_all_tools())

    # -- registration -------------------------------------------------------------------

    def register_tool(self, tool: AnyTool) -> None:
        """Add ``tool``; raises :class:`ToolRegistrationError` on a name clash or a deny rule."""
        rule = self.denied_rule(tool.name, getattr(tool, "aliases", ()), tool.server_name)
        if rule is not None:
            raise ToolRegistrationError(
                f'Tool "{tool.name}" is not registered: denied by the rule "{rule}".'
            )
        existing = self._built(tool.name)
        if existing is not None and existing is not tool:
            same_server = tool.server_name is not None and existing.server_name == tool.server_name
            if not same_server:
                raise ToolRegistrationError(
                    f'Tool with name "{tool.name}" is already registered '
                    f"(by {type(existing).__name__}); tool names must be unique."
                )
            logger.debug("Re-registering MCP tool %s", tool.name)
        self._tools[tool.name] = tool

    def register_factory(self, factory: ToolFactory) -> None:
        """Add a tool that is built when first asked for; same checks as :meth:`register_tool`."""
        rule = self.denied_rule(factory.name)
        if rule is not None:
            raise ToolRegistrationError(
                f'Tool "{factory.name}" is not registered: denied by the rule "{rule}".'
            )
        existing = self._built(factory.name)
        if existing is not None:
            raise ToolRegistrationError(
                f'Tool with name "{factory.name}" is already registered '
                f"(by {type(existing).__name__}); tool names must be unique."
            )
        self._tools[factory.name] = factory

    def _built(self, name: str) -> AnyTool | None:
        """The tool registered as ``name``, built now if it was registered as a factory."""
        entry = self._tools.get(name)
        if not isinstance(entry, ToolFactory):
            return entry
        tool = entry.build()
        if tool.name != name:
            raise ToolRegistrationError(
                f'The factory of "{name}" built a tool named "{tool.name}".'
            )
        self._tools[name] = tool
        return tool

    def _all(self) -> list[AnyTool]:
        """Every tool, in registration order, building the ones not built yet."""
        return [t for name in list(self._tools) if (t := self._built(name)) is not None]

    def _mcp_tools(self) -> list[AnyTool]:
        """The tools of MCP servers (factories are never MCP tools: they stay unbuilt)."""
        return [
            t
            for t in self._tools.values()
            if not isinstance(t, ToolFactory) and t.server_name is not None
        ]

    def denied_rule(
        self, name: str, aliases: Iterable[str] = (), server_name: str | None = None
    ) -> str | None:
        """The whole-tool deny rule that keeps ``name`` out of this registry, if one does."""
        return self.deny_rule(name, tuple(aliases), server_name) if self.deny_rule else None

    def unregister_tool(self, name: str) -> AnyTool | None:
        """Remove and return the tool called ``name`` (``None`` if absent)."""
        tool = self._built(name)
        self._tools.pop(name, None)
        return tool

    def remove_tools_by_server(self, server_name: str) -> list[AnyTool]:
        """Remove every tool of one MCP server; returns what was removed."""
        removed = [t for t in self._mcp_tools() if t.server_name == server_name]
        for tool in removed:
            del self._tools[tool.name]
        return removed

    # -- look-up ------------------------------------------------------------------------

    def get_tool(self, name: str) -> AnyTool | None:
        """The tool called ``name``.

        Legacy names are accepted: ``replace``/``search_file_content`` for the built-ins, and
        Qwen Code 0.24.4's ``mcp__<server>__<tool>`` names, which MCP tools keep as aliases.
        """
        found = self._built(name) or self._built(canonical_tool_name(name))
        if found is None and name.startswith("mcp__"):
            for tool in self._mcp_tools():
                if name in getattr(tool, "aliases", ()):
                    return tool
        return found

    def get_all_tool_names(self) -> list[str]:
        """Names in registration order."""
        return list(self._tools)

    def get_all_tools(self) -> list[AnyTool]:
        """Tools sorted by display name, as the reference lists them."""
        return sorted(self._all(), key=lambda t: t.display_name)

    def get_tools_by_server(self, server_name: str) -> list[AnyTool]:
        """Tools of one MCP server, sorted by name."""
        return sorted(
            (t for t in self._mcp_tools() if t.server_name == server_name), key=lambda t: t.name
        )

    def unknown_tool_message(self, name: str) -> str:
        """The reference's not-found message, with "Did you mean" suggestions.

        When a hint (:meth:`set_missing_tool_hint`) explains why ``name`` is missing (e.g. its
        MCP server failed to connect), the explanation replaces the suggestions.
        """
        from qwen_tools.registry.suggestions import tool_not_found_message  # only when missing

        for hint in self._missing_hints.values():
            why = hint(name)
            if why:
                return f"{tool_not_found_message(name, ())} {why}"
        return tool_not_found_message(name, self._tools)

    def set_missing_tool_hint(self, key: str, hint: Callable[[str], str | None] | None) -> None:
        """Install (or with ``None`` remove) ``hint``: tool name → why it is missing, or ``None``."""
        if hint is None:
            self._missing_hints.pop(key, None)
        else:
            self._missing_hints[key] = hint

    # -- declarations ---------------------------------------------------------------------

    def get_function_declarations(self) -> list[FunctionDeclaration]:
        """Declarations of every tool, sorted by name so the order never depends on registration."""
        return [t.schema for t in sorted(self._all(), key=lambda t: (t.name, t.display_name))]

    def get_function_declarations_filtered(self, names: Iterable[str]) -> list[FunctionDeclaration]:
        """Declarations of the named tools that exist, in the given order."""
        found = (self.get_tool(n) for n in names)
        return [t.schema for t in found if t is not None]

    def kinds(self) -> dict[str, Kind]:
        """Each tool's kind, by name."""
        return {tool.name: tool.kind for tool in self._all()}

    def export(self, fmt: ExportFormat) -> list[dict[str, Any]]:
        """The declarations in a provider's tool format (see :mod:`qwen_tools.registry.exporters`)."""
        from qwen_tools.registry.exporters import export_declarations

        return export_declarations(self.get_function_declarations(), fmt, kinds=self.kinds())
