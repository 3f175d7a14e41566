"""Agreement with the tutors and credit expectations in every view, as a user meets them:
the case table (CSV), JSON Lines and JUnit (a case whose credits miss their expectation
fails, named), the HTML report (the agreement section, the points columns), the leaderboard
of several targets (terminal, CSV, report) and ``compare`` of two runs (terminal, JSON,
Markdown, HTML).

Two runs of one scenario of 12 tutor-graded cases, replayed by ``--target recorded``: in A
the system awards exactly the tutor's points and meets every credit expectation; in B it
gives the relationship 0 credits on three cases (expected ``>= 1``) and 1.5 or 0.5 points
whatever the tutor gave."""

from __future__ import annotations

import csv
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from tests.scenarios.test_loader import base_manifest, write_scenario
from tests.support.browser import Watched
from tests.support.cli import run_cli

TUTOR = [0.0, 0.5, 1.0, 1.5, 2.0, 0.5, 1.0, 1.5, 2.0, 0.0, 1.0, 1.5]
CASES = [f"c{k:02d}" for k in range(len(TUTOR))]
MISSED = CASES[:3]
"""B gives the relationship 0 credits on these (the expectation is >= 1)."""
CHECK = "instruction relationship_correct: expected >= 1, got 0"


def _manifest(variant: str) -> dict[str, Any]:
    cases: dict[str, Any] = {}
    for k, (name, tutor) in enumerate(zip(CASES, TUTOR, strict=True)):
        if variant == "A":  # the tutor's points exactly
            classes, relation = tutor - 1.0, 1.0
        else:
            classes, relation = 0.5, 0.0 if name in MISSED else 1.0
        cases[name] = {
            "tutor": {"points": tutor},
            "recorded": {"source": f"system {variant}", "feedback": [
                {"title": "Classes", "description": f"case {k}", "credits": classes,
                 "instruction": "classes_correct"},
                {"title": "Relationship", "description": "assoc", "credits": relation,
                 "instruction": "relationship_correct"}]},
        }
    return base_manifest(test_case_diffs={}, cases=cases,
                         expected_credits={"relationship_correct": ">= 1"})


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _ok(proc: Any) -> str:
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return " ".join(proc.stdout.split())


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Runs ``a`` (recorded and baseline:default) and ``b`` (recorded) in one results
    folder; returns the working directory."""
    root = tmp_path_factory.mktemp("tutor_views")
    files = {name: json.dumps({"version": "3.0.0", "elements": {}, "relationships": {}})
             for name in CASES}
    for variant in ("A", "B"):
        write_scenario(root / variant, _manifest(variant), files, name="graded")
    _ok(run_cli("run", root / "A", "--target", "recorded", "--target", "baseline:default",
                "--run-name", "a", cwd=root, timeout=180))
    _ok(run_cli("run", root / "B", "--target", "recorded", "--run-name", "b", cwd=root,
                timeout=180))
    return root


def test_the_case_table_has_the_points_columns(runs: Path) -> None:
    rows = {r["Test Case"]: r for r in _csv(
        runs / "results" / "b" / "graded" / "tables" / "test_case_results.csv")}
    assert set(rows) == set(CASES)
    assert rows["c00"]["Awarded Points"] == "0.5" and rows["c00"]["Tutor Points"] == "0"
    assert rows["c00"]["Credit Expectations Met"] == "0/1"
    assert rows["c00"]["Credit Expectations Not Met"] == CHECK
    assert rows["c04"]["Awarded Points"] == "1.5" and rows["c04"]["Tutor Points"] == "2"
    assert rows["c04"]["Credit Expectations Met"] == "1/1"
    assert rows["c04"]["Credit Expectations Not Met"] == ""
    a = {r["Test Case"]: r for r in _csv(
        runs / "results" / "a" / "recorded" / "graded" / "tables" / "test_case_results.csv")}
    assert [float(a[c]["Awarded Points"]) for c in CASES] == TUTOR


def test_a_case_whose_credits_miss_fails_in_jsonl_and_junit(runs: Path) -> None:
    proc = run_cli("export", "b", "--format", "jsonl", "--output", "-", cwd=runs)
    _ok(proc)
    records = {r["case"]: r for r in map(json.loads, proc.stdout.splitlines())}
    for name in CASES:
        r = records[name]
        missed = name in MISSED
        assert r["passed"] is not missed and r["outcome"] == ("failed" if missed else "passed")
        assert r["credit_expectations_met"] is not missed
        assert r["tutor_points"] == TUTOR[CASES.index(name)]
    assert records["c00"]["fully_correct"] is True  # the ids were right: only the credits
    assert records["c00"]["reason"] == ("1 of 1 credit expectation(s) not met "
                                        "(instruction relationship_correct)")
    assert records["c00"]["credit_expectations_not_met"] == [CHECK]
    assert records["c00"]["diff"] == f"! credits {CHECK}"
    assert records["c05"]["awarded_points"] == 1.5
    proc = run_cli("export", "b", "--format", "junit", "--output", "-", cwd=runs)
    _ok(proc)
    root = ET.fromstring(proc.stdout)
    failures = {c.get("name"): c.find("failure") for c in root.iter("testcase")}
    assert {n for n, f in failures.items() if f is not None} == set(MISSED)
    message = failures["c01"].get("message") or ""  # type: ignore[union-attr]
    assert "credit expectation(s) not met" in message and f"! credits {CHECK}" in message


def test_report_shows_the_agreement_and_the_points_columns(runs: Path) -> None:
    out = runs / "a.html"
    _ok(run_cli("report", "a", "--output", out, cwd=runs))
    page = out.read_text(encoding="utf-8")
    group = page.split('<span class="badge">recorded</span>', 1)[1].split("</section>")[0]
    section = group.split('-tutors">Agreement with the tutors</h3>', 1)[1]
    # recorded awards the tutors' points: r = 1 on 12 cases, no difference, no bias
    assert "<td>Pearson r</td><td class=\"n\">1.000</td>" in section
    assert "Mean absolute difference (points)</td><td class=\"n\">0.00</td>" in section
    assert "12 of 12 graded cases compared" in section
    assert section.count('class="point"') == len(CASES)
    # baseline:default awards 2 points everywhere: no coefficient, and it says why
    assert "undefined: one side has no spread (n=12)" in page
    cases = page.split('id="cases"', 1)[1]
    assert "<th class=\"n\">Awarded points</th><th class=\"n\">Tutor points</th>" in cases
    # the leaderboard of the two targets: agreement pooled per target
    board = page.split('id="leaderboard"', 1)[1].split("</table>")[0]
    assert "Tutors: Pearson r (95% CI)" in board
    assert "1.00 [1.00, 1.00] n=12" in board and "undefined (no spread) n=12" in board


def test_leaderboard_has_the_pooled_agreement(runs: Path) -> None:
    rows = {r["target"]: r for r in _csv(runs / "results" / "a" / "leaderboard.csv")}
    assert float(rows["recorded"]["tutor_pearson"]) == pytest.approx(1.0)
    assert rows["recorded"]["tutor_cases"] == "12"
    assert float(rows["recorded"]["tutor_mean_absolute_difference_percent"]) == 0.0
    assert rows["baseline:default"]["tutor_pearson"] == ""  # undefined, not 0
    mad = sum(abs(2.0 - t) for t in TUTOR) / len(TUTOR) / 2.0 * 100
    assert float(rows["baseline:default"]["tutor_mean_absolute_difference_percent"]) == \
        pytest.approx(mad)


def test_compare_has_the_credits_and_the_tutors(runs: Path) -> None:
    proc = run_cli("compare", "a", "b", "--target-a", "recorded", "--json", runs / "c.json",
                   "--summary-md", runs / "c.md", cwd=runs)
    text = _ok(proc)
    data = json.loads((runs / "c.json").read_text(encoding="utf-8"))
    credits = data["overall"]["metrics"]["credits"]
    assert (credits["a"], credits["b"], credits["regressions"], credits["fixes"]) == \
        (1.0, 0.75, 3, 0)
    mad = data["overall"]["metrics"]["tutor_mad"]
    assert mad["a"] == 0.0 and mad["b"] > 20 and mad["direction"] == "worse"
    tutor = data["tutor_agreement"]
    assert tutor["cases"] == 12 and tutor["pearson"]["a"]["estimate"] == pytest.approx(1.0)
    b_r = tutor["pearson"]["b"]["estimate"]
    delta = tutor["pearson"]["delta"]
    assert delta["estimate"] == pytest.approx(b_r - 1.0) and delta["low"] <= delta["high"]
    changes = {c["case"]: c for c in data["cases"]}
    assert changes["c00"]["change"] == "regressed"  # same score, credits no longer met
    assert changes["c00"]["a_credits_met"] is True and changes["c00"]["b_credits_met"] is False
    assert "Credit expectations met" in text and "Tutors: Pearson r: A 1.000" in text
    assert "credit expectations no longer met" in text
    md = (runs / "c.md").read_text(encoding="utf-8")
    assert "Mean absolute difference from tutors" in md and "Pearson r: A 1.000" in md
    out = runs / "cmp.html"
    _ok(run_cli("report", "a", "--compare", "b", "--output", out, cwd=runs))
    page = out.read_text(encoding="utf-8")
    assert 'id="tutors">Agreement with the tutors' in page
    assert "credit expectations no longer met" in page


def test_agreement_section_in_chromium_at_1400px(runs: Path, page: Watched) -> None:
    out = runs / "a_browser.html"
    _ok(run_cli("report", "a", "--output", out, cwd=runs))
    page.page.set_viewport_size({"width": 1400, "height": 900})
    page.goto(out.as_uri())
    sections = page.page.locator("h3", has_text="Agreement with the tutors")
    assert sections.count() == 2  # one per target
    boxes = page.page.evaluate(
        """() => [...document.querySelectorAll('svg.agreement')].map(e => {
             const r = e.getBoundingClientRect(), p = e.parentElement.getBoundingClientRect();
             return {w: r.width, h: r.height, right: r.right, limit: p.right,
                     points: e.querySelectorAll('g.point').length}; })""")
    assert len(boxes) == 2
    for b in boxes:  # drawn with a real size, inside its section, a point per case
        assert b["w"] > 300 and b["h"] > 300 and b["right"] <= b["limit"] + 1, b
        assert b["points"] == len(CASES)
    overflow = page.page.evaluate(
        """() => [...document.querySelectorAll('table.agreement')].map(t =>
             t.parentElement.scrollWidth - t.parentElement.clientWidth)""")
    assert overflow == [0, 0]  # the figures table fits without scrolling at 1400 px
    sections.last.scroll_into_view_if_needed()
    shot = page.page.locator("section.group", has_text="Agreement with the tutors").last
    shot.screenshot(path=str(runs / "agreement_1400.png"))
    assert (runs / "agreement_1400.png").stat().st_size > 10_000
    page.check_clean()
