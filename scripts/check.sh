#!/usr/bin/env bash
# The project's test command: lint, format check, strict typing, then the test suite in parallel.
# PYTEST_WORKERS=0 runs the tests in one process.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
bash scripts/system-deps.sh
"$PY" -m ruff check src tests bench scripts examples
"$PY" -m ruff format --check src tests bench scripts examples
"$PY" -m mypy
# The documentation site, strict: a broken link, a docstring griffe cannot read or a built-in
# tool without its page fails (about 3 s).
SITE="$(mktemp -d)"
NO_MKDOCS_2_WARNING=1 "$PY" -m mkdocs build --strict --quiet --site-dir "$SITE"
rm -rf "$SITE"
# Four workers (pytest-xdist) on any machine: the tests mostly wait on the processes and servers
# they start, so even two cores gain from more workers than cores (bench/suite_time.md).
"$PY" -m pytest -q -n "${PYTEST_WORKERS:-4}"
