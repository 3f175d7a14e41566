"""The ``ray`` marker: ``pytest -m ray`` runs the executor tests only."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "ray: the Ray executor (a local 2-CPU Ray cluster)")
