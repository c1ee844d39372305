"""Unified diffs and diff statistics, checked against jsdiff's own output.

The expected strings were produced by running the jsdiff copy bundled in Qwen Code 0.24.4
(``createPatch`` with ``{context: 3}``, the reference's ``createPatchSmart`` and
``getDiffStat``) with node, and frozen here; the tests do not need node.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from qwen_tools.contract.display import DiffStat
from qwen_tools.fs.diff import (
    compute_diff_stat,
    create_patch,
    create_patch_smart,
    structured_patch,
)


@dataclass(frozen=True)
class Case:
    old: str
    new: str
    plain: str
    smart: str
    stat: tuple[int, ...]
    user: str | None = None
    file_name: str = "file.txt"
    headers: tuple[str, str] = ("Current", "Proposed")


SAME = "<same as plain>"

CASES: dict[str, Case] = {
    "add": Case(
        old="one\ntwo\nthree\n",
        new="one\ntwo\nnew line\nthree\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,3 +1,4 @@\n"
            " one\n"
            " two\n"
            "+new line\n"
            " three\n"
        ),
        smart=SAME,
        stat=(1, 0, 8, 0, 0, 0, 0, 0),
    ),
    "remove": Case(
        old="one\ntwo\nthree\nfour\n",
        new="one\nfour\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,4 +1,2 @@\n"
            " one\n"
            "-two\n"
            "-three\n"
            " four\n"
        ),
        smart=SAME,
        stat=(0, 2, 0, 8, 0, 0, 0, 0),
    ),
    "change": Case(
        old="alpha\nbeta\ngamma\ndelta\nepsilon\n",
        new="alpha\nbeta\nGAMMA\ndelta\nepsilon\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,5 +1,5 @@\n"
            " alpha\n"
            " beta\n"
            "-gamma\n"
            "+GAMMA\n"
            " delta\n"
            " epsilon\n"
        ),
        smart=SAME,
        stat=(1, 1, 5, 5, 0, 0, 0, 0),
    ),
    "no_final_newline": Case(
        old="first\nsecond",
        new="first\nsecond\nthird",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,2 +1,3 @@\n"
            " first\n"
            "-second\n"
            "\\ No newline at end of file\n"
            "+second\n"
            "+third\n"
            "\\ No newline at end of file\n"
        ),
        smart=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,2 +1,3 @@\n"
            " first\n"
            " second\n"
            "+third\n"
            "\\ No newline at end of file\n"
        ),
        stat=(1, 0, 5, 0, 0, 0, 0, 0),
    ),
    "add_final_newline": Case(
        old="first\nsecond",
        new="first\nsecond\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,2 +1,2 @@\n"
            " first\n"
            "-second\n"
            "\\ No newline at end of file\n"
            "+second\n"
        ),
        smart=SAME,
        stat=(1, 1, 6, 6, 0, 0, 0, 0),
    ),
    "new_file": Case(
        old="",
        new="made 1\nmade 2\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -0,0 +1,2 @@\n"
            "+made 1\n"
            "+made 2\n"
        ),
        smart=SAME,
        stat=(2, 0, 12, 0, 0, 0, 0, 0),
    ),
    "new_file_no_newline": Case(
        old="",
        new="only line",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -0,0 +1,1 @@\n"
            "+only line\n"
            "\\ No newline at end of file\n"
        ),
        smart=SAME,
        stat=(1, 0, 9, 0, 0, 0, 0, 0),
    ),
    "delete_all": Case(
        old="gone 1\ngone 2\n",
        new="",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,2 +0,0 @@\n"
            "-gone 1\n"
            "-gone 2\n"
        ),
        smart=SAME,
        stat=(0, 2, 0, 12, 0, 0, 0, 0),
    ),
    "identical": Case(
        old="same\n",
        new="same\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
        ),
        smart=SAME,
        stat=(0, 0, 0, 0, 0, 0, 0, 0),
    ),
    "two_hunks": Case(
        old="1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
        new="1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\nNINETEEN\n20\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,5 +1,5 @@\n"
            " 1\n"
            "-2\n"
            "+TWO\n"
            " 3\n"
            " 4\n"
            " 5\n"
            "@@ -16,5 +16,5 @@\n"
            " 16\n"
            " 17\n"
            " 18\n"
            "-19\n"
            "+NINETEEN\n"
            " 20\n"
        ),
        smart=SAME,
        stat=(2, 2, 11, 3, 0, 0, 0, 0),
    ),
    "merged_hunk": Case(
        old="1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n",
        new="1\nTWO\n3\n4\n5\n6\n7\nEIGHT\n9\n10\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,10 +1,10 @@\n"
            " 1\n"
            "-2\n"
            "+TWO\n"
            " 3\n"
            " 4\n"
            " 5\n"
            " 6\n"
            " 7\n"
            "-8\n"
            "+EIGHT\n"
            " 9\n"
            " 10\n"
        ),
        smart=SAME,
        stat=(2, 2, 8, 2, 0, 0, 0, 0),
    ),
    "repeated_lines": Case(
        old="x\na\nx\na\nx\n",
        new="a\nx\na\nx\na\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,5 +1,5 @@\n"
            "-x\n"
            " a\n"
            " x\n"
            " a\n"
            " x\n"
            "+a\n"
        ),
        smart=SAME,
        stat=(1, 1, 1, 1, 0, 0, 0, 0),
    ),
    "crlf": Case(
        old="alpha\r\nbeta  \r\ngamma\r\n",
        new="alpha\r\nBETA  \r\ngamma\r\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,3 +1,3 @@\n"
            " alpha\r\n"
            "-beta  \r\n"
            "+BETA  \r\n"
            " gamma\r\n"
        ),
        smart=SAME,
        stat=(1, 1, 7, 7, 0, 0, 0, 0),
    ),
    "whitespace_only": Case(
        old="def f():\n    return 1\n",
        new="def f():\n        return 1\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,2 +1,2 @@\n"
            " def f():\n"
            "-    return 1\n"
            "+        return 1\n"
        ),
        smart=SAME,
        stat=(1, 1, 16, 12, 0, 0, 0, 0),
    ),
    "whitespace_and_change": Case(
        old="a\n  b\nc\nd\n",
        new="a\n    b\nC\nd\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,4 +1,4 @@\n"
            " a\n"
            "-  b\n"
            "-c\n"
            "+    b\n"
            "+C\n"
            " d\n"
        ),
        smart=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,4 +1,4 @@\n"
            " a\n"
            "     b\n"
            "-c\n"
            "+C\n"
            " d\n"
        ),
        stat=(1, 1, 1, 1, 0, 0, 0, 0),
    ),
    "user_modified": Case(
        old="keep\nold\n",
        new="keep\nnew proposal\n",
        plain=(
            "Index: file.txt\n"
            "===================================================================\n"
            "--- file.txt\tCurrent\n"
            "+++ file.txt\tProposed\n"
            "@@ -1,2 +1,2 @@\n"
            " keep\n"
            "-old\n"
            "+new proposal\n"
        ),
        smart=SAME,
        stat=(1, 1, 12, 3, 1, 0, 12, 0),
        user="keep\nnew proposal\nuser 😀 line\n",
    ),
    "other_names": Case(
        old="a\n",
        new="b\n",
        plain=(
            "Index: dir/name with space.py\n"
            "===================================================================\n"
            "--- dir/name with space.py\tOriginal\n"
            "+++ dir/name with space.py\tWritten\n"
            "@@ -1,1 +1,1 @@\n"
            "-a\n"
            "+b\n"
        ),
        smart=SAME,
        stat=(1, 1, 1, 1, 0, 0, 0, 0),
        file_name="dir/name with space.py",
        headers=("Original", "Written"),
    ),
}


def _smart(case: Case) -> str:
    return case.plain if case.smart == SAME else case.smart


@pytest.mark.parametrize("name", list(CASES))
def test_create_patch_matches_jsdiff(name: str) -> None:
    case = CASES[name]
    assert create_patch(case.file_name, case.old, case.new, *case.headers) == case.plain


@pytest.mark.parametrize("name", list(CASES))
def test_create_patch_smart_matches_reference(name: str) -> None:
    case = CASES[name]
    assert create_patch_smart(case.file_name, case.old, case.new, *case.headers) == _smart(case)


@pytest.mark.parametrize("name", list(CASES))
def test_diff_stat_matches_reference(name: str) -> None:
    case = CASES[name]
    expected = DiffStat(*case.stat)
    assert compute_diff_stat(case.old, case.new, case.user) == expected


def test_default_headers_are_current_and_proposed() -> None:
    patch = create_patch("a.txt", "x\n", "y\n")
    assert patch.splitlines()[2:4] == ["--- a.txt\tCurrent", "+++ a.txt\tProposed"]


def test_user_final_equal_to_proposal_counts_nothing_for_the_user() -> None:
    stat = compute_diff_stat("a\n", "b\n", "b\n")
    assert (stat.user_added_lines, stat.user_removed_lines) == (0, 0)
    assert (stat.model_added_lines, stat.model_removed_lines) == (1, 1)


def test_large_rewrite_stays_fast_and_complete() -> None:
    old = "".join(f"line {i}\n" for i in range(6000))
    new = "".join(f"other {i}\n" for i in range(4000))
    (hunk,) = structured_patch(old, new)
    assert (hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines) == (1, 6000, 1, 4000)
    assert hunk.lines[:6000] == tuple(f"-line {i}" for i in range(6000))
    assert hunk.lines[6000:] == tuple(f"+other {i}" for i in range(4000))


RANDOM = json.loads((Path(__file__).parent / "data" / "jsdiff_random.json").read_text("utf-8"))


@pytest.mark.parametrize("index", range(len(RANDOM["cases"])))
def test_random_pairs_match_jsdiff(index: int) -> None:
    """Random small texts (repeated lines, CR, whitespace, missing final newline, astral chars)."""
    case = RANDOM["cases"][index]
    assert create_patch("f.txt", case["old"], case["new"]) == case["plain"]
    assert create_patch_smart("f.txt", case["old"], case["new"]) == case["smart"]
