"""What a user imports: everything from ``qwen_tools`` (or an adapter module), nothing private.

The README is read as a user reads it: its code imports only public modules, and the functions it
names are reached through them.
"""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path

import pytest

import qwen_tools

README = Path(__file__).resolve().parents[2] / "README.md"
PUBLIC_MODULES = {
    "qwen_tools",
    "qwen_tools.integrations.pydantic_ai",
    "qwen_tools.integrations.openai_agents",
    "qwen_tools.integrations.langchain",
}


def test_every_public_name_resolves() -> None:
    for name in qwen_tools.__all__:
        assert getattr(qwen_tools, name) is not None, name
    assert len(set(qwen_tools.__all__)) == len(qwen_tools.__all__)


def test_what_a_library_user_needs_is_exported() -> None:
    needed = {
        "Session",
        "ToolScheduler",
        "ToolCallRequest",
        "McpManager",
        "register_mcp_tools",
        "build_registry",
        "build_registry_async",
        "ToolRegistry",
        "ConfirmationHandler",
        "tool",
        "check_cancelled",
        "drop_strict_nulls",
        "model_declarations",
        "read_todos",
    }
    assert needed <= set(qwen_tools.__all__)


def _is_public(module: str, names: list[str]) -> bool:
    """``qwen_tools``, an adapter, or a package that lists the names in its ``__all__``
    (the extra-gated public packages: ``qwen_tools.pool``, ``qwen_tools.rollout``)."""
    if module in PUBLIC_MODULES:
        return True
    package = importlib.import_module(module)
    exported = getattr(package, "__all__", None)
    is_package = hasattr(package, "__path__")
    return is_package and exported is not None and all(name in exported for name in names)


def test_the_readme_uses_only_public_modules() -> None:
    text = README.read_text()
    private = []
    for module, names in re.findall(r"^\s*from (qwen_tools[\w.]*) import \(?([^)\n]*)", text, re.M):
        listed = [n.split(" as ")[0].strip() for n in names.split(",") if n.strip()]
        if not _is_public(module, listed):
            private.append(module)
    private += re.findall(r"^\s*import (qwen_tools\.[\w.]*)", text, re.M)
    for reference in re.findall(r"(qwen_tools(?:\.\w+)+)\(", text):
        module, name = reference.rsplit(".", 1)
        if not _is_public(module, [name]):
            private.append(reference)
    assert private == []


@pytest.mark.parametrize(
    ("module", "framework", "extra"),
    [
        ("pydantic_ai", "pydantic_ai", "pydantic-ai"),
        ("openai_agents", "agents", "openai-agents"),
        ("langchain", "langchain_core", "langchain"),
    ],
)
def test_an_adapter_without_its_framework_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, module: str, framework: str, extra: str
) -> None:
    name = f"qwen_tools.integrations.{module}"
    monkeypatch.delitem(sys.modules, name, raising=False)
    for loaded in [m for m in sys.modules if m == framework or m.startswith(f"{framework}.")]:
        monkeypatch.delitem(sys.modules, loaded)
    monkeypatch.setitem(sys.modules, framework, None)  # as if it were not installed
    with pytest.raises(ImportError, match=re.escape(f"pip install 'qwen-tools[{extra}]'")):
        importlib.import_module(name)
