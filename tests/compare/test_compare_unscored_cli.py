"""``eunomia compare`` of a case scored in A and unscored in B, as a user gets there: two
``eunomia eval --judge none`` runs of the same cases, the first with a check on every case, the
second without checks on three of them (nothing can score those: unscored, not failed). Every
view says the same: three cases newly unscored, none newly failed, no regression, a warning."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from tests.support.cli import run_cli

CASES = 14
UNCHECKED = ("q-01", "q-02", "q-03")
WIDE = {"COLUMNS": "200"}


def _suite(unchecked: tuple[str, ...]) -> str:
    out = []
    for i in range(1, CASES + 1):
        case = f"q-{i:02d}"
        out.append(f"- case_id: {case}\n  category: General Knowledge\n"
                   f"  instruction: What is {i} plus {i}?\n"
                   f"  expected_response: The answer is {2 * i}.\n")
        if case not in unchecked:
            out.append('  checks:\n    - contains: "The answer is"\n')
    return "".join(out)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("unscored_compare")
    for name, unchecked in (("checked", ()), ("unchecked", UNCHECKED)):
        (root / name).mkdir()
        (root / name / "general_knowledge.yaml").write_text(_suite(unchecked), encoding="utf-8")
        done = run_cli("eval", f"{name}/general_knowledge.yaml", "--model", "baseline:reference",
                       "--judge", "none", "--run-name", name, cwd=root, env=WIDE)
        assert done.returncode == 0, done.stdout + done.stderr
    return root


def test_newly_unscored_agrees_in_every_view_and_passes_the_gate(folder: Path) -> None:
    done = run_cli("compare", "checked", "unchecked", "--fail-on-regression", "--json",
                   "cmp.json", "--junit", "cmp.xml", "--summary-md", "cmp.md", cwd=folder,
                   env=WIDE)
    assert done.returncode == 0, done.stdout + done.stderr  # a warning, not a regression
    out = done.stdout
    assert "Cases: 3 newly unscored, 11 unchanged" in out
    assert "Newly unscored (3)" in out and "Newly failed" not in out
    assert "3 case(s) scored in A are unscored in B, not failed (no checks and --judge none" \
        in out
    verdict = out.strip().splitlines()[-3]  # then the two files written
    assert verdict.startswith("NO SIGNIFICANT CHANGE from checked to unchecked")
    assert "WARNING: 3 case(s) scored in A could not be scored in B" in verdict
    failed = next(x for x in out.splitlines() if x.startswith("│ Failed cases"))
    unscored = next(x for x in out.splitlines() if x.startswith("│ Unscored cases"))
    assert [c.strip() for c in failed.strip("│").split("│")][1:3] == ["0", "0"]
    assert [c.strip() for c in unscored.strip("│").split("│")][1:3] == ["0", "3"]

    data = json.loads((folder / "cmp.json").read_text(encoding="utf-8"))
    assert (data["counts"]["newly_unscored"], data["counts"]["newly_failed"],
            data["counts"]["unchanged"]) == (3, 0, 11)
    assert data["verdict"]["kind"] == "no_significant_change"
    assert data["verdict"]["regression"] is False and data["verdict"]["warning"] is True
    assert sorted(c["case"] for c in data["cases"] if c["change"] == "newly_unscored") == \
        list(UNCHECKED)
    assert data["overall"]["metrics"]["unscored"]["b"] == 3

    root = ET.parse(folder / "cmp.xml").getroot()
    assert root.get("failures") == "0"
    suite = root.find("./testsuite[@name='general_knowledge']")
    assert suite is not None and (suite.get("failures"), suite.get("skipped")) == ("0", "3")
    skipped = {c.get("name"): c.find("skipped") for c in root.iter("testcase")}
    assert sorted(n for n, s in skipped.items() if s is not None) == list(UNCHECKED)
    props = {p.get("name"): p.get("value") for p in suite.iterfind("./properties/property")}
    assert (props["newly_unscored"], props["newly_failed"]) == ("3", "0")

    md = (folder / "cmp.md").read_text(encoding="utf-8")
    assert "Cases: 3 newly unscored, 11 unchanged" in md
    assert "**Cases scored in A that nothing could score in B** (3)" in md
    assert "Cases that got worse" not in md and md.count("| newly unscored |") == 3

    done = run_cli("report", "checked", "--compare", "unchecked", cwd=folder, env=WIDE)
    assert done.returncode == 0, done.stdout + done.stderr
    page = (folder / "results" / "checked" / "compare_unchecked.html").read_text(
        encoding="utf-8")
    assert '<span class="badge newly_unscored">newly unscored: 3</span>' in page
    assert '<span class="badge newly_failed">newly failed: 0</span>' in page
    assert page.count('<tr class="unscored">') == 3
    assert '<div class="verdict no_significant_change warned">' in page
    assert re.search(r'<li class="warn">WARNING: 3 case\(s\) scored in A could not', page)


def test_the_reverse_is_newly_scored_with_no_warning_in_the_verdict(folder: Path) -> None:
    done = run_cli("compare", "unchecked", "checked", "--json", "-", cwd=folder)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(done.stdout)
    assert (data["counts"]["newly_scored"], data["counts"]["fixed"]) == (3, 0)
    assert data["verdict"]["warning"] is False and data["verdict"]["signals"] == []
    assert any(w.startswith("3 case(s) scored in B are unscored in A, not failed")
               for w in data["warnings"])
