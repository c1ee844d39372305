"""Our MCP client as the conformance suite's client under test: ``conformance_client.py URL``.

``@modelcontextprotocol/conformance client --command "python conformance_client.py"`` starts a
scenario server and runs this program with the server's URL as the last argument (the scenario's
name is in ``$MCP_CONFORMANCE_SCENARIO``). It takes the path a user's configuration takes: a
throw-away workspace whose ``.qwen/settings.json`` has ``mcpServers.conformance.httpUrl`` set to
the URL, :meth:`Config.load`, :class:`McpManager`, :func:`register_mcp_tools`, and then every
tool the server offers called once through :func:`run_tool_call` (approval mode ``yolo``, as
nobody is there to confirm), with arguments made from its input schema.

For an ``auth/*`` scenario it first logs in as ``qwen-tools mcp auth`` does (:func:`login`, its
127.0.0.1 listener receiving the redirect that :func:`follow` obtains in place of a browser); the
session then connects with the stored tokens. A client registered beforehand
(``$MCP_CONFORMANCE_CONTEXT``) becomes the entry's ``oauth.clientId`` / ``clientSecret``.

Each call prints one JSON line ``{"tool", "status", "responseText"}`` on stdout. Exit codes:
``0`` the server connected (or, for ``initialize``, was found to offer nothing) and every call
succeeded; ``1`` otherwise, with the reason on stderr.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from qwen_tools import ApprovalMode, Config, ToolCallRequest, build_registry, run_tool_call
from qwen_tools.mcp.connection import McpServerStatus
from qwen_tools.mcp.listing import NOTHING_FOUND
from qwen_tools.mcp.manager import McpManager
from qwen_tools.mcp.oauth_login import login
from qwen_tools.mcp.registration import register_mcp_tools

SERVER = "conformance"
SCENARIO_VAR = "MCP_CONFORMANCE_SCENARIO"
CONTEXT_VAR = "MCP_CONFORMANCE_CONTEXT"
CIMD_URL = "https://conformance-test.local/client-metadata.json"
# Scenarios whose server offers no tools, prompts or resources: a session that settles as
# Qwen Code's "nothing found" after a complete handshake is the expected outcome there.
EMPTY_SERVER_SCENARIOS = frozenset({"initialize"})


def sample_value(schema: Any, counter: list[int]) -> Any:
    """A value matching ``schema`` (numbers count up from 2, so sums are checkable)."""
    if not isinstance(schema, dict):
        return "conformance"
    if "default" in schema:
        return schema["default"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind in ("number", "integer"):
        counter[0] += 1
        return counter[0] + 1
    if kind == "boolean":
        return True
    if kind == "array":
        return []
    if kind == "object":
        return sample_arguments(schema, counter)
    return "conformance"


def sample_arguments(schema: dict[str, Any], counter: list[int] | None = None) -> dict[str, Any]:
    """Arguments for a tool: a sample value for each required property."""
    counter = counter if counter is not None else [0]
    properties = schema.get("properties")
    required = schema.get("required")
    if not isinstance(properties, dict) or not isinstance(required, list):
        return {}
    return {name: sample_value(properties.get(name), counter) for name in required}


def write_workspace(root: Path, url: str) -> Path:
    """A workspace whose settings configure one Streamable HTTP server at ``url``."""
    workspace = root / "workspace"
    (workspace / ".qwen").mkdir(parents=True)
    entry: dict[str, Any] = {"httpUrl": url, "timeout": 20_000}
    context = json.loads(os.environ.get(CONTEXT_VAR) or "{}")
    if isinstance(context, dict) and context.get("client_id"):
        # a client registered beforehand (auth/pre-registration): Qwen Code's "oauth" entry
        entry["oauth"] = {"clientId": context["client_id"]}
        if context.get("client_secret"):
            entry["oauth"]["clientSecret"] = context["client_secret"]
    if os.environ.get(SCENARIO_VAR) == "auth/basic-cimd":
        # the suite's authorization server expects this published client metadata document
        entry["oauth"] = {"clientMetadataUrl": CIMD_URL}
    settings = {"mcpServers": {SERVER: entry}}
    (workspace / ".qwen" / "settings.json").write_text(json.dumps(settings))
    home = root / "home"
    home.mkdir()
    # Only this workspace's settings count: user and system files live in the temp root.
    os.environ["QWEN_HOME"] = str(home)
    os.environ["QWEN_CODE_SYSTEM_SETTINGS_PATH"] = str(root / "system-settings.json")
    os.environ["QWEN_CODE_SYSTEM_DEFAULTS_PATH"] = str(root / "system-defaults.json")
    return workspace


async def follow(authorization_url: str) -> None:
    """The browser of ``qwen-tools mcp auth``: the suite's authorization server answers at once
    with a redirect, which goes to the login's 127.0.0.1 listener like a browser's would."""
    import httpx

    async with httpx.AsyncClient() as http:
        answer = await http.get(authorization_url, follow_redirects=False)
        location = answer.headers.get("location")
        if answer.status_code not in (301, 302, 303, 307, 308) or not location:
            raise RuntimeError(f"no redirect from {authorization_url}: {answer.status_code}")
        await http.get(location)


async def run(url: str, scenario: str) -> int:
    """Connect, call every offered tool, report; the exit code."""
    with tempfile.TemporaryDirectory(prefix="qwen-conformance-") as tmp:
        config = Config.load(write_workspace(Path(tmp), url), approval_mode=ApprovalMode.YOLO)
        registry = build_registry(config)
        if scenario.startswith("auth/"):
            await login(SERVER, config.settings.mcp_servers[SERVER], follow, home=config.home_dir)
        async with McpManager(config) as manager:
            status = manager.status(SERVER)
            reason = manager.last_error(SERVER)
            print(f"conformance client: {SERVER} is {status.value}", file=sys.stderr)
            if status is not McpServerStatus.CONNECTED:
                if scenario in EMPTY_SERVER_SCENARIOS and reason == NOTHING_FOUND:
                    return 0
                print(f"conformance client: not connected: {reason}", file=sys.stderr)
                return 1
            tools = await register_mcp_tools(registry, manager)
            failures = 0
            for tool in tools:
                args = sample_arguments(tool.parameter_schema)
                done = await run_tool_call(registry, config, ToolCallRequest(tool.name, args))
                line = {
                    "tool": tool.name,
                    "status": done.status,
                    "responseText": done.response_text,
                }
                print(json.dumps(line), flush=True)
                failures += done.status != "success"
            return 1 if failures else 0


def main(argv: list[str]) -> int:
    """``conformance_client.py [ARGS...] URL``: the URL is the last argument."""
    if len(argv) < 2:
        print("usage: conformance_client.py URL", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    return asyncio.run(run(argv[-1], os.environ.get(SCENARIO_VAR, "")))


if __name__ == "__main__":
    sys.exit(main(sys.argv))
