"""The documentation site (``mkdocs.yml``) is built from the code: every built-in tool's page
shows its real parameters, README sections are included rather than copied, and a tool without
a page, or a page naming a README section that is gone, fails the strict build."""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from qwen_tools import Config, tools as builtins
from support.cli_env import isolated_env

pytest.importorskip("mkdocs")
pytest.importorskip("mkdocstrings")

ROOT = Path(__file__).resolve().parents[2]


def build(root: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = isolated_env(site.parent, NO_MKDOCS_2_WARNING="1")
    argv = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)]
    return subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=300)


def copy_of_the_sources(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("mkdocs.yml", "README.md"):
        shutil.copy(ROOT / name, root / name)
    shutil.copytree(ROOT / "docs", root / "docs")
    (root / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "docs_hooks.py", root / "scripts" / "docs_hooks.py")
    os.symlink(ROOT / "src", root / "src")
    return root


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("docs") / "site"
    done = build(ROOT, out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def text_of(page: Path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page.read_text(encoding="utf-8")))


def test_every_tool_page_lists_its_real_parameters(
    site: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    config = Config.load(tmp_path)
    tools = [getattr(builtins, n)(config) for n in builtins.__all__ if n.endswith("Tool")]
    assert len(tools) == 17
    for tool in tools:
        page = text_of(site / "tools" / tool.name / "index.html")
        for param in tool.schema.parameters_json_schema.get("properties", {}):
            assert re.search(rf"\n{re.escape(param)}\n", page), (tool.name, param)
        first_line = tool.schema.description.splitlines()[0]
        assert first_line in page, tool.name
    # the examples ran at build time, through a session, in the page's order
    read = text_of(site / "tools" / "read_file" / "index.html")
    assert "File not found: /home/user/project/missing.py" in read
    edit = text_of(site / "tools" / "edit" / "index.html")
    assert "has not been read in this session" in edit
    assert "The file: /home/user/project/src/util.py has been updated." in edit


def test_readme_sections_and_the_api_reference_are_in_the_site(site: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for key, page in [("security", "security"), ("scale", "scale"), ("adapters", "adapters")]:
        section = readme.split(f"[start:{key}] -->", 1)[1].split(f"<!-- --8<-- [end:{key}]", 1)[0]
        first_words = " ".join(re.sub(r"[`*]", "", section).split()[:6])
        assert first_words in " ".join(text_of(site / page / "index.html").split()), key
    api = (site / "api" / "index.html").read_text(encoding="utf-8")
    assert ":class:" not in api and ":meth:" not in api  # Sphinx roles shown as code
    for name in ("Session", "tool", "ToolScheduler", "McpManager", "AgentSession"):
        assert f'id="qwen_tools.{name}"' in api, name


def test_a_tool_without_a_page_fails_the_build(tmp_path: Path) -> None:
    root = copy_of_the_sources(tmp_path)
    (root / "docs" / "tools" / "glob.md").unlink()
    # no nav entry and no link left either: only the hook can notice the missing page
    nav = (root / "mkdocs.yml").read_text(encoding="utf-8")
    (root / "mkdocs.yml").write_text(nav.replace("      - glob: tools/glob.md\n", ""))
    index = root / "docs" / "tools" / "index.md"
    index.write_text(index.read_text(encoding="utf-8").replace("[`glob`](glob.md)", "`glob`"))
    done = build(root, tmp_path / "site")
    assert done.returncode != 0
    assert "built-in tools without a page under docs/tools/: ['glob']" in done.stderr


def test_a_missing_readme_section_fails_the_build(tmp_path: Path) -> None:
    root = copy_of_the_sources(tmp_path)
    readme = (root / "README.md").read_text(encoding="utf-8")
    (root / "README.md").write_text(readme.replace("[start:hooks]", "[start:gone]"))
    done = build(root, tmp_path / "site")
    assert done.returncode != 0
    assert "README.md has no section 'hooks'" in done.stderr


def test_the_settings_reference_names_every_tool_key_read() -> None:
    """Each settings key ``ToolSettings`` reads is in the reference table of docs/settings.md."""
    source = (ROOT / "src" / "qwen_tools" / "config" / "tool_settings.py").read_text()
    calls = re.finditer(r'(?:r|reader)\.\w+\(\s*((?:"[A-Za-z]+",\s*)+"[A-Za-z]+")', source)
    keys = {".".join(re.findall(r'"([A-Za-z]+)"', call.group(1))) for call in calls}
    keys |= {".".join(pair) for pair in re.findall(r'key = \("(\w+)", "(\w+)"\)', source)}
    assert {"tools.core", "tools.shell.defaultTimeoutMs", "permissions.deny"} <= keys
    reference = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([\w.]+)`(?: / `([\w.]+)`)?", reference, re.MULTILINE))
    names = {name for pair in documented for name in pair if name}
    assert keys - names == set()


def test_the_site_and_the_examples_import_only_public_modules() -> None:
    """As the README (tests/integrations/test_public_api.py): ``qwen_tools``, an adapter, or a
    package listing the names in its ``__all__``."""
    import importlib

    def is_public(module: str, names: list[str]) -> bool:
        adapters = ("pydantic_ai", "openai_agents", "langchain")
        if module in {"qwen_tools", *(f"qwen_tools.integrations.{a}" for a in adapters)}:
            return True
        package = importlib.import_module(module)
        exported = getattr(package, "__all__", None)
        return hasattr(package, "__path__") and exported is not None and set(names) <= set(exported)

    sources = [*(ROOT / "docs").rglob("*.md"), *(ROOT / "examples").rglob("*.py")]
    private = []
    for source in sources:
        pattern = r"^\s*from (qwen_tools[\w.]*) import \(?([^)\n]*)"
        for module, names in re.findall(pattern, source.read_text(encoding="utf-8"), re.M):
            listed = [n.split(" as ")[0].strip() for n in names.split(",") if n.strip()]
            if not is_public(module, listed):
                private.append(f"{source.name}: {module}")
    assert len(sources) > 20 and private == []
