"""Output size control: persistence gate, per-tool truncation, batch budget.

Expected texts in ``output_budget_golden.json`` were produced by Qwen Code 0.24.4's own
``truncateToolOutput``, ``persistAndTruncateToolResult`` and ``finalizeToolResponses`` for the
inputs built below (the saved file's path replaced by ``{PATH}``).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import stat
from pathlib import Path
from typing import Any, Literal

import pytest

from qwen_tools import BaseDeclarativeTool, Config, Kind, ToolResult
from qwen_tools.config.tool_settings import ToolSettings
from qwen_tools.contract.errors import ToolErrorType
from qwen_tools.contract.parts import FunctionResponse, InlineDataPart, TextPart
from qwen_tools.execution import persisted_output
from qwen_tools.execution.output_budget import (
    apply_batch_budget,
    apply_output_budget,
    truncate_text,
)
from qwen_tools.execution.persisted_output import SAVE_FAILED_NOTE, session_bytes_written

GOLDEN: dict[str, Any] = json.loads(
    (Path(__file__).parent / "output_budget_golden.json").read_text(encoding="utf-8")
)
PNG = InlineDataPart("image/png", "iVBORw0KGgo=")


def seq_output() -> str:
    """What ``seq 1 20000`` prints."""
    return "".join(f"{i}\n" for i in range(1, 20001))


def megabyte_output() -> str:
    return "\n".join(f"{i:06d} " + "abcdefghij" * (i % 13) for i in range(15500))


def thirty_k_output() -> str:
    return "".join(f"row {i:05d} {'y' * 50}\n" for i in range(600))[:30000]


class _Tool(BaseDeclarativeTool[dict[str, Any]]):
    def __init__(
        self,
        name: str = "glob",
        *,
        max_output_chars: float | None = None,
        keep: Literal["head", "tail", "both"] = "both",
    ) -> None:
        super().__init__(name, name, "test tool", Kind.READ, {"type": "object"})
        self.max_output_chars = max_output_chars
        self.truncate_keep = keep

    def create_invocation(self, params: dict[str, Any]) -> Any:  # pragma: no cover - unused
        raise NotImplementedError


@pytest.fixture
def runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "runtime"
    monkeypatch.setenv("QWEN_RUNTIME_DIR", str(root))
    return root


def make_config(
    tmp_path: Path,
    *,
    truncate_tool_output_threshold: int = 25000,
    truncate_tool_output_lines: int = 1000,
) -> Config:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    settings = ToolSettings(
        truncate_tool_output_threshold=truncate_tool_output_threshold,
        truncate_tool_output_lines=truncate_tool_output_lines,
    )
    return Config(project, settings=settings, home_dir=tmp_path / "home")


def saved_path(text: str) -> str:
    match = re.search(r"(?:saved to|Full output saved to): (\S+)\n", text)
    assert match, text[:300]
    return match.group(1)


def assert_private_file(path: str, content: str, config: Config) -> None:
    file = Path(path)
    assert file.read_text(encoding="utf-8") == content
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert file.is_relative_to(config.get_project_temp_dir())


# -- per-tool truncation ----------------------------------------------------------------------


def test_seq_at_threshold_4000_matches_reference(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path, truncate_tool_output_threshold=4000)
    content = seq_output()
    result = ToolResult(content, output_budget_applied=True)  # the gate is skipped
    out = apply_output_budget(_Tool("run_shell_command"), "c1", result, config)
    assert isinstance(out.llm_content, str)
    path = saved_path(out.llm_content)
    assert out.llm_content == GOLDEN["seq_global_4000"].replace("{PATH}", path)
    assert re.fullmatch(r"run_shell_command_[0-9a-f]{12}\.output", Path(path).name)
    assert Path(path).parent == config.get_project_temp_dir()
    assert_private_file(path, content, config)
    assert truncate_text(content, threshold=4000, lines=1000, saved_to=path) == out.llm_content


@pytest.mark.parametrize("keep", ["head", "tail"])
def test_tool_budget_keeps_one_end(
    tmp_path: Path, runtime: Path, keep: Literal["head", "tail"]
) -> None:
    config = make_config(tmp_path)
    tool = _Tool("grep_search", max_output_chars=4000, keep=keep)
    result = ToolResult(seq_output(), output_budget_applied=True)
    out = apply_output_budget(tool, "c1", result, config)
    assert isinstance(out.llm_content, str)
    path = saved_path(out.llm_content)
    assert out.llm_content == GOLDEN[f"seq_tool_4000_{keep}"].replace("{PATH}", path)


def test_megabyte_output_truncated_by_global_budget(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    content = megabyte_output()
    out = apply_output_budget(
        _Tool(), "c1", ToolResult(content, output_budget_applied=True), config
    )
    assert isinstance(out.llm_content, str)
    path = saved_path(out.llm_content)
    assert out.llm_content == GOLDEN["megabyte_global"].replace("{PATH}", path)
    assert out.llm_content.startswith(
        "Tool output was too large and has been truncated.\n"
        f"The full output has been saved to: {path}\n"
        "To read the complete output, use the read_file tool with the absolute file path above.\n"
        "The truncated output below shows the beginning and end of the content. The marker "
        "'... [CONTENT TRUNCATED] ...' indicates where content was removed.\n\n"
        "Truncated part of the output:\n000000 \n"
    )
    assert "\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n" in out.llm_content
    assert_private_file(path, content, config)


def test_truncate_text_returns_none_when_not_needed_or_not_shorter() -> None:
    assert truncate_text("short", threshold=100, lines=10) is None
    assert truncate_text("x\n" * 100, threshold=25000, lines=10) is None  # envelope is longer
    assert truncate_text("a" * 50_000, threshold=0, lines=None) is None  # disabled
    cut = truncate_text("\n".join(["a" * 99] * 500), threshold=1000, lines=None)
    assert cut is not None
    head, tail = cut.split("\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n")
    assert head == "a" * 99 + "\n" + "a" * 89 + "..."  # (1000 - 39) // 5 = 192 chars
    assert tail == "..." + "a" * 66 + ("\n" + "a" * 99) * 7  # the other 769


def test_line_limit_alone_when_threshold_disabled(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path, truncate_tool_output_threshold=0, truncate_tool_output_lines=100)
    content = seq_output()
    out = apply_output_budget(_Tool(), "c1", ToolResult(content), config)
    assert isinstance(out.llm_content, str)
    kept = out.llm_content.split("Truncated part of the output:\n", 1)[1]
    head, tail = kept.split("\n\n---\n... [CONTENT TRUNCATED] ...\n---\n\n")
    assert head == "\n".join(str(i) for i in range(1, 21))
    assert tail == "\n".join(str(i) for i in range(19922, 20001)) + "\n"


def test_all_limits_disabled(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path, truncate_tool_output_threshold=-1, truncate_tool_output_lines=0)
    result = ToolResult(megabyte_output())
    assert apply_output_budget(_Tool(), "c1", result, config) is result
    assert not runtime.exists()


def test_save_failure_keeps_the_cut_text_with_a_note(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path, truncate_tool_output_threshold=4000)
    temp = config.get_project_temp_dir()
    temp.parent.mkdir(parents=True)
    temp.write_text("not a directory")
    out = apply_output_budget(_Tool(), "c1", ToolResult(seq_output()), config)
    assert isinstance(out.llm_content, str)
    assert out.llm_content.endswith("19999\n20000\n" + SAVE_FAILED_NOTE)
    assert "[CONTENT TRUNCATED]" in out.llm_content
    assert session_bytes_written(config) == 0


# -- persistence gate -------------------------------------------------------------------------


def test_persisted_stub_for_30k_output(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    content = thirty_k_output()
    out = apply_output_budget(_Tool(), "call_30k", ToolResult(content), config)
    path = str(config.get_project_temp_dir() / "tool-results" / "call_30k.txt")
    assert out.llm_content == GOLDEN["stub_30k"].replace("{PATH}", path)
    assert isinstance(out.llm_content, str)
    digest = hashlib.sha256(content.encode()).hexdigest()
    assert f"Full output sha256: {digest}\n" in out.llm_content
    assert out.llm_content.startswith(
        f"<persisted-output>\nOutput too large (29 KB). Full output saved to: {path}\n"
    )
    assert out.llm_content.endswith("\n...\n</persisted-output>")
    assert_private_file(path, content, config)
    assert path.startswith(str(runtime / "tmp"))
    assert session_bytes_written(config) == 30000


def test_gate_keeps_media_parts(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    content = thirty_k_output()
    out = apply_output_budget(_Tool(), "m1", ToolResult([TextPart(content), PNG]), config)
    assert isinstance(out.llm_content, list)
    stub, media = out.llm_content
    assert media is PNG
    assert isinstance(stub, TextPart) and stub.text.startswith("<persisted-output>\n")
    # as in the reference, the saved text is the parts joined with "\n" (media count as "")
    assert_private_file(saved_path(stub.text), content + "\n", config)


def test_truncation_keeps_media_parts(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path, truncate_tool_output_threshold=4000)
    result = ToolResult([seq_output(), PNG], output_budget_applied=True)
    out = apply_output_budget(_Tool("run_shell_command"), "m2", result, config)
    assert isinstance(out.llm_content, list)
    text, media = out.llm_content
    assert media is PNG
    assert isinstance(text, TextPart)
    assert text.text == GOLDEN["seq_global_4000"].replace("{PATH}", saved_path(text.text))


def test_tool_budget_above_threshold_defers_the_gate(tmp_path: Path, runtime: Path) -> None:
    """Our change: an MCP tool (500,000 chars) keeps a 30,000-char answer whole."""
    config = make_config(tmp_path)
    result = ToolResult(thirty_k_output())
    mcp = _Tool("mcp__srv__dump", max_output_chars=500_000)
    assert apply_output_budget(mcp, "c1", result, config) is result
    big = ToolResult("z" * 600_000)
    out = apply_output_budget(mcp, "c2", big, config)
    assert isinstance(out.llm_content, str) and out.llm_content.startswith("<persisted-output>")


@pytest.mark.parametrize(
    ("tool", "applied", "text"),
    [
        (_Tool("read_file"), False, thirty_k_output()),
        (_Tool("read_mcp_resource"), False, thirty_k_output()),
        (_Tool("enter_plan_mode"), False, thirty_k_output()),
        (_Tool("exec"), False, thirty_k_output()),
        (_Tool("anything", max_output_chars=math.inf), False, thirty_k_output()),
        (_Tool("anything"), True, thirty_k_output()),
        (_Tool("anything"), False, "<persisted-output>\n" + thirty_k_output()),
    ],
)
def test_gate_exemptions(
    tmp_path: Path, runtime: Path, tool: _Tool, applied: bool, text: str
) -> None:
    config = make_config(tmp_path, truncate_tool_output_threshold=100_000)
    result = ToolResult(text, output_budget_applied=applied)
    assert apply_output_budget(tool, "c1", result, config) is result
    assert not (config.get_project_temp_dir() / "tool-results").exists()


def test_gate_disabled_with_threshold(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path, truncate_tool_output_threshold=0, truncate_tool_output_lines=0)
    result = ToolResult(thirty_k_output())
    assert apply_output_budget(_Tool(), "c1", result, config) is result


def test_error_results_are_untouched(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    result = ToolResult.failure("x" * 50_000, ToolErrorType.EXECUTION_FAILED)
    assert apply_output_budget(_Tool(), "c1", result, config) is result


def test_limits_replace_the_file_with_a_note(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = make_config(tmp_path)
    content = thirty_k_output()
    monkeypatch.setattr(persisted_output, "MAX_SESSION_BYTES", 40_000)
    first = apply_output_budget(_Tool(), "a", ToolResult(content), config).llm_content
    second = apply_output_budget(_Tool(), "b", ToolResult(content), config).llm_content
    assert isinstance(first, str) and first.startswith("<persisted-output>")
    assert isinstance(second, str)
    digest = hashlib.sha256(content.encode()).hexdigest()
    assert second.startswith(
        "Output too large (29 KB). (session disk budget exhausted)\n"
        f"Full output sha256: {digest}\n\nPreview (up to 2000 chars):\nrow 00000 "
    )
    monkeypatch.setattr(persisted_output, "MAX_FILE_SIZE_BYTES", 10_000)
    third = apply_output_budget(_Tool(), "c", ToolResult(content), config).llm_content
    assert isinstance(third, str)
    assert third.startswith("Output too large (29 KB). (file too large to persist)\n")


def test_unsafe_call_ids(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    content = thirty_k_output()
    out = apply_output_budget(_Tool(), "../../etc/x", ToolResult(content), config).llm_content
    assert isinstance(out, str)
    assert saved_path(out) == str(config.get_project_temp_dir() / "tool-results" / "x.txt")
    bad = apply_output_budget(_Tool(), "..", ToolResult(content), config).llm_content
    assert isinstance(bad, str) and bad.startswith("Output too large (29 KB). (invalid callId)\n")


def test_symlink_in_results_dir_is_replaced_not_followed(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    results = config.get_project_temp_dir() / "tool-results"
    results.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    (results / "s1.txt").symlink_to(victim)
    apply_output_budget(_Tool(), "s1", ToolResult(thirty_k_output()), config)
    assert victim.read_text() == "keep me"
    assert not (results / "s1.txt").is_symlink()


# -- batch budget -----------------------------------------------------------------------------


def test_batch_budget_matches_reference(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    responses = [
        FunctionResponse("glob", {"output": megabyte_output()[:60000]}, id=".."),
        FunctionResponse("grep_search", {"output": seq_output()[:5000]}, id="b", parts=(PNG,)),
        FunctionResponse("edit", {"error": "e" * 1000}, id="c"),
    ]
    out = apply_batch_budget(responses, 20000, config)
    assert [r.response for r in out] == GOLDEN["batch_20000"]
    assert out[1] is responses[1] and out[2] is responses[2]
    assert out[0].id == ".." and out[0].name == "glob"


def test_batch_budget_persists_the_largest_slot(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    big = megabyte_output()[:300_000]
    responses = [
        FunctionResponse("glob", {"output": big}, id="big", parts=(PNG,)),
        FunctionResponse("grep_search", {"output": "small"}, id="small"),
    ]
    out = apply_batch_budget(responses, 200_000, config)
    path = config.get_project_temp_dir() / "tool-results" / "big.txt"
    text = out[0].output
    assert text is not None and len(text) == 200_000 - len("small")
    header = f"Tool output truncated. Persisted tool-output artifact: {path}\n\n"
    assert text.startswith(header)
    body = 200_000 - 5 - len(header) - len("\n...\n")
    assert text == header + big[: body // 5] + "\n...\n" + big[-(body - body // 5) :]
    assert out[0].parts == (PNG,)
    assert out[1] is responses[1]
    assert_private_file(str(path), big, config)


def test_batch_budget_within_or_disabled(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    responses = [FunctionResponse("glob", {"output": "x" * 1000}, id="a")]
    assert apply_batch_budget(responses, 0, config) is responses
    assert apply_batch_budget(responses, 1000, config) is responses
    assert not runtime.exists()


def test_batch_budget_does_not_persist_twice(tmp_path: Path, runtime: Path) -> None:
    config = make_config(tmp_path)
    first = apply_output_budget(_Tool(), "p1", ToolResult(thirty_k_output()), config)
    assert isinstance(first.llm_content, str)
    stub_file = saved_path(first.llm_content)
    responses = [FunctionResponse("glob", {"output": first.llm_content}, id="p1")]
    out = apply_batch_budget(responses, 1000, config)
    assert out[0].output is not None
    assert out[0].output.startswith(
        f"Tool output truncated. Persisted tool-output artifact: {stub_file}\n\n"
    )
    assert len(out[0].output) == 1000
    assert sorted(p.name for p in Path(stub_file).parent.iterdir()) == ["p1.txt"]
