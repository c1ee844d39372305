"""Fixtures of the config tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from support.settings_layout import Layout, make_layout


@pytest.fixture
def layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Layout:
    return make_layout(tmp_path, monkeypatch)
