"""The scatter plot of agreement with tutors: a point per case with its tooltip, the
diagonal, escaped labels, and a message instead of an empty plot."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from eunomia.report.html import (
    AgreementPoint,
    AgreementSeries,
    agreement_chart,
    agreement_series,
)
from eunomia.scoring import AgreementPair, agreement

SVG = "{http://www.w3.org/2000/svg}"


def _groups(svg: str, css: str) -> list[str]:
    root = ET.fromstring(svg)
    return [g.findtext(f"{SVG}title") or "" for g in root.iter(f"{SVG}g")
            if css in (g.get("class") or "").split()]


def test_a_point_per_case_and_the_diagonal() -> None:
    pairs = [AgreementPair("car", f"c{k}", t, s, 7.0)
             for k, (t, s) in enumerate([(0, 0.5), (3.5, 2.0), (7.0, 6.0), (5.0, 5.5)])]
    found = agreement(pairs)
    series = agreement_series("recorded", found)
    assert series.summary.startswith("Pearson r ") and series.summary.endswith("n=4")
    svg = str(agreement_chart([series], title="Agreement with tutors"))
    tips = _groups(svg, "point")
    assert len(tips) == 4
    assert "recorded / car/c1: tutor 50.0%, system 28.6%" in tips
    assert _groups(svg, "diagonal") == ["where the system's points equal the tutor's"]
    assert "system = tutor" in svg and "Agreement with tutors" in svg
    assert svg == str(agreement_chart([series], title="Agreement with tutors"))  # same bytes


def test_labels_stay_text() -> None:
    evil = "<img src=x onerror=alert(1)>"
    svg = str(agreement_chart([AgreementSeries(evil, [AgreementPoint(evil, 10, 20)])],
                              title=evil))
    assert "<img" not in svg and "&lt;img" in svg
    ET.fromstring(svg)  # well-formed


def test_no_case_no_empty_plot() -> None:
    svg = str(agreement_chart([AgreementSeries("x", [])], title="t"))
    assert "no graded case with an answer" in svg
    assert _groups(svg, "point") == []
