"""``read_many_files`` (the seeds' tool, as the last Qwen Code version that shipped it)."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import pytest

from qwen_tools.config.config import Config
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.abort import AbortController
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.function_response import function_response_for_result, response_text
from qwen_tools.contract.kinds import Kind
from qwen_tools.contract.parts import InlineDataPart
from qwen_tools.contract.results import ToolResult
from qwen_tools.tools.read_file import ReadFileTool
from qwen_tools.tools.read_many_files.tool import ReadManyFilesTool
from support.one_call import run_call

END = "\n--- End of content ---"
NOTHING = "No files matching the criteria were found or all were skipped."
ASSET = "asset file (image/pdf) was not explicitly requested by name or extension"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"


def write(root: Path, name: str, data: str | bytes = "") -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def block(path: Path, content: str) -> str:
    return f"--- {path} ---\n\n{content}\n\n"


async def run(root: Path | Config, params: dict[str, Any], **settings: Any) -> ToolResult:
    config = root if isinstance(root, Config) else Config(root, settings=ToolSettings(**settings))
    return await ReadManyFilesTool(config).build_and_execute(params)


def model_text(result: ToolResult) -> str:
    return response_text(function_response_for_result("read_many_files", "c1", result))


def header(root: Path) -> str:
    return f"### ReadManyFiles Result (Target Dir: `{root}`)\n\n"


def test_identity_and_schema(ws: Path) -> None:
    tool = ReadManyFilesTool(Config(ws))
    assert (tool.name, tool.display_name, tool.kind) == (
        "read_many_files",
        "ReadManyFiles",
        Kind.READ,
    )
    schema = tool.schema.parameters_json_schema
    assert schema["required"] == ["paths"]
    assert schema["properties"]["paths"]["minItems"] == 1
    assert schema["properties"]["paths"]["items"] == {"type": "string", "minLength": 1}
    assert set(schema["properties"]) == {
        "paths",
        "include",
        "exclude",
        "recursive",
        "useDefaultExcludes",
        "file_filtering_options",
    }
    options = schema["properties"]["file_filtering_options"]["properties"]
    assert set(options) == {"respect_git_ignore", "respect_qwen_ignore"}


async def test_readme_and_python_sources_in_sorted_order(ws: Path) -> None:
    readme = write(ws, "README.md", "# Sample\n")
    app = write(ws, "src/app.py", "print('app')\n")
    helpers = write(ws, "src/util/helpers.py", "def greet():\n    pass\n")
    write(ws, "src/notes.txt", "not python")
    result = await run(ws, {"paths": ["README.md", "src/**/*.py"]})
    assert result.llm_content == [
        block(readme, "# Sample\n"),
        block(app, "print('app')\n"),
        block(helpers, "def greet():\n    pass\n"),
        END,
    ]
    assert result.error is None
    assert result.return_display == (
        header(ws) + "Successfully read and concatenated content from **3 file(s)**.\n\n"
        "**Processed Files:**\n- `README.md`\n- `src/app.py`\n- `src/util/helpers.py`"
    )
    assert model_text(result) == "\n".join([*result.llm_content[:-1], END])  # type: ignore[misc]


async def test_png_only_when_requested(ws: Path) -> None:
    write(ws, "logo.png", PNG)
    notes = write(ws, "notes.txt", "text notes")
    by_extension = await run(ws, {"paths": ["*.png"]})
    part = InlineDataPart("image/png", base64.b64encode(PNG).decode(), "logo.png")
    assert by_extension.llm_content == [part, END]
    by_name = await run(ws, {"paths": ["logo.*"]})
    assert by_name.llm_content == [part, END]
    everything = await run(ws, {"paths": ["**/*"]})
    assert everything.llm_content == [block(notes, "text notes"), END]
    assert isinstance(everything.return_display, str)
    assert everything.return_display.endswith(
        f"**Skipped 1 item(s):**\n- `logo.png` (Reason: {ASSET})"
    )


async def test_include_patterns_do_not_request_assets(ws: Path) -> None:
    write(ws, "logo.png", PNG)
    notes = write(ws, "a.txt", "a")
    result = await run(ws, {"paths": ["*.txt"], "include": ["*.png"]})
    assert result.llm_content == [block(notes, "a"), END]
    assert f"- `logo.png` (Reason: {ASSET})" in str(result.return_display)


async def test_pdf_audio_and_video_are_assets_too(ws: Path) -> None:
    write(ws, "doc.pdf", b"%PDF-1.4\n%%EOF\n")
    write(ws, "song.mp3", b"ID3\x03" + bytes(20))
    write(ws, "clip.mp4", bytes(32))
    skipped = await run(ws, {"paths": ["*"]})
    assert skipped.llm_content == [NOTHING]
    display = str(skipped.return_display)
    for name in ("clip.mp4", "doc.pdf", "song.mp3"):
        assert f"- `{name}` (Reason: {ASSET})" in display
    requested = await run(ws, {"paths": ["*.pdf", "song*"]})
    parts = requested.llm_content
    assert isinstance(parts, list)
    assert [p.mime_type for p in parts if isinstance(p, InlineDataPart)] == [
        "application/pdf",
        "audio/mpeg",
    ]


async def test_git_ignored_files_are_counted(git_ws: Path) -> None:
    write(git_ws, ".gitignore", "*.log\n")
    kept = write(git_ws, "a.txt", "a")
    write(git_ws, "debug.log", "log")
    write(git_ws, "more.log", "log")
    result = await run(git_ws, {"paths": ["*.txt", "*.log"]})
    assert result.llm_content == [block(kept, "a"), END]
    assert str(result.return_display).endswith(
        "**Skipped 1 item(s):**\n- `2 file(s)` (Reason: git ignored)"
    )
    options = {"respect_git_ignore": False}
    unfiltered = await run(git_ws, {"paths": ["*.log"], "file_filtering_options": options})
    assert len(unfiltered.llm_content) == 3


async def test_qwen_ignored_files_are_counted(ws: Path) -> None:
    write(ws, ".qwenignore", "foo.*\n")
    write(ws, "foo.bar")
    write(ws, "foo.quux")
    bar = write(ws, "bar.ts", "const bar = 1;\n")
    result = await run(ws, {"paths": ["foo.bar", "bar.ts", "foo.quux"]})
    assert result.llm_content == [block(bar, "const bar = 1;\n"), END]
    display = str(result.return_display)
    assert "foo.bar" not in display
    assert display.endswith("- `2 file(s)` (Reason: qwen ignored)")
    options = {"respect_qwen_ignore": False}
    unfiltered = await run(ws, {"paths": ["foo.*"], "file_filtering_options": options})
    assert len(unfiltered.llm_content) == 3


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"paths": []}, "params/paths must NOT have fewer than 1 items"),
        ({"paths": ["a.txt", ""]}, "params/paths/1 must NOT have fewer than 1 characters"),
        ({}, "params must have required property 'paths'"),
        ({"paths": ["a"], "exclude": ["*.log", {}]}, "params/exclude/1 must be string"),
    ],
)
async def test_schema_errors(ws: Path, params: dict[str, Any], message: str) -> None:
    done = await run_call(ReadManyFilesTool(Config(ws)), params)
    assert done.response_text == message
    assert done.error_type is ToolErrorType.INVALID_TOOL_PARAMS


async def test_no_match(ws: Path) -> None:
    result = await run(ws, {"paths": ["nonexistent-file.txt", "docs"]})
    assert result.llm_content == [NOTHING]
    assert model_text(result) == NOTHING
    assert result.return_display == (
        header(ws) + "No files were read and concatenated based on the criteria."
    )


DEFAULT_EXCLUDED = [
    "node_modules/lib/index.js",
    "src/node_modules/deep/x.js",
    ".git/config.js",
    "dist/bundle.js",
    "build/out.js",
    "coverage/report.js",
    ".vscode/settings.js",
    ".idea/x.js",
    "pkg/__pycache__/m.js",
    "bower_components/b.js",
    "archive.zip",
    "lib.so",
    "report.DOCX",
    "mod.pyc",
    ".env",
    "sub/.env",
    "QWEN.md",
    "sub/qwen.md",
    ".DS_Store",
]


async def test_default_excludes(ws: Path) -> None:
    for name in DEFAULT_EXCLUDED:
        write(ws, name, "excluded")
    app = write(ws, "src/app.js", "app code")
    result = await run(ws, {"paths": ["**/*"]})
    assert result.llm_content == [block(app, "app code"), END]
    everything = await run(ws, {"paths": ["**/*"], "useDefaultExcludes": False})
    # Everything but .git/config.js: the .git directory makes the workspace a git repository,
    # whose .git contents are always git-ignored.
    assert len(everything.llm_content) == len(DEFAULT_EXCLUDED) + 1
    assert str(everything.return_display).endswith("- `1 file(s)` (Reason: git ignored)")


async def test_bare_globstar(ws: Path) -> None:
    top = write(ws, "top.txt", "top")
    deep = write(ws, "a/b/deep.txt", "deep")
    result = await run(ws, {"paths": ["**"]})
    assert result.llm_content == [block(deep, "deep"), block(top, "top"), END]
    assert (await run(ws, {"paths": ["**"], "exclude": ["**"]})).llm_content == [NOTHING]


async def test_exclude_patterns(ws: Path) -> None:
    main = write(ws, "src/main.ts", "Main content")
    write(ws, "src/main.test.ts", "Test content")
    write(ws, "temp/a.ts", "temp")
    result = await run(ws, {"paths": ["**/*.ts"], "exclude": ["**/*.test.ts", "temp/**"]})
    assert result.llm_content == [block(main, "Main content"), END]


async def test_per_file_line_budget(ws: Path) -> None:
    content = "".join(f"line {i}\n" for i in range(1, 9))  # 9 lines with the empty one
    paths = [write(ws, f"f{i}.txt", content) for i in range(3)]
    result = await run(ws, {"paths": ["*.txt"]}, truncate_tool_output_lines=10)
    shown = "Showing lines 1-3 of 9 total lines.\n---\nline 1\nline 2\nline 3"
    assert result.llm_content == [*(block(p, shown) for p in paths), END]


async def test_budget_is_at_least_one_line(ws: Path) -> None:
    paths = [write(ws, f"f{i}.txt", "one\ntwo\n") for i in range(4)]
    result = await run(ws, {"paths": ["*.txt"]}, truncate_tool_output_lines=3)
    shown = "Showing lines 1-1 of 3 total lines.\n---\none"
    assert result.llm_content == [*(block(p, shown) for p in paths), END]


async def test_three_thousand_line_file_is_cut(ws: Path) -> None:
    path = write(ws, "long.txt", "".join(f"L{i}\n" for i in range(3000)))
    config = Config(ws)
    result = await run(config, {"paths": ["long.txt"]})
    body = "\n".join(f"L{i}" for i in range(1000))
    assert result.llm_content == [
        block(path, f"Showing lines 1-1000 of 3001 total lines.\n---\n{body}"),
        END,
    ]
    cache = config.session.read_cache
    assert not cache.is_unchanged_since_full_read(str(path))  # partial
    assert cache.check_prior_read(str(path), "edit") is None  # but read


async def test_reads_count_for_the_read_cache(ws: Path) -> None:
    path = write(ws, "a.txt", "alpha\n")
    config = Config(ws)
    await run(config, {"paths": ["a.txt"]})
    assert config.session.read_cache.check_prior_read(str(path), "overwrite") is None
    again = await ReadFileTool(config).build_and_execute({"file_path": str(path)})
    assert str(again.llm_content).startswith("[File a.txt unchanged since last read")


async def test_encodings_and_line_endings(ws: Path) -> None:
    utf16 = write(ws, "enc/utf16.txt", "\ufeffhello utf16\r\nline2\n".encode("utf-16-le"))
    bom = write(ws, "enc/bom.txt", b"\xef\xbb\xbfbom line\n")
    crlf = write(ws, "enc/crlf.txt", b"alpha\r\nbeta  \r\ngamma\r\n")
    result = await run(ws, {"paths": ["enc/*"]})
    assert result.llm_content == [
        block(bom, "bom line\n"),
        block(crlf, "alpha\nbeta\ngamma\n"),
        block(utf16, "hello utf16\nline2\n"),
        END,
    ]


async def test_outside_the_workspace(ws: Path, outside: Path) -> None:
    os.symlink(outside / "secret.txt", ws / "link.txt")
    inside = write(ws, "in.txt", "inside")
    secret = outside / "secret.txt"
    reason = f"Security: Glob library returned path outside workspace. Path: {secret}"
    for pattern in ("../outside/secret.txt", str(secret)):
        result = await run(ws, {"paths": [pattern]})
        assert result.llm_content == [NOTHING]
        assert f"- `{secret}` (Reason: {reason})" in str(result.return_display)
    via_link = await run(ws, {"paths": ["*.txt"]})
    assert via_link.llm_content == [block(inside, "inside"), END]
    link = ws / "link.txt"
    link_reason = f"Security: Glob library returned path outside workspace. Path: {link}"
    assert f"- `{link}` (Reason: {link_reason})" in str(via_link.return_display)
    assert "top secret" not in model_text(via_link)


async def test_several_workspace_directories(ws: Path, outside: Path) -> None:
    first = write(ws, "file1.txt", "Content1")
    config = Config(ws, include_directories=[outside])
    result = await run(config, {"paths": ["*.txt"]})
    assert result.llm_content == [
        block(outside / "secret.txt", "top secret\n"),
        block(first, "Content1"),
        END,
    ]


async def test_special_characters_and_sort_order(ws: Path) -> None:
    special = write(ws, "src/app/[test]/(dashboard)/code.tsx", "Content of code")
    brackets = write(ws, "file[1].txt", "Content of file[1]")
    upper = write(ws, "B.txt", "B")
    lower = write(ws, "a.txt", "a")
    assert (await run(ws, {"paths": ["src/app/[test]/(dashboard)/code.tsx"]})).llm_content == [
        block(special, "Content of code"),
        END,
    ]
    assert (await run(ws, {"paths": ["file[1].txt"]})).llm_content == [
        block(brackets, "Content of file[1]"),
        END,
    ]
    ordered = await run(ws, {"paths": ["*.txt"]})
    assert ordered.llm_content == [
        block(upper, "B"),
        block(lower, "a"),
        block(brackets, "Content of file[1]"),
        END,
    ]


async def test_read_errors_and_many_files_summary(ws: Path) -> None:
    os.mkfifo(ws / "pipe.txt")
    for i in range(12):
        write(ws, f"f{i:02d}.txt", f"{i}")
    result = await run(ws, {"paths": ["*.txt"]})
    parts = result.llm_content
    assert isinstance(parts, list)
    assert len(parts) == 13
    display = str(result.return_display)
    assert "Successfully read and concatenated content from **12 file(s)**." in display
    assert "**Processed Files (first 10 shown):**\n" in display
    assert "- `f09.txt`\n- ...and 2 more.\n" in display
    assert display.endswith(
        f"**Skipped 1 item(s):**\n- `pipe.txt` (Reason: Read error: Not a regular file: "
        f"{ws}/pipe.txt)"
    )


async def test_many_skipped_items(ws: Path) -> None:
    for i in range(7):
        write(ws, f"img{i}.png", PNG)
    result = await run(ws, {"paths": ["*"]})
    display = str(result.return_display)
    assert "**Skipped 7 item(s) (first 5 shown):**\n" in display
    assert display.endswith(f"- `img4.png` (Reason: {ASSET})\n- ...and 2 more.")


async def test_aborted_search(ws: Path) -> None:
    write(ws, "a.txt", "a")
    controller = AbortController()
    controller.abort()
    invocation = ReadManyFilesTool(Config(ws)).build({"paths": ["**/*"]})
    result = await invocation.execute(controller.signal)
    assert result.error is not None
    assert result.error.type is ToolErrorType.READ_MANY_FILES_SEARCH_ERROR
    assert result.error.message == "Error during file search: This operation was aborted"


def test_description(ws: Path) -> None:
    invocation = ReadManyFilesTool(Config(ws)).build({"paths": ["*.md"], "include": ["a.py"]})
    assert invocation.get_description() == (
        f"Will attempt to read and concatenate files using patterns: `*.md`, `a.py` (within "
        f"target directory: `{ws}`). Excluding: patterns like `**/node_modules/**`, "
        '`**/.git/**...`. File encoding: utf-8. Separator: "--- path/to/file.ext ---".'
    )
    bare = ReadManyFilesTool(Config(ws)).build({"paths": ["x"], "useDefaultExcludes": False})
    assert "Excluding: none specified." in bare.get_description()
