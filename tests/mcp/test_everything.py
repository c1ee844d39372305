"""Our MCP client against the reference server ``@modelcontextprotocol/server-everything``.

The server (2026.8.31, installed from npm by the test itself) runs over stdio, SSE and
Streamable HTTP. Its network modes listen on every interface and take only ``PORT``
(``node dist/index.js sse|streamableHttp``), so ``everything_driver.py`` runs server and
client together in a private network namespace and prints a JSON report; the tests assert on
it. The driver goes through a user's path: ``mcpServers`` in ``.qwen/settings.json`` →
``Config.load`` → ``McpManager`` → ``register_mcp_tools`` → ``run_tool_call``.

This version renamed its tools (``add`` → ``get-sum``, ``getTinyImage`` → ``get-tiny-image``,
``longRunningOperation`` → ``trigger-long-running-operation``, ``getResourceReference`` →
``get-resource-reference``, ``structuredContent`` → ``get-structured-content``, …) and lists
``get-roots-list`` and ``simulate-research-query`` only to clients with roots / tasks support;
the latter needs task-augmented calls, which our client does not make, so it is not offered.
"""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from support.npm_peers import node22, npm_module, private_netns
from support.processes import MARK_VAR, kill_marked, wait_until_gone

EVERYTHING = "@modelcontextprotocol/server-everything@2026.8.31"
HERE = Path(__file__).parent
DRIVER = HERE / "everything_driver.py"
DEMO = HERE / "servers" / "demo_server.py"
LISTED = [
    "echo",
    "get-annotated-message",
    "get-env",
    "get-resource-links",
    "get-resource-reference",
    "get-structured-content",
    "get-sum",
    "get-tiny-image",
    "gzip-file-as-resource",
    "toggle-simulated-logging",
    "toggle-subscriber-updates",
    "trigger-long-running-operation",
    "get-roots-list",
    "simulate-research-query",
]
EXCLUDED = {"gzip-file-as-resource", "toggle-subscriber-updates"}
TASK_ONLY = {"simulate-research-query"}
"""Tools with ``execution.taskSupport: "required"``: callable only as MCP tasks, never offered."""
CANCELLED_TEXT = (
    "[Operation Cancelled] Reason: User intentionally cancelled this tool call. Stop and await "
    "further instructions; do not retry or work around it."
)


def package_dir() -> Path:
    return npm_module(EVERYTHING)


def tiny_image() -> str:
    """The PNG the server sends, read from its own source."""
    source = (package_dir() / "dist" / "tools" / "get-tiny-image.js").read_text()
    found = re.search(r'MCP_TINY_IMAGE = "([A-Za-z0-9+/=]+)"', source)
    assert found is not None
    return found.group(1)


@pytest.fixture(scope="module", params=["stdio", "sse", "http"])
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The driver's report for one transport (plus ``demo_server.py`` over stdio)."""
    transport = request.param
    work = tmp_path_factory.mktemp(f"everything-{transport}")
    argv = [sys.executable, str(DRIVER), "--transport", transport, "--work", str(work)]
    argv += ["--node", str(node22()), "--server", str(package_dir() / "dist" / "index.js")]
    argv += ["--demo", str(DEMO)]
    mark = uuid.uuid4().hex
    try:
        proc = subprocess.run(
            private_netns(argv),
            env={**os.environ, MARK_VAR: mark},
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
    finally:
        left = wait_until_gone(mark, timeout=10)
        kill_marked(mark)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert left == [], "the driver left processes running"
    return json.loads(proc.stdout)


def calls(report: Any) -> Any:
    return report["calls"]


def test_discovery_names_and_exclude_tools(report: Any) -> None:
    assert set(report["statuses"].values()) == {"connected"}, report["errors"]
    assert report["listed"] == [name for name in LISTED if name not in TASK_ONLY]
    ours = [name for name in report["registered"] if name.startswith("everything__")]
    assert ours == [f"everything__{name}" for name in LISTED if name not in EXCLUDED | TASK_ONLY]
    assert report["instructions"].startswith("# Everything Server")
    excluded = calls(report)["excluded"]
    assert (excluded["status"], excluded["errorType"]) == ("error", "tool_not_registered")


def test_two_servers_offering_echo(report: Any) -> None:
    assert list(report["statuses"]) == ["everything", "demo"]
    tools = report["tools"]
    assert tools["demo__echo"]["parameters"]["required"] == ["text"]
    assert tools["everything__echo"]["parameters"]["required"] == ["message"]
    assert tools["demo__echo"]["displayName"] == "echo (demo MCP Server)"
    assert calls(report)["demoEcho"]["responseText"] == "Echo: from the Python SDK"


def test_declaration_of_a_server_tool(report: Any) -> None:
    echo = report["tools"]["everything__echo"]
    assert echo["displayName"] == "echo (everything MCP Server)"
    assert echo["description"] == "Echoes back the input string"
    assert echo["kind"] == "read"  # readOnlyHint: true
    assert echo["aliases"] == ["mcp__everything__echo"]
    assert echo["parameters"]["properties"] == {
        "message": {"type": "string", "description": "Message to echo"}
    }


def test_echo_and_sum(report: Any) -> None:
    echo, total = calls(report)["echo"], calls(report)["sum"]
    assert echo["llmContent"] == [{"text": "Echo: hello from qwen-tools"}]
    assert echo["response"]["functionResponse"] == {
        "id": "call_echo",
        "name": "everything__echo",
        "response": {"output": "Echo: hello from qwen-tools"},
    }
    assert total["responseText"] == "The sum of 2 and 3.5 is 5.5."


def test_image_becomes_a_note_and_inline_data(report: Any) -> None:
    image = calls(report)["image"]
    note = "[Tool 'get-tiny-image' provided the following image data with mime-type: image/png]"
    inline = {"inlineData": {"mimeType": "image/png", "data": tiny_image()}}
    assert image["llmContent"] == [
        {"text": "Here's the image you requested:"},
        {"text": note},
        inline,
        {"text": "The image above is the MCP logo."},
    ]
    assert image["display"] == (
        f"Here's the image you requested:\n{note}\n[image/png]\nThe image above is the MCP logo."
    )
    response = image["response"]["functionResponse"]
    assert response["parts"] == [inline]
    assert response["response"] == {
        "output": f"Here's the image you requested:\n{note}\nThe image above is the MCP logo."
    }


def test_annotated_content_keeps_only_text_and_image(report: Any) -> None:
    annotated = calls(report)["annotated"]["llmContent"]
    assert annotated[0] == {"text": "Operation completed successfully"}
    assert annotated[1]["text"].startswith("[Tool 'get-annotated-message' provided the following")
    assert annotated[2] == {"inlineData": {"mimeType": "image/png", "data": tiny_image()}}
    assert len(annotated) == 3


def test_embedded_resources(report: Any) -> None:
    text = calls(report)["textResource"]["llmContent"]
    assert text[0] == {"text": "Returning resource reference for Resource 2:"}
    assert re.fullmatch(r"Resource 2: This is a plaintext resource created at .+", text[1]["text"])
    assert text[2] == {
        "text": "You can access this resource using the URI: demo://resource/dynamic/text/2"
    }
    assert len(text) == 3  # the embedded text resource's URI is dropped, as Qwen Code does
    blob = calls(report)["blobResource"]["llmContent"]
    assert blob[1] == {
        "text": "[Tool 'get-resource-reference' provided the following embedded resource "
        "with mime-type: text/plain]"
    }
    assert blob[2]["inlineData"]["mimeType"] == "text/plain"
    decoded = base64.b64decode(blob[2]["inlineData"]["data"]).decode()
    assert decoded.startswith("Resource 1: This is a base64 blob created at ")
    assert blob[3]["text"].endswith("demo://resource/dynamic/blob/1")


def test_resource_links(report: Any) -> None:
    assert calls(report)["links"]["llmContent"] == [
        {"text": "Here are 3 resource links to resources available in this server:"},
        {"text": "Resource Link: Blob Resource 1 at demo://resource/dynamic/blob/1"},
        {"text": "Resource Link: Text Resource 2 at demo://resource/dynamic/text/2"},
        {"text": "Resource Link: Blob Resource 3 at demo://resource/dynamic/blob/3"},
    ]


def test_structured_content_equal_to_its_text_is_not_repeated(report: Any) -> None:
    weather = '{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}'
    assert calls(report)["structured"]["llmContent"] == [{"text": weather}]


def test_roots_are_the_workspace(report: Any) -> None:
    text = calls(report)["roots"]["responseText"]
    assert text.startswith("Current MCP Roots (1 total):\n\n1. ws\n")
    assert f"URI: {report['workspace']}\n" in text


def test_tool_error_and_schema_refusal(report: Any) -> None:
    failed = calls(report)["toolError"]
    message = "Invalid resourceId: 0. Must be a finite positive integer."
    content = [{"type": "text", "text": message}]
    raw = {"error": {"content": content, "isError": True}, "content": content}
    assert (failed["status"], failed["errorType"]) == ("error", "mcp_tool_error")
    assert failed["responseText"] == (
        "MCP tool 'get-resource-reference' reported tool error for function call: "
        '{"name":"get-resource-reference","args":{"resourceType":"Text","resourceId":0}} '
        "with response: "
        + json.dumps(
            [{"functionResponse": {"name": "get-resource-reference", "response": raw}}],
            separators=(",", ":"),
        )
    )
    assert failed["display"] == "Error: MCP tool 'get-resource-reference' reported an error."
    # a tool that needs task augmentation (SEP-1686) is not offered: a call cannot reach it
    task = calls(report)["taskRequired"]
    assert (task["status"], task["errorType"]) == ("error", "tool_not_registered")
    refused = calls(report)["schemaRejected"]
    assert refused["errorType"] == "invalid_tool_params"
    assert refused["responseText"] == "params/location must be equal to one of the allowed values"


def test_progress_notifications_reach_update_output(report: Any) -> None:
    done = calls(report)["progress"]
    assert done["responseText"] == (
        "Long running operation completed. Duration: 0.3 seconds, Steps: 3."
    )
    assert done["progress"] == [
        {"type": "mcp_tool_progress", "progress": float(step), "total": 3.0} for step in (1, 2, 3)
    ]


def test_cancel_reaches_the_server_and_returns_the_cancelled_result(report: Any) -> None:
    cancel = report["cancel"]
    cancelled = cancel["cancelled"]
    assert (cancelled["status"], cancelled["errorType"]) == ("cancelled", "execution_cancelled")
    assert cancelled["responseText"] == CANCELLED_TEXT
    # nothing reaches update_output after the abort
    assert cancelled["progress"] == [{"type": "mcp_tool_progress", "progress": 1.0, "total": 4.0}]
    # the wire: the server was told, ran its handler to the end (it reports progress on its
    # own), and never answered the cancelled request, while it did answer the next one
    request_id = cancel["cancelledId"]
    assert isinstance(request_id, int)
    assert cancel["cancelNotifications"] == [
        {"requestId": request_id, "reason": "caller cancelled"}
    ]
    assert [p["progress"] for p in cancel["progressSentForCancelled"]] == [1, 2, 3, 4]
    assert cancel["answersToCancelled"] == []
    assert len(cancel["answersToFollowUp"]) == 1
    assert cancel["followUp"]["responseText"] == (
        "Long running operation completed. Duration: 1.2 seconds, Steps: 1."
    )
