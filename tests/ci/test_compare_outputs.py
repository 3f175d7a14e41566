"""``eunomia compare --junit/--summary-md --fail-on-regression``: the CI gate as a user runs it,
on two scenario runs of the same cases (the example module, then ``baseline:default``, which
assumes every diagram is perfect: significantly worse)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import xmlschema
from tests.ci.conftest import ScenarioRuns, valid_junit
from tests.support.cli import run_cli


def test_a_regression_fails_the_gate_with_a_failed_test_per_case(
        scenario_runs: ScenarioRuns, junit_schema: xmlschema.XMLSchema,
        tmp_path: Path) -> None:
    step = tmp_path / "step.md"
    done = run_cli("compare", "good", "worse", "--results", scenario_runs.results,
                   "--fail-on-regression", "--junit", tmp_path / "cmp.xml",
                   "--summary-md", tmp_path / "cmp.md", "--json", tmp_path / "cmp.json",
                   cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": str(step)})
    assert done.returncode == 1, done.stdout + done.stderr
    data = json.loads((tmp_path / "cmp.json").read_text(encoding="utf-8"))
    assert data["verdict"]["regression"] is True
    worse = [c for c in data["cases"] if c["change"] in ("regressed", "newly_failed")]
    assert worse

    root = valid_junit(junit_schema, tmp_path / "cmp.xml")
    assert int(root.get("failures", "0")) == len(worse) + 1  # and the verdict
    verdict = root.find("./testsuite[@name='verdict']/testcase")
    assert verdict is not None and verdict.get("name") == "regression verdict"
    failure = verdict.find("failure")
    assert failure is not None and failure.get("message", "").startswith("REGRESSION")
    props = {p.get("name"): p.get("value") for p in
             root.iterfind("./testsuite[@name='verdict']/properties/property")}
    score = data["overall"]["metrics"]["score"]
    assert float(props["score.delta"]) == pytest.approx(score["delta"], rel=1e-3)
    assert float(props["score.ci_low"]) == pytest.approx(score["low"], rel=1e-3)
    assert score["delta"] < 0 and props["verdict"] == "regression"
    failed = {c.get("name"): c.find("failure") for c in
              root.iterfind("./testsuite[@name='project_management']/testcase")}
    assert {n for n, f in failed.items() if f is not None} == {c["case"] for c in worse}
    case = worse[0]
    message = failed[case["case"]].get("message", "")  # type: ignore[union-attr]
    assert message.startswith(f"{case['change'].replace('_', ' ')}: A ")
    for change in case["criteria_changes"]:
        for name in change["newly_missing"]:
            assert f"- {change['criterion']}/{name} (now missing)" in message

    summary = (tmp_path / "cmp.md").read_text(encoding="utf-8")
    assert step.read_text(encoding="utf-8") == summary + "\n"
    assert "**regression**" in summary
    ci = f"[{score['low']:+.2f}, {score['high']:+.2f}]"
    assert ci in summary  # the score's interval
    assert f"Cases that got worse** ({len(worse)}" in summary
    assert "compare\\_worse.html" in summary


def test_no_change_passes_the_gate(scenario_runs: ScenarioRuns,
                                   junit_schema: xmlschema.XMLSchema, tmp_path: Path) -> None:
    done = run_cli("compare", "good", "good", "--results", scenario_runs.results,
                   "--fail-on-regression", "--junit", tmp_path / "same.xml",
                   "--summary-md", tmp_path / "same.md", cwd=tmp_path,
                   env={"GITHUB_STEP_SUMMARY": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    root = valid_junit(junit_schema, tmp_path / "same.xml")
    assert root.get("failures") == "0" and root.get("errors") == "0"
    assert "no significant change" in (tmp_path / "same.md").read_text(encoding="utf-8")


def test_compare_refuses_bad_output_paths(scenario_runs: ScenarioRuns, tmp_path: Path) -> None:
    for options, expected in ((["--junit", str(tmp_path)], "is a folder"),
                              (["--json", str(tmp_path / "x"), "--summary-md",
                                str(tmp_path / "x")], "name the same file")):
        done = run_cli("compare", "good", "worse", "--results", scenario_runs.results,
                       *options, cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": ""})
        assert done.returncode == 2 and expected in done.stderr, done.stderr
        assert "Traceback" not in done.stderr
