"""Pattern handling for ``grep_search``: V8's ``RegExp`` check, the translation to ``re`` with
ripgrep's meaning, and ripgrep's ``--glob`` syntax. Where ``node`` or ``rg`` is installed, random
patterns are also checked against the real engines."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from qwen_tools.jscompat.v8_regex import js_regex_error
from qwen_tools.tools.grep.line_scan import scan
from qwen_tools.tools.grep.regex_translate import RegexUnsupported, compile_line_regex
from qwen_tools.tools.grep.rg_glob import GlobError, compile_override
from qwen_tools.tools.grep.ripgrep import GrepMatch, find_ripgrep

# Messages recorded from Node 20 (V8 11.3), `new RegExp(p)`.
V8_CASES = {
    "[[": "Unterminated character class",
    "(?<=a)*": "Invalid quantifier",
    "(?i)a": "Invalid group",
    "(?P<a>x)": "Invalid group",
    "a{2,1}": "numbers out of order in {} quantifier",
    "(": "Unterminated group",
    "a)": "Unmatched ')'",
    "\\": "\\ at end of pattern",
    "[a\\": "\\ at end of pattern",
    "*": "Nothing to repeat",
    "a**": "Nothing to repeat",
    "{2}": "Nothing to repeat",
    "^*": "Nothing to repeat",
    "a|*": "Nothing to repeat",
    "[b-a]": "Range out of order in character class",
    "(?<1a>x)": "Invalid capture group name",
    "(?<a": "Invalid capture group name",
    "(?<a>x)(?<a>y)": "Duplicate capture group name",
    "\\k<a>(?<b>x)": "Invalid named capture referenced",
    "\\kx(?<b>x)": "Invalid named reference",
    "(?<a>x)[\\k<a>]": "Invalid escape",
    "(?": "Invalid group",
    "(?<=": "Unterminated group",
    "a/b[/": "Unterminated character class",
    "[😀-😂]": "Range out of order in character class",
}
V8_VALID = ["(?=a)*", "]", "}", "{", "a{,3}", "[\\d-a]", "x{2,99999999999}", "[]", "[^]", "\\c",
            "(?<a>x)\\k<a>", "\\k<a>", "\\1(a)", "\\8", "[\\c_]", "interface{}", "\\u{41}", ""]  # fmt: skip


@pytest.mark.parametrize(("pattern", "message"), list(V8_CASES.items()))
def test_v8_messages(pattern: str, message: str) -> None:
    assert js_regex_error(pattern) == f"Invalid regular expression: /{pattern}/: {message}"


@pytest.mark.parametrize("pattern", V8_VALID)
def test_v8_accepts(pattern: str) -> None:
    assert js_regex_error(pattern) is None


TOKENS = [*"()[]{}|*+?^$.\\-,:=!<>ab12_dwsbk", "(?", "(?<", "(?<=", "(?<a>", "\\k<a>",
          "{2}", "{1,", "{2,1}", "\\u00", "\\x4", "é", "😀", "(?:", "\\c", "\\8", "[\\c_]"]  # fmt: skip


@pytest.mark.skipif(
    shutil.which("node") is None and not os.environ.get("CI"), reason="node is not installed"
)
def test_v8_agrees_on_random_patterns() -> None:
    rng = random.Random(7)
    patterns = sorted(
        {"".join(rng.choice(TOKENS) for _ in range(rng.randint(1, 9))) for _ in range(3000)}
    )
    script = (
        "const p = JSON.parse(require('fs').readFileSync(0, 'utf8'));"
        "console.log(JSON.stringify(p.map(x => { try { new RegExp(x); return null; }"
        " catch (e) { return e.message; } })));"
    )
    run = subprocess.run(
        ["node", "-e", script],
        input=json.dumps(patterns),
        capture_output=True,
        text=True,
        check=True,
    )
    expected = json.loads(run.stdout)
    assert [js_regex_error(p) for p in patterns] == expected


LINES = ["foo", "Foo bar", "two² three", "ΑΒΓ αβγ", "k K \u212a ſ", "a.b*c", "interface{}", "tab\there",
         "naïve e\u0301", "x]y", "", "abcabc", "under_score", "the end", "two²", "日本語 word"]  # fmt: skip


def matching(pattern: str) -> list[int]:
    """Numbers of the lines of ``LINES`` the Python engine reports (as one file's text)."""
    found: list[GrepMatch] = []
    scan("\n".join(LINES) + "\n", compile_line_regex(pattern), "corpus", found)
    return [m.line for m in found]


@pytest.mark.parametrize(
    ("pattern", "lines"),
    [
        ("FOO", [1, 2]),
        ("\\d", []),  # "²" is a number but not a decimal digit
        ("two\\w", []),
        ("e\\w\\b", [3, 9]),  # the combining accent is a word character in Rust
        ("e\\b", [3, 7, 8, 9, 13, 14]),
        ("o\\B", [1, 2, 13, 16]),
        ("[[:alpha:]]{3}", [1, 2, 3, 7, 8, 12, 13, 14, 15, 16]),  # ASCII letters only
        ("[a-z&&[^aeiou]]{3}", [3]),
        ("[\\w--\\d]+²", [3, 15]),
        ("\\p{Greek}", None),
        ("\\pL\\pM", [9]),
        ("\\Aint", [7]),
        ("bar\\z", [2]),
        ("\\<b", [2, 6]),
        ("[]]", [10]),
        ("k", [5]),
        ("a{ 2 }", []),
        ("\\x{61}\\u0062c", [12]),
        ("interface{}", [7]),  # ripgrep rejects it: JavaScript meaning, "{" literal
        ("(?<=inter)face", [7]),
        ("(abc)\\1", [12]),
        ("\\1(abc)", [12]),
        ("\\y", [10]),  # ripgrep rejects it: an identity escape in JavaScript
        ("\\cI", [8]),
    ],
)
def test_translation(pattern: str, lines: list[int] | None) -> None:
    if lines is None:
        with pytest.raises(RegexUnsupported, match="unsupported Unicode property: Greek"):
            compile_line_regex(pattern)
    else:
        assert matching(pattern) == lines


@pytest.mark.parametrize("pattern", ["a\\nb", "[\\n]", "\\x0a", "\\u000a", "\\cJ", "\\012"])
def test_a_line_terminator_cannot_be_matched(pattern: str) -> None:
    with pytest.raises(RegexUnsupported, match='the literal "\\\\n" is not allowed in a regex'):
        compile_line_regex(pattern)
    assert matching("[a\\n]") == [2, 6, 7, 8, 9, 12]


def test_no_match_spans_lines() -> None:
    for pattern in ("o\\s+F", "o[^x]F", "o\\WF", "o.F", "o\\DF", "o[^[:alpha:]]F"):
        assert compile_line_regex(pattern).search("foo\nFoo") is None, pattern


RG_TOKENS = ["a", "b", "k", "é", "e", "o", "1", " ", ".", "*", "+", "?", "|", "(", ")", "(?:", "[", "]", "[^",
             "-", "^", "$", "{", "}", "{2}", "\\d", "\\W", "\\s", "\\b", "\\B", "\\x41", "\\pL",
             "[[:alpha:]]", "&&", "--", "\\A", "\\z", "\\<", "\\>", "\\y", "(?=a)", "\\1", "²"]  # fmt: skip


@pytest.mark.skipif(
    find_ripgrep() is None and not os.environ.get("CI"), reason="ripgrep is not installed"
)
def test_ripgrep_agrees_on_random_patterns(tmp_path: Path) -> None:
    rg = find_ripgrep()
    assert rg is not None
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    rng = random.Random(11)
    checked = 0
    for _ in range(400):
        pattern = "".join(rng.choice(RG_TOKENS) for _ in range(rng.randint(1, 5)))
        if js_regex_error(pattern) is not None:
            continue
        run = subprocess.run(
            [rg, "--json", "--no-messages", "--ignore-case", "--regexp", pattern, str(corpus)],
            capture_output=True,
        )
        if run.returncode == 2:
            continue  # rejected by ripgrep: the JavaScript meaning applies (tested above)
        events = [
            json.loads(line)
            for line in run.stdout.split(b"\n")
            if line.startswith(b'{"type":"match"')
        ]
        assert matching(pattern) == [e["data"]["line_number"] for e in events], pattern
        checked += 1
    assert checked > 150


@pytest.mark.parametrize(
    ("glob", "path", "is_dir", "verdict"),
    [
        ("*.py", "a.py", False, False),
        ("*.py", "src/deep/a.py", False, False),
        ("*.py", "a.txt", False, True),
        ("*.py", "src", True, None),
        ("!*.md", "x.md", False, True),
        ("!*.md", "x.py", False, None),
        ("src/**", "src/a/b.py", False, False),
        ("src/**", "src", True, None),
        ("/x.txt", "x.txt", False, False),
        ("/x.txt", "a/x.txt", False, True),
        ("*.{ts,tsx}", "a/b.tsx", False, False),
        ("a**b", "dir/axyb", False, False),
        ("**", "anything/at/all", False, False),
        ("b/", "b", True, False),
        ("b/", "b", False, True),
        ("[!a]*", "b.txt", False, False),
        ("{a,}", "a", False, False),
        ("#comment", "x", False, None),
    ],
)
def test_globs(glob: str, path: str, is_dir: bool, verdict: bool | None) -> None:
    override = compile_override(glob)
    assert (override.decide(path, is_dir) if override else None) == verdict


@pytest.mark.parametrize(
    ("glob", "message"),
    [
        ("{a,{b}}", "nested alternate groups are not allowed"),
        ("{a,b", "unclosed alternate group; missing '}' (maybe escape '{' with '[{]'?)"),
        ("[a", "unclosed character class; missing ']'"),
        ("a[z-a]", "invalid range; 'z' > 'a'"),
        ("a\\", "dangling '\\'"),
    ],
)
def test_glob_errors(glob: str, message: str) -> None:
    with pytest.raises(GlobError) as caught:
        compile_override(glob)
    assert str(caught.value) == f"error parsing glob '{glob}': {message}"
