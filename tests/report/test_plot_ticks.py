"""The latency chart's axes and fitted line (issue #30, 7): tick labels written alike on an
axis, and the line drawn over the data only, never below 0."""

from __future__ import annotations

import re

import pytest

from eunomia.report.html._plots import Fit, Series, fit_segment, scatter_chart, tick_text

QUARTERS = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75]


def test_ticks_of_one_axis_have_the_same_decimals() -> None:
    # it wrote 0.25, 0.5, 0.75, 1, 1.2, 1.5, 1.8: rounded unevenly
    assert [tick_text(t, QUARTERS) for t in QUARTERS] == [
        "0", "0.25", "0.50", "0.75", "1.00", "1.25", "1.50", "1.75"]
    fine = [0.0, 0.005, 0.01, 0.015]
    assert [tick_text(t, fine) for t in fine] == ["0", "0.005", "0.010", "0.015"]
    big = [0.0, 2000.0, 4000.0]
    assert [tick_text(t, big) for t in big] == ["0", "2,000", "4,000"]


def test_fit_segment_spans_the_data_and_stays_above_zero() -> None:
    fit = Fit(slope=0.001, intercept=-0.5, label="")
    # crosses 0 at x = 500: drawn from there to the last point
    assert fit_segment(fit, [300.0, 700.0]) == ((500.0, 0.0), (700.0, pytest.approx(0.2)))
    assert fit_segment(Fit(0.0, 1.0, ""), [10.0, 20.0]) == ((10.0, 1.0), (20.0, 1.0))
    assert fit_segment(fit, [100.0, 200.0]) is None  # below 0 over the whole range


def test_scatter_ticks_in_the_svg_are_written_alike() -> None:
    svg = str(scatter_chart([Series("t", [100, 400, 800], [0.3, 0.8, 1.3])],
                            title="Latency vs output length", x_label="output tokens",
                            y_label="latency (s)",
                            fit=Fit(0.0023, 0.05, "fit")))
    labels = re.findall(r"<text[^>]*>([0-9.,]+)</text>", svg)
    decimals = {len(t.partition(".")[2]) for t in labels if t != "0" and "." in t}
    assert labels and len(decimals) <= 1, labels
