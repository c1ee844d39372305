"""MCP tool names: ours (``server__tool``, hash only on collisions) and 0.24.4's aliases."""

from __future__ import annotations

import re

from qwen_tools.mcp.naming import (
    assign_tool_names,
    legacy_tool_name,
    reference_tool_name,
    stable_hash,
    tool_aliases,
    tool_name,
)


def test_plain_names_are_server_double_underscore_tool() -> None:
    names = assign_tool_names([("a", "echo"), ("b", "echo"), ("a", "add")])
    assert names == {("a", "echo"): "a__echo", ("b", "echo"): "b__echo", ("a", "add"): "a__add"}


def test_sanitising_without_collision_adds_no_hash() -> None:
    assert assign_tool_names([("my.srv", "get data")]) == {
        ("my.srv", "get data"): "my_srv__get_data"
    }
    assert tool_name("a b:c", "x/y") == "a_b_c__x_y"


def test_collision_from_sanitising_suffixes_only_the_sanitised_name() -> None:
    names = assign_tool_names([("my_srv", "echo"), ("my.srv", "echo")])
    assert names[("my_srv", "echo")] == "my_srv__echo"
    assert names[("my.srv", "echo")] == "my_srv__echo_" + stable_hash("my.srv/echo")
    # the order of discovery does not matter
    assert assign_tool_names([("my.srv", "echo"), ("my_srv", "echo")]) == names


def test_collision_between_two_sanitised_names_suffixes_both() -> None:
    names = assign_tool_names([("a.b", "t"), ("a:b", "t")])
    assert names[("a.b", "t")] == "a_b__t_" + stable_hash("a.b/t")
    assert names[("a:b", "t")] == "a_b__t_" + stable_hash("a:b/t")
    assert len(set(names.values())) == 2


def test_collision_between_clean_names_suffixes_both() -> None:
    names = assign_tool_names([("a__b", "c"), ("a", "b__c")])
    assert set(names.values()) == {
        "a__b__c_" + stable_hash("a__b/c"),
        "a__b__c_" + stable_hash("a/b__c"),
    }


def test_names_are_at_most_64_chars_and_safe() -> None:
    long_tool = "t" * 100
    names = assign_tool_names([("srv", long_tool), ("srv", long_tool + "x"), ("é", "ü")])
    for name in names.values():
        assert len(name) <= 64
        assert re.fullmatch(r"[A-Za-z0-9_-]+", name)
    # both cut to the same 64 characters: they collide, so both get a (different) hash
    assert names[("srv", long_tool)] != names[("srv", long_tool + "x")]
    assert names[("srv", long_tool)].endswith("_" + stable_hash("srv/" + long_tool))


def test_stable_hash_matches_qwen_code() -> None:
    # observed in Qwen Code 0.24.4: server "my.srv", tool "echo"
    assert reference_tool_name("my.srv", "echo") == "mcp__my_srv__echo_0otlrsf"
    # values computed with the reference's JavaScript (UTF-16 code units, Math.imul)
    assert stable_hash("") == "0ztntfp"
    assert stable_hash("a") == "1r9wi7g"
    assert stable_hash("é😀x") == "0apra1n"
    assert stable_hash("srv/" + "t" * 100) == "1i8dr9j"


def test_reference_and_legacy_names() -> None:
    assert reference_tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert legacy_tool_name("my.srv", "echo") == "mcp__my.srv__echo"
    long = legacy_tool_name("s" * 40, "t" * 40)
    assert len(long) == 63 and "___" in long
    assert len(reference_tool_name("s" * 40, "t" * 40)) == 63


def test_aliases_reach_0_24_4_names() -> None:
    assert tool_aliases("github", "create_issue", "github__create_issue") == (
        "mcp__github__create_issue",
    )
    assert tool_aliases("my.srv", "echo", "my_srv__echo") == (
        "mcp__my_srv__echo_0otlrsf",
        "mcp__my.srv__echo",
    )


def test_the_mcp_package_is_imported_lazily() -> None:
    import subprocess
    import sys

    probe = (
        "import sys, qwen_tools, qwen_tools.mcp.manager, qwen_tools.mcp.registration; "
        "print(sorted({k.split('.')[0] for k in sys.modules} & {'mcp', 'mcp_types', 'httpx2'}))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
