"""Jupyter notebooks as read_file shows them: a header, then one block per cell.

Format (Qwen Code 0.24.4, ``utils/notebook.ts``)::

    Jupyter Notebook (<language>, <n> cells)

    --- Code Cell <id> [<execution count>] ---
    ```<language>
    <source>
    ```
    Output:
    <outputs, one per line>

    --- Markdown Cell <id> ---
    <source>

Cells are separated by a blank line; the id is the cell's ``id`` or ``cell-<index>``. The
language is ``metadata.language_info.name``, else ``metadata.kernelspec.language``, else
``python``. Outputs: stream text, the ``text/plain`` of results and displays (else
``[non-text output: <mime types>]``), errors as ``ename: evalue: traceback``; ANSI escapes are
removed, and outputs over 10,000 characters are cut with a pointer to ``jq``. Once the text
passes 100,000 characters the remaining cells are replaced by a one-line notice. Lengths count
UTF-16 units, as in JavaScript.
"""

from __future__ import annotations

import json
import re
from typing import Any

from qwen_tools.jscompat.jstext import utf16_len, utf16_prefix

__all__ = ["NotebookError", "render_notebook"]

_OUTPUT_LIMIT = 10_000
_TOTAL_LIMIT = 100_000
_ANSI = re.compile(
    r"\x1B(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1B]*(?:\x07|\x1B\\)|[P_^X][^\x1B]*\x1B\\|[@-Z\\-_])"
)
_MIME = re.compile(r"[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(?:\+[A-Za-z0-9!#$&^_.+-]+)?")


class NotebookError(ValueError):
    """The file is not a notebook (bad JSON, or not the expected shape)."""


def _js_str(value: Any) -> str:
    """``String(value)`` for JSON values (``null`` inside arrays joins as empty)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    if isinstance(value, list):
        return ",".join(_js_str(item) for item in value)
    if isinstance(value, dict):
        return "[object Object]"
    return str(value)


def _get(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


def _joined(value: Any) -> str:
    """A source or text field: lists are concatenated, anything else stringified."""
    if isinstance(value, list):
        return "".join(_js_str(item) for item in value)
    return _js_str(value)


def _strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def _output_text(output: Any) -> str:
    kind = _get(output, "output_type")
    if kind == "stream":
        text = _get(output, "text")
        return _strip_ansi(_joined(text)) if text else ""
    if kind in ("execute_result", "display_data"):
        data = _get(output, "data")
        plain = _get(data, "text/plain")
        if isinstance(plain, str | list):
            return _strip_ansi(_joined(plain))
        mimes = [key for key in data if _MIME.fullmatch(key)] if isinstance(data, dict) else []
        return f"[non-text output: {', '.join(mimes)}]" if mimes else ""
    if kind == "error":
        parts = [_js_str(v) for v in (_get(output, "ename"), _get(output, "evalue")) if v]
        traceback = _get(output, "traceback")
        if isinstance(traceback, list) and traceback:
            parts.append("\n".join(_js_str(line) for line in traceback))
        return _strip_ansi(": ".join(parts))
    return ""


def _cell_text(cell: dict[str, Any], index: int, language: str) -> str:
    cell_id = cell.get("id")
    shown_id = cell_id if isinstance(cell_id, str) and cell_id else f"cell-{index}"
    source = _joined(cell.get("source"))
    kind = cell.get("cell_type")
    if kind == "code":
        count = cell.get("execution_count")
        label = f" [{_js_str(count)}]" if count is not None else ""
        parts = [f"--- Code Cell {shown_id}{label} ---", f"```{language}", source, "```"]
        outputs = cell.get("outputs")
        texts = [t for t in map(_output_text, outputs) if t] if isinstance(outputs, list) else []
        if texts:
            combined = "\n".join(texts)
            length = utf16_len(combined)
            if length > _OUTPUT_LIMIT:
                combined = (
                    f"{utf16_prefix(combined, _OUTPUT_LIMIT)}\n... [output truncated, total "
                    f"{length} chars. Use shell: cat <notebook_path> | jq "
                    f"'.cells[{index}].outputs']"
                )
            parts += ["Output:", combined]
        return "\n".join(parts)
    titles = {"markdown": "Markdown Cell", "raw": "Raw Cell"}
    title = titles.get(kind, "Cell") if isinstance(kind, str) else "Cell"
    return f"--- {title} {shown_id} ---\n{source}"


def _reject_constant(name: str) -> Any:
    raise NotebookError(f"Unexpected token '{name[0]}' in JSON")


def _parse(data: bytes) -> dict[str, Any]:
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    try:
        parsed = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise NotebookError(str(exc)) from None
    if isinstance(parsed, list):
        raise NotebookError("Invalid notebook: missing cells array")
    if not isinstance(parsed, dict):
        raise NotebookError("Invalid notebook: expected a JSON object")
    cells = parsed.get("cells")
    if not isinstance(cells, list):
        raise NotebookError("Invalid notebook: missing cells array")
    for index, cell in enumerate(cells):
        if not isinstance(cell, dict):
            raise NotebookError(f"Invalid notebook: cell at index {index} is not an object")
    return parsed


def render_notebook(data: bytes) -> tuple[str, bool]:
    """The notebook's text and whether cells were left out; raises :class:`NotebookError`."""
    notebook = _parse(data)
    cells: list[dict[str, Any]] = notebook["cells"]
    metadata = notebook.get("metadata")
    language = _get(_get(metadata, "language_info"), "name")
    if language is None:
        language = _get(_get(metadata, "kernelspec"), "language")
    language_text = "python" if language is None else _js_str(language)
    if not cells:
        return "(empty notebook)", False
    header = f"Jupyter Notebook ({language_text}, {len(cells)} cells)"
    total = utf16_len(header)
    texts: list[str] = []
    truncated = False
    for index, cell in enumerate(cells):
        text = _cell_text(cell, index, language_text)
        total += utf16_len(text) + 2
        if total > _TOTAL_LIMIT:
            truncated = True
            texts.append(
                f"... [{len(cells) - index} remaining cells truncated, total {len(cells)} "
                f"cells. Use shell to inspect: cat <path> | jq '.cells[{index}:]']"
            )
            break
        texts.append(text)
    return header + "\n\n" + "\n\n".join(texts), truncated
