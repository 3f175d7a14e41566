"""The public surface of eunomia.stats."""

from __future__ import annotations

import eunomia.stats as stats


def test_all_names_are_exported() -> None:
    for name in stats.__all__:
        assert hasattr(stats, name), name


def test_test_result_is_not_collected_by_pytest() -> None:
    assert stats.TestResult.__test__ is False
