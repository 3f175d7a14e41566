"""Credit expectations and tutor grades as a user meets them: ``eunomia validate`` names
every bad value with file, line and key; ``eunomia run`` on Athena's own tests reports the
points both ways and which credit expectations were met."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.scenarios.test_case_data import MODULE_TESTS, graded_manifest
from tests.scenarios.test_loader import dump, line_of, write_scenario
from tests.support.cli import run_cli


def test_validate_names_the_bad_values(tmp_path: Path) -> None:
    manifest = graded_manifest()
    manifest["expected_credits"]["classes_correct"] = ">= 1e999"
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    proc = run_cli("validate", folder, cwd=tmp_path)
    assert proc.returncode == 1
    out = " ".join(proc.stdout.split())
    where = folder / "manifest.yml"
    line = line_of(text, "classes_correct:", start="expected_credits:")
    assert f"error: {where}:{line} [expected_credits.classes_correct]: a credit expectation " \
           "must be a finite number" in out
    proc2 = run_cli("validate", write_scenario(tmp_path, graded_manifest() | {
        "cases": {**graded_manifest()["cases"],
                  "association": {"tutor": {"percent": 400}}}}, name="other"), cwd=tmp_path)
    assert proc2.returncode == 1
    assert "[cases.association.tutor.percent]: 400% of max_points is 8 points, more than " \
           "max_points + bonus_points (2)" in " ".join(proc2.stdout.split())


def test_validate_accepts_athenas_own_tests(tmp_path: Path) -> None:
    proc = run_cli("validate", MODULE_TESTS, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout
    assert "athena_test_ecommerce: 5 criteria, 5 instructions, 1 test cases" in proc.stdout
    assert "0 error(s), 0 warning(s)" in proc.stdout


def test_baseline_on_athenas_own_tests(tmp_path: Path) -> None:
    proc = run_cli("run", MODULE_TESTS, "--target", "baseline:default", "--run-name", "base",
                   cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    results = tmp_path / "results" / "base"
    with (results / "athena_test_ecommerce" / "tables" / "scenario_summary.csv").open() as fh:
        rows = dict(list(csv.reader(fh))[1:])
    # the baseline names every instruction with its own 2.0 credits: Athena's test expects
    # 0.0 for instructions 1, 2 and 5
    assert rows["Credit Expectations Met"] == "2/5 (0/1 cases meet all)"
    assert rows["Mean Points By Instructions Returned"] == "10"
    assert rows["Mean Points Awarded (sum of credits, as Artemis totals)"] == "10"
    case = json.loads((results / "athena_test_hospital" / "test_cases" / "submission.json")
                      .read_text(encoding="utf-8"))
    assert [(c["instruction"], c["expected"], c["credits"], c["met"])
            for c in case["credit_expectations"]] == [
        ("1", "== 0", 2.0, False), ("2", ">= 1", 2.0, True), ("4", "== 0", 2.0, False),
        ("5", "== 0", 2.0, False)]
    summary = json.loads((results / "athena_test_hospital" / "scenario_results.json")
                         .read_text(encoding="utf-8"))
    assert summary["credit_expectations"] == {"checked": 4, "met": 1, "cases": 1,
                                              "cases_all_met": 0}
