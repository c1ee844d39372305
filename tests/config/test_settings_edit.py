"""Splicing one ``mcpServers`` entry into or out of a settings text, keeping everything else."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from qwen_tools.config.settings import SettingsError
from qwen_tools.config.settings_edit import (
    SettingsEditError,
    read_section,
    remove_entry,
    set_entry,
    write_settings_text,
)

ENTRY = {"command": "srv", "args": ["-v"]}


def add(text: str, name: str = "new", value: object = ENTRY) -> str:
    return set_entry(text, "mcpServers", name, value)


def test_an_empty_or_missing_file_gets_a_fresh_object() -> None:
    expected = (
        '{\n  "mcpServers": {\n    "new": {\n      "command": "srv",\n'
        '      "args": [\n        "-v"\n      ]\n    }\n  }\n}\n'
    )
    assert add("") == expected
    assert add(" \n") == expected


def test_a_section_is_added_after_the_last_key_and_its_comment() -> None:
    text = '{\n  "ui": {"theme": "dark"} // mine\n}\n'
    assert add(text, value={}) == (
        '{\n  "ui": {"theme": "dark"}, // mine\n  "mcpServers": {\n    "new": {}\n  }\n}\n'
    )


def test_comments_between_the_last_entry_and_the_brace_stay_above_the_new_entry() -> None:
    text = '{\n  "mcpServers": {\n    "a": {"url": "u"}\n    // "b": {"url": "v"}\n  }\n}'
    assert add(text, value={"url": "w"}) == (
        '{\n  "mcpServers": {\n    "a": {"url": "u"},\n    // "b": {"url": "v"}\n'
        '    "new": {\n      "url": "w"\n    }\n  }\n}'
    )


def test_one_line_files_and_empty_objects() -> None:
    assert add('{"a": 1}', value=1) == '{"a": 1,\n  "mcpServers": {\n    "new": 1\n  }\n}'
    assert add('{"mcpServers": {}}', value=1) == '{"mcpServers": {\n  "new": 1\n}}'
    assert add('{"mcpServers": { /* none */ }}', value=1) == (
        '{"mcpServers": { /* none */ \n  "new": 1\n}}'
    )
    assert json.loads(add("{}", value=1)) == {"mcpServers": {"new": 1}}


def test_the_file_style_is_followed() -> None:
    tabbed = '\ufeff{\r\n\t"mcpServers": null\r\n}\r\n'
    assert add(tabbed, value={"url": "u"}) == (
        '\ufeff{\r\n\t"mcpServers": {\r\n\t\t"new": {\r\n\t\t\t"url": "u"\r\n\t\t}\r\n\t}\r\n}\r\n'
    )
    four = '{\n    "x": 1\n}'
    assert add(four, value=[1]) == (
        '{\n    "x": 1,\n    "mcpServers": {\n        "new": [\n            1\n        ]\n    }\n}'
    )


def test_replacing_keeps_the_neighbours_and_uses_the_last_duplicate() -> None:
    text = '{"mcpServers": {\n  "a": 1, // one\n  "a": 2, /* two */\n  "b": 3\n}}'
    assert set_entry(text, "mcpServers", "a", "x") == (
        '{"mcpServers": {\n  "a": 1, // one\n  "a": "x", /* two */\n  "b": 3\n}}'
    )


def test_removing_each_position() -> None:
    text = '{\n  "mcpServers": {\n    "a": 1, // A\n    "b": 2, // B\n    "c": 3 // C\n  }\n}\n'
    assert remove_entry(text, "mcpServers", "b") == (
        '{\n  "mcpServers": {\n    "a": 1, // A\n    "c": 3 // C\n  }\n}\n',
        True,
    )
    assert remove_entry(text, "mcpServers", "c")[0] == (
        '{\n  "mcpServers": {\n    "a": 1, // A\n    "b": 2 // B\n  }\n}\n'
    )
    inline = '{"mcpServers": {"a": 1, "b": 2, "c": 3}}'
    assert remove_entry(inline, "mcpServers", "a")[0] == '{"mcpServers": {"b": 2, "c": 3}}'
    assert remove_entry(inline, "mcpServers", "b")[0] == '{"mcpServers": {"a": 1, "c": 3}}'
    assert remove_entry(inline, "mcpServers", "c")[0] == '{"mcpServers": {"a": 1, "b": 2}}'
    assert remove_entry('{"mcpServers": {"a": 1}}', "mcpServers", "a")[0] == '{"mcpServers": {}}'
    kept = remove_entry('{"mcpServers": {\n  // keep\n  "a": 1\n}}', "mcpServers", "a")[0]
    assert kept == '{"mcpServers": {\n  // keep\n}}'


def test_removing_every_duplicate_and_missing_names() -> None:
    text = '{"mcpServers": {"a": 1, "b": 2, "a": 3}}'
    assert remove_entry(text, "mcpServers", "a") == ('{"mcpServers": {"b": 2}}', True)
    for missing in ("", "{}", '{"mcpServers": null}', '{"mcpServers": {"b": 1}}'):
        assert remove_entry(missing, "mcpServers", "a") == (missing, False)


def test_values_that_cannot_be_edited() -> None:
    with pytest.raises(SettingsEditError, match='"mcpServers" is not an object'):
        add('{"mcpServers": []}')
    for broken in ('{"a": }', "[1]", '{"a": 1,}'):
        with pytest.raises(SettingsError):
            add(broken)
        with pytest.raises(SettingsError):
            remove_entry(broken, "mcpServers", "a")


def test_read_section() -> None:
    assert read_section("", "mcpServers") is None
    assert read_section('// c\n{"mcpServers": {"a": {}}}', "mcpServers") == {"a": {}}


def test_write_settings_text_is_atomic_and_keeps_the_mode(tmp_path: Path) -> None:
    target = tmp_path / "deep" / ".qwen" / "settings.json"
    write_settings_text(target, "{}\n")
    assert target.read_text() == "{}\n"
    os.chmod(target, 0o600)
    write_settings_text(target, '{"a": 1}\n')
    assert target.read_text() == '{"a": 1}\n'
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in target.parent.iterdir()] == ["settings.json"]
