"""PDF helpers for read_file: page ranges, page counts, and cutting out a range of pages.

Qwen Code 0.24.4 extracts a PDF's text with poppler when the model cannot take PDFs; we always
send the PDF itself (a deliberate difference), so ``pages`` selects the pages of a new, smaller
PDF built with :mod:`pypdf`. The reference's limits stay: at most 20 pages per request, a
document of more than 10 pages needs a range, and the page count of a file pypdf cannot parse
is estimated at 100 KB per page ("appears to have about").
"""

from __future__ import annotations

import io
import logging
import re
from typing import BinaryIO

from qwen_tools.jscompat.jstext import js_trim

__all__ = [
    "PDF_FULL_PAGE_LIMIT",
    "PDF_MAX_PAGES_PER_READ",
    "PdfPagesError",
    "extract_pages",
    "large_pdf_guidance",
    "page_count",
    "parse_page_range",
]

PDF_MAX_PAGES_PER_READ = 20
PDF_FULL_PAGE_LIMIT = 10
"""A document with more pages than this must be read with ``pages``."""
_PAGE_SIZE_ESTIMATE = 100 * 1024
_MAX_PDF_PAGE = 1_000_000

_SINGLE = re.compile(r"^([0-9]+)$")
_RANGE = re.compile(r"^([0-9]+)\s*-\s*([0-9]+)$")
_OPEN = re.compile(r"^([0-9]+)\s*-$")


class PdfPagesError(Exception):
    """The requested pages cannot be cut out of the PDF (the message is model-facing)."""


def parse_page_range(pages: str) -> tuple[int, int | None] | None:
    """``(first, last)`` for ``'3'`` or ``'1-5'``; ``last`` is ``None`` for ``'3-'``."""
    text = js_trim(pages)
    if (match := _OPEN.match(text)) is not None:
        first = int(match.group(1))
        return (first, None) if 1 <= first <= _MAX_PDF_PAGE else None
    if (match := _RANGE.match(text)) is not None:
        first, last = int(match.group(1)), int(match.group(2))
        valid = 1 <= first <= last <= _MAX_PDF_PAGE
        return (first, last) if valid else None
    if (match := _SINGLE.match(text)) is not None:
        page = int(match.group(1))
        return (page, page) if 1 <= page <= _MAX_PDF_PAGE else None
    return None


def _quiet() -> None:
    """pypdf logs a warning for every oddity of a damaged file; the result says enough."""
    logging.getLogger("pypdf").setLevel(logging.ERROR)


def page_count(path: str, stream: BinaryIO | None = None) -> int | None:
    """The number of pages, or ``None`` when pypdf cannot read the document.

    ``stream``, the file already opened, is read instead of opening ``path``.
    """
    _quiet()
    from pypdf import PdfReader

    try:
        return len(PdfReader(path if stream is None else stream).pages)
    except Exception:  # pypdf raises many kinds of errors on damaged input
        return None


def large_pdf_guidance(name: str, count: int | None, size: int) -> str | None:
    """The reference's "too many pages" message, or ``None`` when the document is short."""
    effective = count if count is not None else -(-size // _PAGE_SIZE_ESTIMATE)
    if effective <= PDF_FULL_PAGE_LIMIT:
        return None
    source = "has" if count is not None else "appears to have about"
    return (
        f'PDF "{name}" {source} {effective} pages, which is too many to read at once. Use the '
        "'pages' parameter to read a specific page range such as '1-5'. Maximum "
        f"{PDF_MAX_PAGES_PER_READ} pages per request."
    )


def extract_pages(path: str, pages: str, stream: BinaryIO | None = None) -> tuple[bytes, int, int]:
    """A new PDF holding the pages of a valid range such as ``'2-4'`` (clamped to the end).

    Returns ``(pdf bytes, first, last page actually included)``; raises
    :class:`PdfPagesError` when the document cannot be read or ``first`` is past its end.
    ``stream``, the file already opened, is read instead of opening ``path`` (whose name
    the messages use).
    """
    _quiet()
    from pypdf import PdfReader, PdfWriter

    name = path.rsplit("/", 1)[-1]
    first, requested_last = parse_page_range(pages) or (0, None)
    if requested_last is None:
        raise PdfPagesError(f"Invalid pages parameter: '{pages}'. Use formats like '5' or '1-10'.")
    try:
        reader = PdfReader(path if stream is None else stream)
        total = len(reader.pages)
    except Exception as exc:
        raise PdfPagesError(f'Cannot read the pages of PDF "{name}": {exc}') from None
    if first > total:
        raise PdfPagesError(
            f"Invalid pages parameter: '{pages}' is beyond the end of PDF \"{name}\", "
            f"which has {total} page{'' if total == 1 else 's'}."
        )
    last = min(requested_last, total)
    try:
        writer = PdfWriter()
        for index in range(first - 1, last):
            writer.add_page(reader.pages[index])
        buffer = io.BytesIO()
        writer.write(buffer)
    except Exception as exc:
        raise PdfPagesError(f'Cannot read the pages of PDF "{name}": {exc}') from None
    return buffer.getvalue(), first, last
