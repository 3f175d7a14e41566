"""Fixtures of the control-answer tests: the real suites' cases with a reference."""

from __future__ import annotations

import pytest
from tests.controls.real_cases import RealCase, real_cases


@pytest.fixture(scope="module")
def cases() -> list[RealCase]:
    found = list(real_cases())
    assert len(found) >= 50  # 25 examples, 25 v2, the v1 files that load
    return found
