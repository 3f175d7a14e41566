"""The scatter plot of agreement with tutors: a point per case with its tooltip, the
diagonal, escaped labels, and a message instead of an empty plot."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from eunomia.report.html import (
    AgreementPoint,
    AgreementSeries,
    agreement_chart,
    agreement_rows,
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


def test_the_sections_figures_say_how_far_they_can_be_trusted() -> None:
    few = agreement([AgreementPair("car", f"c{k}", t, s, 7.0)
                     for k, (t, s) in enumerate([(0, 0.5), (3.5, 2.0), (7.0, 6.0), (5.0, 5.5),
                                                 (1.0, 1.5)])])
    rows = {r.measure: r for r in agreement_rows(few)}
    r = rows["Pearson r"]
    assert r.too_few and r.estimate == f"{few.pearson.estimate:.3f}"
    assert r.interval.startswith("too few cases to tell (5 cases; at least 10 are needed);")
    assert "bootstrap" in r.interval and "Fisher z" in r.interval  # how little is known
    mad = rows["Mean absolute difference (points)"]
    assert mad.too_few and mad.estimate == "0.80"  # (0.5 + 1.5 + 1 + 0.5 + 0.5) / 5
    many = agreement([AgreementPair("car", f"c{k}", k % 7, (k * 3) % 7, 7.0)
                      for k in range(12)])
    rows = {r.measure: r for r in agreement_rows(many)}
    assert not rows["Spearman rho"].too_few
    assert rows["Spearman rho"].interval.endswith("(n=12)")
    assert "too few" not in rows["Bias, system − tutor (% of max points)"].interval
    flat = agreement([AgreementPair("car", f"c{k}", k, 0.0, 7.0) for k in range(12)])
    assert agreement_rows(flat)[0].estimate == "–"
    assert agreement_rows(flat)[0].interval == "undefined: one side has no spread (n=12)"
