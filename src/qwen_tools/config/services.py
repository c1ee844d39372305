"""The services a session's ``Config`` owns (as opposed to its settings and its mutable state).

* ``file_service`` — file discovery with the project's ignore files.
* ``model`` — :class:`ModelAccess`: the model an agent running in the session lends to the tools
  that need one (``web_fetch`` summarises with it, ``task`` runs subagents with it). Without an
  agent both are ``None`` and those tools do without (``web_fetch`` returns the page, ``task``
  says no model is configured).
* ``lsp`` — :class:`LspAccess`: the session's language servers (:mod:`qwen_tools.lsp`), built
  when the ``lsp`` tool first needs them and shut down with the session.

``Config`` itself has no attribute anyone sets after it was built: an agent lends its client
and subagent runner through :meth:`ModelAccess.lend` for as long as it runs and takes them back
with :meth:`ModelAccess.withdraw`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from qwen_tools.config.file_service import FileDiscoveryService

if TYPE_CHECKING:
    from qwen_tools.lsp.service import LspService
    from qwen_tools.model.protocol import ContentGenerator
    from qwen_tools.subagents.protocol import SubagentRunner

__all__ = ["ConfigServices", "LspAccess", "ModelAccess"]


class ModelAccess:
    """The session's model, as lent by the agent running in it (``None`` when none runs)."""

    def __init__(self) -> None:
        self._generator: ContentGenerator | None = None
        self._runner: SubagentRunner | None = None

    @property
    def content_generator(self) -> ContentGenerator | None:
        """One-shot generation with the session's model (``web_fetch``)."""
        return self._generator

    @property
    def subagent_runner(self) -> SubagentRunner | None:
        """Runs subagents for the ``task`` tool."""
        return self._runner

    def lend(
        self,
        *,
        content_generator: ContentGenerator | None = None,
        subagent_runner: SubagentRunner | None = None,
    ) -> None:
        """Offer a model and/or a subagent runner to the session's tools (those given only)."""
        if content_generator is not None:
            self._generator = content_generator
        if subagent_runner is not None:
            self._runner = subagent_runner

    def withdraw(
        self,
        *,
        content_generator: ContentGenerator | None = None,
        subagent_runner: SubagentRunner | None = None,
    ) -> None:
        """Take back what :meth:`lend` offered (only if it is still the one lent)."""
        if content_generator is not None and self._generator is content_generator:
            self._generator = None
        if subagent_runner is not None and self._runner is subagent_runner:
            self._runner = None


class LspAccess:
    """The session's language servers: built on first use, closed with the session."""

    def __init__(self) -> None:
        self._service: LspService | None = None
        self._enabled = False

    @property
    def enabled(self) -> bool:
        """Whether :meth:`enable` turned LSP on (whatever ``lsp.enabled`` says)."""
        return self._enabled

    def enable(self) -> None:
        """Turn LSP on for the session, as ``--experimental-lsp`` does."""
        self._enabled = True

    def service(self, build: Callable[[], LspService]) -> LspService:
        """The session's :class:`~qwen_tools.lsp.service.LspService` (``build`` makes it once)."""
        if self._service is None:
            self._service = build()
        return self._service

    @property
    def active(self) -> LspService | None:
        """The service, when one was built."""
        return self._service

    async def aclose(self) -> None:
        """Shut the servers down (their process trees ended); a later call builds afresh."""
        service, self._service = self._service, None
        if service is not None:
            await service.manager.aclose()


@dataclass(frozen=True)
class ConfigServices:
    """What a session's ``Config`` owns besides settings and state."""

    file_service: FileDiscoveryService
    model: ModelAccess = field(default_factory=ModelAccess)
    lsp: LspAccess = field(default_factory=LspAccess)
