"""A comparison's figures are written one way: the terminal and the Markdown summary (CI)
both write a metric's value and change with ``MetricDelta.figure``."""

from __future__ import annotations

import pytest

from eunomia.compare import MetricDelta
from eunomia.exports import _comparison as markdown
from eunomia.report import _compare_terminal as terminal


def metric(unit: str) -> MetricDelta:
    return MetricDelta("k", "label", 1.0, 2.0, 1.0, unit=unit)


@pytest.mark.parametrize(("unit", "value", "signed", "text"), [
    ("score", 4.25, False, "4.250"),
    ("score", 0.25, True, "+0.250"),
    ("%", 69.84, False, "69.84"),
    ("%", -1.5, True, "-1.50"),
    ("rate", 0.9, False, "90.0%"),
    ("rate", -0.05, True, "-5.0 pts"),
    ("$", 0.0552, False, "0.0552"),
    ("s", 1.25, True, "+1.250 s"),
    ("count", 3.0, False, "3"),
    ("count", 0.0, True, "0"),
    ("count", 2.0, True, "+2"),
    ("score", None, True, "-"),
])
def test_every_unit_written_once(unit: str, value: float | None, signed: bool,
                                 text: str) -> None:
    m = metric(unit)
    assert m.figure(value, signed) == text
    assert terminal._value(m, value, signed) == text
    assert markdown._value(m, value, signed) == text
