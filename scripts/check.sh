#!/usr/bin/env bash
# The project's test command: lint, format check, strict typing, then the test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
bash scripts/system-deps.sh
"$PY" -m ruff check src tests bench scripts
"$PY" -m ruff format --check src tests bench scripts
"$PY" -m mypy
"$PY" -m pytest -q
