"""``eunomia run --junit/--jsonl/--summary-md`` as a user runs it: the files agree with each
other and with the scoring, the JUnit file is valid against the JUnit schema, and bad paths
are refused before anything runs."""

from __future__ import annotations

import socket
from pathlib import Path

import xmlschema
from tests.ci.conftest import EXAMPLE_CASES, EXAMPLES, ScenarioRuns, read_jsonl, valid_junit
from tests.support.cli import run_cli

from eunomia.exports import RECORD_FIELDS


def test_junit_has_a_failed_test_per_case_not_fully_correct(
        scenario_runs: ScenarioRuns, junit_schema: xmlschema.XMLSchema) -> None:
    root = valid_junit(junit_schema, scenario_runs.out / "junit.xml")
    records = read_jsonl(scenario_runs.out / "cases.jsonl")
    assert len(records) == EXAMPLE_CASES
    cases = root.findall("./testsuite/testcase")
    assert int(root.get("tests", "0")) == len(cases) == EXAMPLE_CASES
    failing = {r["case"]: r for r in records if not r["passed"]}
    # the example module is a rule-based grader: it gets some cases wrong
    assert failing, "the example module was expected to miss some cases"
    assert int(root.get("failures", "0")) == len(failing)
    assert int(root.get("errors", "0")) == 0
    for case in cases:
        failure = case.find("failure")
        assert (failure is not None) == (case.get("name") in failing)
        out = case.findtext("system-out") or ""
        assert out.startswith("outcome: ") and "\nscore: " in out and "\nlatency_s: " in out
        assert float(case.get("time", "-1")) >= 0
        if failure is not None:
            record = failing[case.get("name", "")]
            message = failure.get("message", "")
            assert message.startswith("not fully correct: ")
            for name in record["missing"]:
                assert f"\n- {name}" in message
            for name in record["extra"]:
                assert f"\n+ {name}" in message
    props = {p.get("name"): p.get("value") for p in root.iterfind("./testsuite/properties/")}
    assert props["run"] == "good" and props["target"] == "example"
    assert props["passed"] == str(EXAMPLE_CASES - len(failing))


def test_jsonl_fields_are_the_documented_ones_and_follow_the_scoring(
        scenario_runs: ScenarioRuns) -> None:
    records = read_jsonl(scenario_runs.out / "cases.jsonl")
    documented = (Path(__file__).parents[2] / "docs" / "ci.md").read_text(encoding="utf-8")
    for field in RECORD_FIELDS:
        assert f"`{field}`" in documented, f"{field} is not documented in docs/ci.md"
    for r in records:
        assert tuple(r) == RECORD_FIELDS
        assert r["kind"] == "scenarios" and r["run"] == "good" and r["repeat"] == 0
        assert r["passed"] == r["fully_correct"] == (r["outcome"] == "passed")
        assert r["fully_correct"] == (not r["missing"] and not r["extra"])
        assert set(r["expected"]) - set(r["missing"]) <= set(r["returned"])
        assert r["score_scale"] == "%" and 0 <= r["score"] <= 100
        assert (r["reason"] is None) == r["passed"]


def test_summary_is_written_and_appended_to_the_step_summary(
        scenario_runs: ScenarioRuns) -> None:
    summary = (scenario_runs.out / "summary.md").read_text(encoding="utf-8")
    step = (scenario_runs.out / "step.md").read_text(encoding="utf-8")
    assert step == "earlier step\n" + summary + "\n"  # appended, never overwritten
    records = read_jsonl(scenario_runs.out / "cases.jsonl")
    failing = [r["case"] for r in records if not r["passed"]]
    assert f"{len(failing)} case(s) did not pass" in summary
    assert "baseline:default" in summary  # the scenario's comparison with the baseline
    assert "Score % (95% CI)" in summary
    for case in failing:
        assert case.replace("_", "\\_") in summary  # the worst cases, escaped
    assert "report.html" in summary
    assert f"Written: {scenario_runs.out / 'junit.xml'}" in scenario_runs.stdout


def test_repeats_and_several_targets_are_named_apart(
        tmp_path: Path, junit_schema: xmlschema.XMLSchema) -> None:
    junit = tmp_path / "junit.xml"
    done = run_cli("run", EXAMPLES, "--target", "example", "--target", "baseline:constant",
                   "--repeat", "2", "--run-name", "rep", "--results", tmp_path / "results",
                   "--junit", junit, cwd=tmp_path, env={"GITHUB_STEP_SUMMARY": ""})
    assert done.returncode == 0, done.stdout + done.stderr
    root = valid_junit(junit_schema, junit)
    suites = [s.get("name") for s in root.findall("testsuite")]
    assert suites == ["project_management [baseline:constant]", "project_management [example]"]
    names = [c.get("name") for c in root.iterfind("./testsuite/testcase")]
    assert len(names) == 2 * 2 * EXAMPLE_CASES
    assert sum(n.endswith(" [repeat 1]") for n in names) == 2 * EXAMPLE_CASES
    for suite in root.findall("testsuite"):  # each case and repeat once per target
        assert len({c.get("name") for c in suite.findall("testcase")}) == 2 * EXAMPLE_CASES


def test_bad_output_paths_are_refused_before_anything_runs(tmp_path: Path) -> None:
    results = tmp_path / "results"
    a_file = tmp_path / "file.txt"
    a_file.write_text("x", encoding="utf-8")
    cases = [
        (["--junit", str(tmp_path)], {}, "is a folder"),
        (["--summary-md", str(a_file / "summary.md")], {}, "is not a folder"),
        (["--junit", str(tmp_path / "x.xml"), "--jsonl", str(tmp_path / "x.xml")], {},
         "name the same file"),
        (["--jsonl", "-"], {}, "for 'eunomia export' only"),
        ([], {"GITHUB_STEP_SUMMARY": str(tmp_path)}, "$GITHUB_STEP_SUMMARY"),
    ]
    for options, env, expected in cases:
        done = run_cli("run", EXAMPLES, "--target", "example", "--run-name", "refused",
                       "--results", results, *options, cwd=tmp_path, env=env)
        assert done.returncode == 2, (options, done.stdout, done.stderr)
        assert expected in done.stderr, (options, done.stderr)
        assert "Traceback" not in done.stderr
        assert not (results / "refused").exists()  # nothing ran


def test_cases_that_failed_are_errors_with_their_reason(
        tmp_path: Path, junit_schema: xmlschema.XMLSchema) -> None:
    with socket.socket() as sock:  # a port on 127.0.0.1 that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = run_cli("run", EXAMPLES, "--target", f"athena:http://127.0.0.1:{port}/module",
                   "--retries", "0", "--run-name", "down", "--results", tmp_path / "results",
                   "--junit", tmp_path / "j.xml", "--jsonl", tmp_path / "c.jsonl",
                   "--summary-md", tmp_path / "s.md", cwd=tmp_path,
                   env={"GITHUB_STEP_SUMMARY": "", "ATHENA_SECRET": "x"})
    assert done.returncode == 1, done.stdout + done.stderr  # cases failed: the usual code
    root = valid_junit(junit_schema, tmp_path / "j.xml")
    assert root.get("errors") == str(EXAMPLE_CASES) and root.get("failures") == "0"
    for case in root.iterfind("./testsuite/testcase"):
        error = case.find("error")
        assert error is not None and "cannot connect" in error.get("message", "")
    records = read_jsonl(tmp_path / "c.jsonl")
    assert {(r["outcome"], r["status"], r["score"]) for r in records} == \
        {("error", "failed", None)}
    summary = (tmp_path / "s.md").read_text(encoding="utf-8")
    assert f"0/{EXAMPLE_CASES} passed, {EXAMPLE_CASES} failed" in summary
