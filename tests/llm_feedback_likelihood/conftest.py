"""Fixtures of the likelihood-mode tests: the bundled example scenario."""

from __future__ import annotations

from pathlib import Path

import pytest

from eunomia.scenarios import Scenario, load_scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"


@pytest.fixture(scope="session")
def scenario() -> Scenario:
    loaded, diagnostics = load_scenario(EXAMPLE)
    assert loaded is not None, diagnostics
    return loaded
