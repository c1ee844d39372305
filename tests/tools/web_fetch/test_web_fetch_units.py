"""web_fetch's pure parts: validation, URL rewrites and upgrades, address classification."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Any

import pytest

from qwen_tools import Config
from qwen_tools.tools.web_fetch.address import AddressPolicy, is_blocked_address, is_private_host
from qwen_tools.tools.web_fetch.content import format_byte_size, rewrite_github_blob_url
from qwen_tools.tools.web_fetch.entry import FetchPlan, plan_fetch
from qwen_tools.tools.web_fetch.tool import WebFetchTool


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"url": "  ", "prompt": "x"}, "The 'url' parameter cannot be empty."),
        (
            {"url": "ftp://example.com/f", "prompt": "x"},
            "The 'url' must be a valid URL starting with http:// or https://.",
        ),
        (
            {"url": "example.com", "prompt": "x"},
            "The 'url' must be a valid URL starting with http:// or https://.",
        ),
        (
            {"url": "https://u:p@h.example/", "prompt": "x"},
            "The 'url' must not include credentials.",
        ),
        (
            {"url": "https://user@h.example/", "prompt": "x"},
            "The 'url' must not include credentials.",
        ),
        (
            {"url": "http://exa mple.com/", "prompt": "x"},
            "The 'url' is malformed and could not be parsed.",
        ),
        (
            {"url": "http://a.example:99999/", "prompt": "x"},
            "The 'url' is malformed and could not be parsed.",
        ),
        ({"url": "https://", "prompt": "x"}, "The 'url' is malformed and could not be parsed."),
        (
            {"url": "https://example.com", "prompt": " \n"},
            "The 'prompt' parameter cannot be empty.",
        ),
        ({"url": "https://example.com"}, "params must have required property 'prompt'"),
        (
            {"url": "https://example.com", "prompt": "x", "format": "pdf"},
            "params/format must be equal to one of the allowed values",
        ),
    ],
)
def test_validation_messages(ws: Path, params: dict[str, Any], message: str) -> None:
    assert WebFetchTool(Config(ws)).validate_tool_params(params) == message


def test_valid_params_pass(ws: Path) -> None:
    tool = WebFetchTool(Config(ws))
    assert tool.validate_tool_params({"url": "HTTPS://Example.com/a?b#c", "prompt": "x"}) is None
    assert tool.validate_tool_params({"url": "http://[::1]:8080/", "prompt": "x"}) is None


def test_declaration(ws: Path) -> None:
    tool = WebFetchTool(Config(ws))
    assert (tool.name, tool.display_name, tool.kind.value) == ("web_fetch", "WebFetch", "fetch")
    schema = tool.schema.parameters_json_schema
    assert schema["required"] == ["url", "prompt"]
    assert schema["properties"]["format"]["enum"] == ["auto", "markdown", "html", "text"]


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "https://github.com/QwenLM/qwen-code/blob/main/docs/tools.md",
            "https://raw.githubusercontent.com/QwenLM/qwen-code/main/docs/tools.md",
        ),
        (
            "https://www.github.com/o/r/blob/v1.2/src/a.py?plain=1",
            "https://raw.githubusercontent.com/o/r/v1.2/src/a.py?plain=1",
        ),
        ("https://github.com/o/r/tree/main/src", "https://github.com/o/r/tree/main/src"),
        ("https://github.com/o/blob/x", "https://github.com/o/blob/x"),
        ("https://gitlab.com/o/r/blob/main/a", "https://gitlab.com/o/r/blob/main/a"),
        (
            "https://github.com/o/r/blob/main/a/blob/b",
            "https://raw.githubusercontent.com/o/r/main/a/blob/b",
        ),
    ],
)
def test_github_blob_rewrite(url: str, expected: str) -> None:
    assert rewrite_github_blob_url(url) == expected


def test_the_invocation_uses_the_rewritten_url(ws: Path) -> None:
    invocation = WebFetchTool(Config(ws)).build(
        {"url": "https://github.com/o/r/blob/main/a.md", "prompt": "read " * 30}
    )
    assert invocation.params["url"] == "https://raw.githubusercontent.com/o/r/main/a.md"
    assert invocation.get_description() == (
        "Fetching content from https://raw.githubusercontent.com/o/r/main/a.md (format: auto) "
        f'and processing with prompt: "{("read " * 30)[:97]}..."'
    )


@pytest.mark.parametrize(
    ("url", "plan"),
    [
        (
            "http://example.com/a?b=1",
            FetchPlan("https://example.com/a?b=1", "http://example.com/a?b=1"),
        ),
        ("http://Example.COM", FetchPlan("https://example.com/", "http://Example.COM")),
        ("http://example.com:80/x", FetchPlan("https://example.com/x", "http://example.com:80/x")),
        ("http://example.com:8080/x", FetchPlan("http://example.com:8080/x")),
        ("https://example.com/x", FetchPlan("https://example.com/x")),
        ("http://localhost:3000/", FetchPlan("http://localhost:3000/")),
        ("http://localhost/", FetchPlan("http://localhost/")),
        ("http://10.1.2.3/", FetchPlan("http://10.1.2.3/")),
        ("http://intranet/", FetchPlan("http://intranet/")),
        ("http://printer.local/", FetchPlan("http://printer.local/")),
        ("http://[fd00::1]/", FetchPlan("http://[fd00::1]/")),
        (
            "http://[2001:4860:4860::8888]/",
            FetchPlan("https://[2001:4860:4860::8888]/", "http://[2001:4860:4860::8888]/"),
        ),
    ],
)
def test_https_upgrade_plan(url: str, plan: FetchPlan) -> None:
    assert plan_fetch(url) == plan


@pytest.mark.parametrize(
    "host",
    [
        "localhost",
        "app.localhost",
        "host.docker.internal",
        "ci",
        "nas.lan",
        "x.home.arpa",
        "172.20.1.1",
        "[::ffff:7f00:1]",
    ],
)
def test_private_host_heuristic(host: str) -> None:
    assert is_private_host(host)


@pytest.mark.parametrize("host", ["example.com", "8.8.8.8", "172.32.0.1", "[2606:4700::1111]"])
def test_public_host_heuristic(host: str) -> None:
    assert not is_private_host(host)


BLOCKED = [
    "0.0.0.0",
    "10.1.2.3",
    "100.64.0.1",
    "100.127.255.254",
    "127.0.0.1",
    "127.8.9.10",
    "169.254.169.254",
    "172.16.0.1",
    "172.31.255.255",
    "192.0.0.8",
    "192.0.2.1",
    "192.168.1.1",
    "198.18.0.1",
    "198.51.100.7",
    "203.0.113.9",
    "224.0.0.251",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "::",
    "::1",
    "::ffff:127.0.0.1",
    "::ffff:10.0.0.1",
    "::ffff:169.254.169.254",
    "64:ff9b::a00:1",
    "64:ff9b:1::1",
    "2002:c0a8:101::1",
    "100::1",
    "2001:db8::1",
    "fc00::1",
    "fd12:3456::1",
    "fe80::1",
    "febf::1",
    "fec0::1",
    "ff02::1",
    "::127.0.0.1",
]
GLOBAL = [
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "100.63.255.255",
    "100.128.0.1",
    "172.15.255.255",
    "172.32.0.1",
    "192.169.0.1",
    "223.255.255.255",
    "2606:4700::1111",
    "2001:4860:4860::8888",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
    "2002:808:808::1",
]


@pytest.mark.parametrize("address", BLOCKED)
def test_non_global_addresses_are_blocked(address: str) -> None:
    assert is_blocked_address(ipaddress.ip_address(address))


@pytest.mark.parametrize("address", GLOBAL)
def test_global_addresses_are_allowed(address: str) -> None:
    assert not is_blocked_address(ipaddress.ip_address(address))


def test_policy_exceptions() -> None:
    loopback_only = AddressPolicy.from_setting(["127.0.0.1/32", "fd00::/8"])
    ip = ipaddress.ip_address
    assert loopback_only.permits(ip("127.0.0.1"))
    assert loopback_only.permits(ip("::ffff:127.0.0.1"))
    assert loopback_only.permits(ip("fd00::5"))
    assert loopback_only.permits(ip("8.8.8.8"))
    assert not loopback_only.permits(ip("127.0.0.2"))
    assert not loopback_only.permits(ip("::1"))
    assert not loopback_only.permits(ip("10.0.0.1"))
    assert AddressPolicy.from_setting(True).permits(ip("169.254.169.254"))
    assert not AddressPolicy.from_setting(False).permits(ip("169.254.169.254"))
    with pytest.raises(ValueError):
        AddressPolicy.from_setting(["not-a-network"])


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1KB"),
        (1536, "1.5KB"),
        (10 * 1024 * 1024, "10MB"),
        (3 * 1024**3, "3GB"),
    ],
)
def test_byte_sizes(size: int, text: str) -> None:
    assert format_byte_size(size) == text
