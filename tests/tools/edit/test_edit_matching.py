"""The pure text functions behind ``edit``: matching, counting, replacing, snippets, hints."""

from __future__ import annotations

import pytest

from qwen_tools.tools.edit.matching import (
    EditSnippet,
    MatchedSlice,
    apply_replacement,
    closest_match_hint,
    count_occurrences,
    extract_edit_snippet,
    find_matched_slice,
    maybe_augment_old_string_for_deletion,
    normalize_basic_characters,
    normalize_edit_strings,
)


def test_normalize_basic_characters_maps_lookalikes_one_to_one() -> None:
    text = "a\u2013b\u2014c\u2212d \u2018x\u2019 \u201cy\u201d\u00a0z\u3000w\u202f"
    mapped = normalize_basic_characters(text)
    assert mapped == "a-b-c-d 'x' \"y\" z w "
    assert len(mapped) == len(text)
    assert normalize_basic_characters("") == ""


def test_literal_match_wins() -> None:
    assert find_matched_slice("abc def", "c d") == MatchedSlice("c d")
    assert find_matched_slice("abc", "") is None


def test_lookalike_match_returns_the_text_on_disk() -> None:
    disk = "const greeting = 'Don't';\n"
    found = find_matched_slice(disk, "const greeting = \u2018Don\u2019t\u2019;")
    assert found == MatchedSlice("const greeting = 'Don't';")
    # and the other way round: typographic on disk, ASCII from the model
    assert find_matched_slice("a \u2014 b", "a - b") == MatchedSlice("a \u2014 b")


def test_line_match_ignores_trailing_whitespace_but_not_indentation() -> None:
    disk = "value = 1;\nother = 2;\n"
    assert find_matched_slice(disk, "value = 1;   ") == MatchedSlice("value = 1;")
    assert find_matched_slice("    x = 1\n", "x = 1  ") is None
    assert find_matched_slice("    x = 1  \ny\n", "  x = 1\ny") is None


def test_line_match_pattern_final_newline_is_an_empty_line() -> None:
    # As in the reference, a pattern ending in "\n" has an empty last line that must match an
    # empty line on disk; the slice then runs up to the start of the following line.
    assert find_matched_slice("a  \nb\n\nc", "a\nb\n") == MatchedSlice("a  \nb\n\n")
    # otherwise the retry without that line applies (and new_string loses a newline)
    disk = "a  \nb\nc\n"
    assert find_matched_slice(disk, "a\nb\n") == MatchedSlice("a  \nb", dropped_final_newline=True)
    assert find_matched_slice(disk, "b \nc") == MatchedSlice("b\nc")


def test_line_match_with_crlf_pattern_against_lf_text() -> None:
    assert find_matched_slice("one\ntwo\nthree", "one\r\ntwo") == MatchedSlice("one\ntwo")


def test_line_match_with_normalised_characters_and_trailing_spaces() -> None:
    disk = "say('hi')\nend\n"
    assert find_matched_slice(disk, "say(\u2018hi\u2019)  \nend") == MatchedSlice("say('hi')\nend")


def test_trailing_newline_retry_drops_the_last_empty_line() -> None:
    disk = "first  \nlast  "  # no final newline, trailing spaces: only the line pass matches
    found = find_matched_slice(disk, "first\nlast\n")
    assert found == MatchedSlice("first  \nlast  ", dropped_final_newline=True)
    assert normalize_edit_strings(disk, "first\nlast\n", "FIRST\nLAST\n") == (
        "first  \nlast  ",
        "FIRST\nLAST",
    )
    assert normalize_edit_strings(disk, "first\nlast\n", "X\r\n") == ("first  \nlast  ", "X")


def test_normalize_edit_strings_leaves_unmatched_and_special_cases_alone() -> None:
    assert normalize_edit_strings(None, "a", "b") == ("a", "b")
    assert normalize_edit_strings("abc", "", "b") == ("", "b")
    assert normalize_edit_strings("abc", "zzz", "b") == ("zzz", "b")
    # new_string keeps its trailing whitespace
    assert normalize_edit_strings("abc", "b", "x   ") == ("b", "x   ")


def test_deletion_consumes_the_newline() -> None:
    content = "keep1\nremove me\nkeep2\n"
    assert maybe_augment_old_string_for_deletion(content, "remove me", "") == "remove me\n"
    assert maybe_augment_old_string_for_deletion(content, "remove me", "x") == "remove me"
    assert maybe_augment_old_string_for_deletion(content, "remove me\n", "") == "remove me\n"
    assert maybe_augment_old_string_for_deletion("a\nkeep2", "keep2", "") == "keep2"
    assert maybe_augment_old_string_for_deletion(None, "x", "") == "x"


@pytest.mark.parametrize(
    ("source", "sub", "expected"),
    [("aaaa", "aa", 2), ("aaa", "aa", 1), ("abc", "", 0), ("", "a", 0), ("foo foo foo", "foo", 3)],
)
def test_count_occurrences_is_non_overlapping(source: str, sub: str, expected: int) -> None:
    assert count_occurrences(source, sub) == expected


def test_apply_replacement_is_literal_and_replaces_all() -> None:
    assert apply_replacement("hello old world old", "old", "new", False) == "hello new world new"
    assert apply_replacement("x = 1", "1", "$1 $& $' $$", False) == "x = $1 $& $' $$"
    assert apply_replacement(None, "", "fresh", True) == "fresh"
    assert apply_replacement("content", "", "other", False) == "content"
    assert apply_replacement(None, "x", "y", False) == ""
    assert apply_replacement("abc", "zz", "y", False) == "abc"


def test_snippet_for_a_one_line_change_counts_the_final_empty_line() -> None:
    old = "".join(f"line {i}\n" for i in range(1, 7))
    new = old.replace("line 2", "LINE 2")
    snippet = extract_edit_snippet(old, new)
    assert snippet == EditSnippet(1, 6, 7, "\n".join(new.split("\n")[:6]))


def test_snippet_context_is_four_lines_each_side() -> None:
    old = "\n".join(f"l{i}" for i in range(1, 31))
    new = old.replace("l15", "CHANGED")
    snippet = extract_edit_snippet(old, new)
    assert snippet is not None
    assert (snippet.start_line, snippet.end_line, snippet.total_lines) == (11, 19, 30)
    assert snippet.content.split("\n")[4] == "CHANGED"


def test_snippet_reaching_the_end_includes_the_empty_last_line() -> None:
    old = "foo one\nfoo two\nfoo three\n"
    new = old.replace("foo", "bar")
    assert extract_edit_snippet(old, new) == EditSnippet(1, 4, 4, new)


def test_snippet_for_new_file_identical_content_and_huge_change() -> None:
    assert extract_edit_snippet(None, "a\nb\n") == EditSnippet(1, 3, 3, "a\nb\n")
    assert extract_edit_snippet("same", "same") is None
    assert extract_edit_snippet("something", "") is None
    old = "\n".join("x" for _ in range(1200))
    new = "\n".join("y" for _ in range(1200))
    assert extract_edit_snippet(old, new) is None
    within = "\n".join("y" for _ in range(1001))
    assert extract_edit_snippet("\n".join("x" for _ in range(1001)), within) is not None


def test_snippet_for_a_deletion() -> None:
    old = "a\nb\nc\nd\n"
    new = "a\nc\nd\n"
    snippet = extract_edit_snippet(old, new)
    assert snippet is not None
    assert (snippet.start_line, snippet.end_line, snippet.total_lines) == (1, 4, 4)


def test_closest_match_hint_points_at_the_near_miss() -> None:
    content = "".join(f"def f{i}(x):\n    return x + {i}\n\n" for i in range(1, 9))
    hint = closest_match_hint(content, "def f5(x):\n    return x - 5\n")
    assert hint == (
        "The closest match in the file (lines 13-14) is:\n  13: def f5(x):\n  14:     return x + 5"
    )


def test_closest_match_hint_pads_numbers_and_handles_one_line() -> None:
    content = "".join(f"item {i}\n" for i in range(1, 13))
    assert closest_match_hint(content, "item  9 ") == (
        "The closest match in the file (line 9) is:\n  9: item 9"
    )
    hint = closest_match_hint(content, "item 9\nitem 10x")
    assert hint == "The closest match in the file (lines 9-10) is:\n   9: item 9\n  10: item 10"


def test_closest_match_hint_is_deterministic_on_ties() -> None:
    content = "alpha beta\nzzz\nalpha beta\n"
    hint = closest_match_hint(content, "alpha betx")
    assert hint == "The closest match in the file (line 1) is:\n  1: alpha beta"


def test_closest_match_hint_declines_when_nothing_is_similar_or_input_is_unusable() -> None:
    assert closest_match_hint("completely different\n", "zq xv wk") is None
    assert closest_match_hint("", "anything") is None
    assert closest_match_hint("text\n", "   \n") is None
    assert closest_match_hint("x\n" * 30_000, "x") is None  # too many lines


def test_closest_match_hint_caps_lines_and_characters() -> None:
    content = "".join(f"row number {i:03}\n" for i in range(100))
    pattern = "".join(f"row number {i:03}!\n" for i in range(10, 40))
    hint = closest_match_hint(content, pattern)
    assert hint is not None
    lines = hint.split("\n")
    assert lines[0] == "The closest match in the file (lines 11-40) is:"
    assert len(lines) == 1 + 20 + 1
    assert lines[-1] == "  ... (10 more lines)"
    wide = "".join(f"{i} " + "w" * 400 + "\n" for i in range(12))
    hint = closest_match_hint(wide, wide.replace("w", "v", 3))
    assert hint is not None
    assert len(hint) < 2_000 + 200
    assert " ..." in hint
