"""``eunomia eval --junit/--jsonl/--summary-md/--pass-score`` and ``eunomia export --format``
of task runs and judge checks, against a fake OpenAI-compatible server on 127.0.0.1 whose
answers hold what XML and Markdown must escape."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
import xmlschema
from tests.ci.conftest import read_jsonl, valid_junit
from tests.support.cli import run_cli
from tests.tasks.fake_llm import FakeLLM

SUITE = """\
metadata:
  name: ci demo
test_cases:
  - case_id: good-one
    category: General Knowledge
    instruction: Say GOOD please.
    expected_response: GOOD
    difficulty_level: easy
    checks:
      - regex: "GOOD"
  - case_id: weak-one
    category: General Knowledge
    instruction: Say WEAK please.
    expected_response: WEAK
    difficulty_level: hard
    checks:
      - regex: "WEAK"
  - case_id: unjudged-one
    category: General Knowledge
    instruction: Say UNJUDGED please.
    expected_response: UNJUDGED
    difficulty_level: medium
"""
NASTY = "GOOD \x1b[31m<script>alert(1)</script> & ]]> | *bold* \x00 \x7f end"
"""The candidate's answer: an ANSI escape, markup, a CDATA end, Markdown, NUL and DEL."""
MODELS = ("--model", "openai:fake-candidate", "--judge", "openai:fake-judge", "--retries", "0")


@pytest.fixture
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM()
    server.candidate("Say GOOD", NASTY)
    server.candidate("Say WEAK", "meh")
    server.judge("meh", json.dumps({"score": 1, "feedback": "Weak <b>answer</b> | wrong"}))
    server.judge("UNJUDGED", "this is not a verdict")
    with server.in_thread():
        yield server


def _env(fake: FakeLLM, **extra: str) -> dict[str, str]:
    return {"OPENAI_BASE_URL": fake.url, "OPENAI_API_KEY": "", "GITHUB_STEP_SUMMARY": "",
            **extra}


def _eval(fake: FakeLLM, folder: Path, *options: str | Path) -> tuple[int, str, str]:
    suite = folder / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    done = run_cli("eval", suite, *MODELS, "--results", folder / "results", "--run-name", "ev",
                   *options, cwd=folder, env=_env(fake))
    return done.returncode, done.stdout, done.stderr


def test_eval_outputs_pass_by_score_and_escape_what_the_model_said(
        fake: FakeLLM, tmp_path: Path, junit_schema: xmlschema.XMLSchema) -> None:
    code, out, err = _eval(fake, tmp_path, "--junit", tmp_path / "j.xml",
                           "--jsonl", tmp_path / "c.jsonl", "--summary-md", tmp_path / "s.md")
    assert code == 0, out + err
    records = {r["case"]: r for r in read_jsonl(tmp_path / "c.jsonl")}
    assert {c: r["outcome"] for c, r in records.items()} == {
        "good-one": "passed",       # the judge's default verdict: 4 >= 3
        "weak-one": "failed",       # 1 < 3, and its check failed
        "unjudged-one": "skipped",  # the judge's answer was not a verdict
    }
    assert records["good-one"]["answer"] == NASTY  # JSON Lines keep the text as it was
    assert records["weak-one"]["reason"] == "score 1.00 is below the pass score 3"
    assert records["weak-one"]["failed_checks"] and records["weak-one"]["pass_score"] == 3
    assert records["good-one"]["category"] == "General Knowledge"

    root = valid_junit(junit_schema, tmp_path / "j.xml")
    assert (root.get("tests"), root.get("failures"), root.get("errors")) == ("3", "1", "0")
    suite = root.find("testsuite")
    assert suite is not None and suite.get("skipped") == "1"
    by_name = {c.get("name"): c for c in root.iterfind("./testsuite/testcase")}
    failure = by_name["weak-one"].find("failure")
    assert failure is not None
    assert failure.get("message", "").startswith("score 1.00 is below the pass score 3\n")
    assert by_name["unjudged-one"].find("skipped") is not None
    text = by_name["good-one"].findtext("system-out") or ""
    # XML 1.0 cannot hold ESC, NUL or DEL... (DEL it can): they are shown, the rest is kept
    assert "GOOD \\x1b[31m<script>alert(1)</script> & ]]> | *bold* \\x00 \x7f end" in text
    props = {p.get("name"): p.get("value") for p in root.iterfind(".//property")}
    assert props["pass_score"] == "3" and props["passed"] == "1"

    summary = (tmp_path / "s.md").read_text(encoding="utf-8")
    assert "Judge: openai:fake\\-judge" not in summary and "Judge: openai:fake-judge" in summary
    assert "1 case(s) did not pass" in summary and "1 not scored" in summary
    assert "<" not in summary.replace("&lt;", "")  # no raw HTML from anyone's text
    assert "weak\\-one" not in summary and "weak-one" in summary


def test_pass_score_changes_the_verdict_and_is_checked(
        fake: FakeLLM, tmp_path: Path, junit_schema: xmlschema.XMLSchema) -> None:
    code, out, err = _eval(fake, tmp_path, "--pass-score", "4.5", "--junit", tmp_path / "j.xml")
    assert code == 0, out + err
    root = valid_junit(junit_schema, tmp_path / "j.xml")
    assert root.get("failures") == "2"  # the 4 of good-one is below 4.5 now
    # the stored run exported again with another threshold
    done = run_cli("export", "ev", "--results", tmp_path / "results", "--format", "jsonl",
                   "--output", "-", "--pass-score", "1", cwd=tmp_path, env=_env(fake))
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["passed"] for r in lines if r["status"] == "scored"] == [True, True]
    asked = fake.total
    for bad, expected in (("nan", "must be a finite number"), ("inf", "finite"),
                          ("7", "between 0 and 5"), ("-1", "between 0 and 5")):
        code, out, err = _eval(fake, tmp_path, "--pass-score", bad)
        assert code == 2, (bad, out, err)
        assert "--pass-score" in err and expected in err and "Traceback" not in err
    assert fake.total == asked  # refused before asking any model


def test_export_formats_of_a_task_run(fake: FakeLLM, tmp_path: Path,
                                      junit_schema: xmlschema.XMLSchema) -> None:
    code, out, err = _eval(fake, tmp_path, "--jsonl", tmp_path / "c.jsonl")
    assert code == 0, out + err
    results = tmp_path / "results"
    for fmt, name in (("jsonl", "cases.jsonl"), ("junit", "junit.xml"), ("md", "summary.md")):
        done = run_cli("export", "ev", "--results", results, "--format", fmt, cwd=tmp_path,
                       env=_env(fake))
        assert done.returncode == 0, done.stderr
        assert (results / "ev" / name).is_file()
    assert (results / "ev" / "cases.jsonl").read_text(encoding="utf-8") == \
        (tmp_path / "c.jsonl").read_text(encoding="utf-8")
    valid_junit(junit_schema, results / "ev" / "junit.xml")
    assert "Judge score 0-5 (95% CI)" in (results / "ev" / "summary.md").read_text("utf-8")


def test_judge_check_runs_export_their_answers(fake: FakeLLM, tmp_path: Path,
                                               junit_schema: xmlschema.XMLSchema) -> None:
    suite = tmp_path / "suite.yaml"
    suite.write_text(SUITE, encoding="utf-8")
    done = run_cli("judge-check", suite, "--judge", "openai:fake-judge", "--results",
                   tmp_path / "results", "--run-name", "jc", cwd=tmp_path, env=_env(fake))
    assert done.returncode == 0, done.stdout + done.stderr
    out = tmp_path / "jc.xml"
    done = run_cli("export", "jc", "--results", tmp_path / "results", "--format", "junit",
                   "--output", out, cwd=tmp_path, env=_env(fake))
    assert done.returncode == 0, done.stderr
    root = valid_junit(junit_schema, out)
    names = [c.get("name", "") for c in root.iterfind("./testsuite/testcase")]
    assert "good-one#good" in names and "weak-one#refusal" in names
    done = run_cli("export", "jc", "--results", tmp_path / "results", "--format", "jsonl",
                   "--output", "-", cwd=tmp_path, env=_env(fake))
    records = [json.loads(line) for line in done.stdout.splitlines()]
    assert {r["answer_kind"] for r in records} >= {"good", "refusal", "padded"}
    assert all(r["kind"] == "judge_check" and r["target"] == "openai:fake-judge"
               for r in records)
    refusal = next(r for r in records if r["case"] == "good-one#refusal")
    assert refusal["answer"] == "I cannot help with that." and refusal["score"] == 4
    done = run_cli("export", "jc", "--results", tmp_path / "results", "--format", "junit",
                   "--pass-score", "3", cwd=tmp_path, env=_env(fake))
    assert done.returncode == 2 and "applies to judged task runs" in done.stderr
    ET.fromstring(out.read_text(encoding="utf-8"))  # still the file written before
