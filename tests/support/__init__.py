"""Helpers shared by the test suites (importable because pytest puts ``tests/`` on the path)."""
