"""A rollout: the agent on every task of ``tasks.jsonl``, one JSON record per task.

Run (any OpenAI-compatible endpoint: vLLM, SGLang, ...)::

    OPENAI_BASE_URL=http://127.0.0.1:8000/v1 OPENAI_API_KEY=none OPENAI_MODEL=qwen3-coder \\
        python examples/rollout/run_rollout.py [OUT.jsonl]

It runs ``qwen-tools rollout tasks.jsonl --concurrency 2 -o OUT.jsonl`` (sessions in this
process; add ``--ray local`` or ``--ray auto`` for a Ray pool, with ``qwen-tools[ray]``) and
prints each record's status, turns, tool calls and diff size. Rerunning skips finished tasks.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(out: Path) -> int:
    exe = shutil.which("qwen-tools", path=str(Path(sys.executable).parent))
    argv = [exe] if exe else [sys.executable, "-m", "qwen_tools"]
    tasks = HERE / "tasks.jsonl"
    command = [*argv, "rollout", str(tasks), "--concurrency", "2", "-o", str(out)]
    done = subprocess.run(command, check=False)
    if done.returncode != 0:
        return done.returncode
    for line in out.read_text().splitlines():
        record = json.loads(line)
        calls = ", ".join(f"{c['name']}:{c['status']}" for c in record["tool_calls"])
        print(
            f"{record['id']}: {record['status']} in {record['turns']} turn(s) [{calls}]"
            f" diff {len(record['diff'] or '')} bytes"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1] if len(sys.argv) > 1 else "rollout-out.jsonl").resolve()))
