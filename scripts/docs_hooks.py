"""MkDocs hooks of the documentation site (``mkdocs.yml``): pages built from the code and README.

* ``<!-- tool-schema: NAME -->`` on a tool's page becomes what the model is told about the
  built-in tool ``NAME`` (its description and a table of its parameters), read from the tool's
  real declaration at build time, so the page cannot drift from the schema. Every built-in tool
  must have a page ``tools/NAME.md`` holding its marker, or the build fails.
* ``<!-- tool-example: NAME {ARGS} -->`` becomes that call, run at build time through a
  ``Session`` (approval mode ``yolo``) on a small sample project, and the text the model gets
  back; ``{ws}`` in the arguments stands for the project's directory, shown as
  ``/home/user/project``. A page's examples run in order in one session.
* ``<!-- readme: KEY -->`` becomes the README's text between ``<!-- --8<-- [start:KEY] -->`` and
  ``<!-- --8<-- [end:KEY] -->`` (the snippets extension's markers, hidden on GitHub), with links
  into ``docs/`` made relative to the site: the README stays the one copy of that text.
* ``<!-- api-reference -->`` becomes a mkdocstrings block for every name ``qwen_tools`` exports,
  grouped by the package that defines it. The docstrings' Sphinx roles (``:class:`~a.B```),
  which mkdocstrings leaves as they are, are shown as plain code (``B``).

The tools are built on an empty temporary workspace with a temporary HOME, so no user settings
shape the pages.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import tempfile
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[1]
TOOL_MARK = re.compile(r"<!-- tool-schema: (\w+) -->")
EXAMPLE_MARK = re.compile(r"<!-- tool-example: (\w+) (\{.*?\}) -->")
SHOWN_ROOT = "/home/user/project"
SAMPLE_PROJECT = {
    "README.md": "# demo\n\nA small project.\n",
    "src/app.py": 'def greet(name):\n    return f"Hello, {name}!"\n\n\nprint(greet("world"))\n',
    "src/util.py": "def add(a, b):\n    return a + b\n",
}
README_MARK = re.compile(r"<!-- readme: ([\w-]+) -->")
API_MARK = "<!-- api-reference -->"
SPHINX_ROLE = re.compile(r":(?:class|meth|func|mod|attr|data|exc|obj):<code>(~?)([^<]*)</code>")
_declarations: dict[str, Any] | None = None
_pages_of_keys: dict[str, str] = {}  # README section key -> the page that includes it


def builtin_declarations() -> dict[str, Any]:
    """Name -> (tool, declaration) of every built-in tool, built once per build."""
    global _declarations
    if _declarations is None:
        import qwen_tools.tools as builtins
        from qwen_tools import Config

        with tempfile.TemporaryDirectory() as tmp, _Isolated(tmp):
            config = Config.load(tmp)
            tools = [getattr(builtins, n)(config) for n in builtins.__all__ if n.endswith("Tool")]
        _declarations = {tool.name: (tool, tool.schema) for tool in tools}
    return _declarations


def _type_of(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        return schema["$ref"].rsplit("/", 1)[-1]
    kind = schema.get("type", "any")
    if isinstance(kind, list):
        kind = " \\| ".join(kind)
    if kind == "array":
        return f"array of {_type_of(schema.get('items', {}))}"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    return f"{kind}"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def parameter_rows(schema: dict[str, Any], prefix: str = "") -> list[tuple[str, str, bool, str]]:
    """(name, type, required, description) of each property, nested objects flattened."""
    rows: list[tuple[str, str, bool, str]] = []
    required = set(schema.get("required", []))
    for name, prop in schema.get("properties", {}).items():
        notes = prop.get("description", "")
        if "default" in prop:
            notes = f"{notes} Default: `{json.dumps(prop['default'])}`.".strip()
        rows.append((f"{prefix}{name}", _type_of(prop), name in required, notes))
        if prop.get("type") == "object":
            rows += parameter_rows(prop, f"{prefix}{name}.")
        items = prop.get("items", {})
        if prop.get("type") == "array" and items.get("type") == "object":
            rows += parameter_rows(items, f"{prefix}{name}[].")
    return rows


def tool_section(name: str) -> str:
    found = builtin_declarations().get(name)
    if found is None:
        raise PluginError(f"tool-schema: no built-in tool named {name!r}")
    tool, declaration = found
    lines = [
        f"**Name** `{name}` · **display name** {tool.display_name} · **kind** `{tool.kind.value}`",
        "",
        "### Parameters",
        "",
        "| parameter | type | required | description |",
        "|---|---|---|---|",
    ]
    for param, kind, needed, notes in parameter_rows(declaration.parameters_json_schema):
        lines.append(f"| `{param}` | {kind} | {'yes' if needed else ''} | {_cell(notes)} |")
    if not declaration.parameters_json_schema.get("properties"):
        lines.append("| (none) | | | |")
    lines += [
        "",
        '??? note "The description the model is given"',
        "",
        "    ```text",
        *[f"    {line}".rstrip() for line in declaration.description.splitlines()],
        "    ```",
        "",
    ]
    return "\n".join(lines)


def _slug(heading: str) -> str:
    """The anchor GitHub gives a README heading (the README's own links use these)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _readme_anchors(text: str) -> dict[str, str]:
    """README heading anchor -> the key of the section that follows the heading."""
    found = re.findall(r"^#+ (.+)\n<!-- --8<-- \[start:([\w-]+)\] -->", text, re.MULTILINE)
    return {_slug(heading): key for heading, key in found}


class _Isolated:
    """A temporary HOME (and QWEN_HOME) while the tools are built or run."""

    def __init__(self, home: str) -> None:
        self.home = home
        self.saved: dict[str, str | None] = {}

    def __enter__(self) -> None:
        self.saved = {k: os.environ.get(k) for k in ("HOME", "QWEN_HOME")}
        os.environ["HOME"] = self.home
        os.environ["QWEN_HOME"] = str(Path(self.home) / ".qwen")

    def __exit__(self, *exc: object) -> None:
        for key, value in self.saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def run_examples(calls: list[tuple[str, str]]) -> list[str]:
    """Run ``(name, args JSON)`` calls in one session on the sample project: one section each."""
    import asyncio

    from qwen_tools import Session

    async def run(ws: Path) -> list[str]:
        out = []
        async with Session(ws, approval_mode="yolo", mcp="off") as session:
            for name, raw in calls:
                args = json.loads(raw.replace("{ws}", str(ws)))
                done = await session.call(name, args)
                shown = json.dumps(args, indent=2).replace(str(ws), SHOWN_ROOT)
                answer = done.response_text.replace(str(ws), SHOWN_ROOT)
                out.append(
                    "\n".join(
                        [
                            f"The call (`{name}`):",
                            "",
                            "```json",
                            shown,
                            "```",
                            "",
                            f"What the model gets back (status `{done.status}`):",
                            "",
                            "```text",
                            answer.rstrip("\n"),
                            "```",
                        ]
                    )
                )
        return out

    with (
        tempfile.TemporaryDirectory() as home,
        tempfile.TemporaryDirectory() as tmp,
        _Isolated(home),
    ):
        ws = Path(tmp) / "project"
        for rel, content in SAMPLE_PROJECT.items():
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws / rel).write_text(content)
        return asyncio.run(run(ws.resolve()))


def readme_section(key: str, page_uri: str = "index.md") -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = f"<!-- --8<-- [start:{key}] -->"
    end = f"<!-- --8<-- [end:{key}] -->"
    if start not in text or end not in text:
        raise PluginError(f"README.md has no section {key!r} ({start} ... {end})")
    body = text.split(start, 1)[1].split(end, 1)[0]
    anchors = _readme_anchors(text)

    def relink(match: re.Match[str]) -> str:
        # a link to another README section points at the page that includes that section
        target = _pages_of_keys.get(anchors.get(match.group(1), ""))
        if target is None or target == page_uri:
            return match.group(0)
        return "](" + posixpath.relpath(target, posixpath.dirname(page_uri) or ".") + ")"

    body = re.sub(r"\]\(#([\w-]+)\)", relink, body)
    return re.sub(r"\]\(docs/", "](", body).strip("\n")


def api_reference() -> str:
    import qwen_tools

    table: dict[str, str] = qwen_tools._EXPORTS  # name -> defining module, the lazy-export table
    groups: dict[str, list[str]] = {}
    for name, module in table.items():
        groups.setdefault(module.split(".")[0], []).append(name)
    out: list[str] = []
    for package, names in groups.items():
        out += [f"## `qwen_tools.{package}`", ""]
        for name in names:
            out += [f"::: qwen_tools.{name}", ""]
    return "\n".join(out)


def on_files(files: Any, config: Any) -> Any:
    """Fail the build when a built-in tool has no page."""
    missing = [
        name
        for name in builtin_declarations()
        if files.get_file_from_path(f"tools/{name}.md") is None
    ]
    if missing:
        raise PluginError(f"built-in tools without a page under docs/tools/: {missing}")
    _pages_of_keys.clear()
    for file in files.documentation_pages():
        for key in README_MARK.findall(Path(file.abs_src_path).read_text(encoding="utf-8")):
            _pages_of_keys.setdefault(key, file.src_uri)
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    src = page.file.src_uri
    marks = TOOL_MARK.findall(markdown)
    if src.startswith("tools/") and src != "tools/index.md" and marks != [Path(src).stem]:
        raise PluginError(f"{src} must hold exactly its own marker <!-- tool-schema: NAME -->")
    markdown = TOOL_MARK.sub(lambda m: tool_section(m.group(1)), markdown)
    examples = EXAMPLE_MARK.findall(markdown)
    if examples:
        shown = iter(run_examples(examples))
        markdown = EXAMPLE_MARK.sub(lambda m: next(shown), markdown)
    markdown = README_MARK.sub(lambda m: readme_section(m.group(1), src), markdown)
    if API_MARK in markdown:
        markdown = markdown.replace(API_MARK, api_reference())
    return markdown


def _plain_role(match: re.Match[str]) -> str:
    short, target = match.group(1), match.group(2)
    return f"<code>{target.rsplit('.', 1)[-1] if short else target}</code>"


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    return SPHINX_ROLE.sub(_plain_role, html)
