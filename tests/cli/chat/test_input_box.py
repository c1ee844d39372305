"""The chat's input box on a real terminal, read off an emulated screen (pyte) at 80×24, 120×40.

A rounded border around the input (``╭─╮ │ > … │ ╰─╯``) with the placeholder inside; long lines
wrap inside the borders and the box grows with them and with new lines; the footer sits right
under it; a sent prompt stays in the scrollback without the box. Shell mode (``!``) turns the
border yellow and says so; completion, history and Shift-Tab still work inside the box.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.chat_terminal import EXE, ScreenTerminal, base_env, input_box
from support.fake_openai import FakeOpenAI, Reply


def _text(box: list[str]) -> str:
    """The typed text in ``box`` (each row without its border, padding and prompt sign)."""
    return "".join(row[4:-2] for row in box[1:-1]).rstrip()


def _has_box(rows: list[str], columns: int, inside: str) -> bool:
    box = input_box(rows)
    return bool(box) and inside in "\n".join(box) and all(len(row) == columns for row in box)


def _footer(rows: list[str]) -> str | None:
    """The row right under the input box, if it is the footer."""
    box = input_box(rows)
    below = rows.index(box[-1]) + 1 if box else len(rows)
    return rows[below] if below < len(rows) and "context left" in rows[below] else None


@pytest.mark.parametrize("size", [(24, 80), (40, 120)], ids=["80x24", "120x40"])
def test_the_input_box(tmp_path: Path, ws: Path, size: tuple[int, int]) -> None:
    (ws / "docs").mkdir()
    (ws / "docs" / "notes.txt").write_text("x\n")
    columns = size[1]
    long = " ".join(f"word{i}" for i in range(columns // 4))  # wider than the box
    with FakeOpenAI([Reply(content="Hi there.")]) as server:
        model = {"OPENAI_API_KEY": "k", "OPENAI_MODEL": "fake-model", "OPENAI_BASE_URL": server.url}
        term = ScreenTerminal([str(EXE), "chat"], {**base_env(tmp_path), **model}, ws, size)
        try:
            _drive(term, columns, long)
        finally:
            term.close()
    sent = server.requests[0]["messages"][-1]["content"]
    text = sent if isinstance(sent, str) else sent[-1]["text"]
    assert text == long + "\nsecond line"


def _drive(term: ScreenTerminal, columns: int, long: str) -> None:
    shown = term.wait_screen(
        lambda r: _has_box(r, columns, "> Type your") and _footer(r) is not None
    )
    box = input_box(shown.display)
    assert box[0] == "╭" + "─" * (columns - 2) + "╮"
    assert box[1].startswith("│ > Type your message or @path/to/file") and box[1][-1] == "│"
    assert box[-1] == "╰" + "─" * (columns - 2) + "╯"
    assert "ws" in str(_footer(shown.display))  # the footer right under the box
    normal_border = shown.buffer[shown.display.index(box[0])][0].fg

    term.send(long)  # wraps inside the borders: the box grows
    shown = term.wait_screen(lambda r: _text(input_box(r)) == long)
    box = input_box(shown.display)
    assert len(box) >= 4
    assert all(row[0] == "│" and row[-1] == "│" for row in box[1:-1])
    term.send("\nsecond line")  # Ctrl-J: one more line in the box
    shown = term.wait_screen(lambda r: _has_box(r, columns, "│ … second line"))
    box = input_box(shown.display)
    assert box[-2].startswith("│ … second line") and box[-2][-1] == "│"

    term.send("\r")
    shown = term.wait_screen(
        lambda r: "Hi there." in "\n".join(r) and _has_box(r, columns, "Type your")
    )
    assert any(row.startswith("> word0 word1") for row in shown.display)  # sent: no box

    term.send("!echo hi")  # shell mode: said, and a yellow border
    shown = term.wait_screen(lambda r: _has_box(r, columns, "shell mode"))
    top = shown.display.index(input_box(shown.display)[0])
    assert shown.buffer[top][0].fg == "brown" != normal_border
    term.send("\x03")  # Ctrl-C clears the input: the box is back to normal
    shown = term.wait_screen(lambda r: _has_box(r, columns, "Type your"))
    top = shown.display.index(input_box(shown.display)[0])
    assert shown.buffer[top][0].fg == normal_border

    term.send("look at @do")  # completion inside the box
    term.wait_screen(lambda r: _has_box(r, columns, "docs/"))
    term.send("\x03")
    term.wait_screen(lambda r: _has_box(r, columns, "Type your"))
    term.send("\x1b[A")  # Up: the last prompt again, both lines, in the box
    term.wait_screen(lambda r: _has_box(r, columns, "│ … second line"))
    term.send("\x03")
    term.wait_screen(lambda r: _has_box(r, columns, "Type your"))

    term.send("half a thought\x1b")  # Esc on a typed prompt: a second Esc clears it
    term.wait_screen(lambda r: _has_box(r, columns, "Press Esc again to clear."))
    term.send("\x1b")
    term.wait_screen(lambda r: _has_box(r, columns, "Type your"))
    term.send("!ls\x1b")  # Esc in shell mode leaves it: the command stays, without the '!'
    shown = term.wait_screen(lambda r: _has_box(r, columns, "│ > ls "))
    assert "shell mode" not in "".join(input_box(shown.display))
    term.send("\x03")
    term.send("\x1b[Z")  # Shift-Tab
    term.wait_screen(lambda r: any("auto-edit" in row for row in r))
    term.send("\x1b[Z")  # default → auto-edit → auto → yolo → plan, as in Qwen Code 0.24.4
    term.wait_screen(lambda r: any("auto mode" in row for row in r))
    term.send("/quit\r")
    assert term.finish() == 0
