"""The example GitHub Actions workflow
(``examples/ci/workflow/.github/workflows/eunomia.yml``) runs as written.

Its shell steps are run here in order, as a runner would (``bash -eo pipefail``, the
workflow's and the step's environment, ``$RUNNER_TEMP`` and ``$GITHUB_STEP_SUMMARY`` set,
later steps skipped after a failure unless their ``if:`` says ``!cancelled()``), on a git
repository made of the bundled example scenarios: a pull request that changes nothing the
example module grades passes the gate; one whose submissions it grades worse fails it, and
the reports are written all the same. The steps that use actions (checkout, set-up, upload,
test report) and the installation are a runner's; they are checked for what they name.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import xmlschema
import yaml
from tests.ci.conftest import ROOT, valid_junit
from tests.support.cli import cli_env

WORKFLOW = ROOT / "examples" / "ci" / "workflow" / ".github" / "workflows" / "eunomia.yml"
"""Laid out as in a repository (and deep enough that ``eunomia validate examples``, which
looks three folders down for suites, does not take it for a task suite)."""
WORSE_CASES = ("missing_task_class", "wrong_multiplicity", "extra_class", "missing_assignment",
               "lowercase_class_names", "missing_attributes", "composition_reversed")
"""Submissions replaced by the perfect solution in the "worse" pull request: the example
module then grades them as perfect, against their expected mistakes."""
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@dataclass
class Ran:
    codes: dict[str, int | None]
    """Each step's exit code; None when it was skipped after a failure."""
    repo: Path
    summary: str
    output: str


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=ci", "-c", "user.email=ci@example.org",
                           *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _repository(tmp_path: Path, worse: bool) -> tuple[Path, str]:
    """A repository with the example scenarios committed (the base), then a pull request's
    commit; the base commit's id."""
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "examples" / "scenarios", repo / "examples" / "scenarios")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    base = _git(repo, "rev-parse", "HEAD")
    cases = repo / "examples" / "scenarios" / "project_management" / "test_cases"
    if worse:
        for name in WORSE_CASES:
            shutil.copyfile(cases / "perfect_solution.json", cases / f"{name}.json")
    else:
        (repo / "NOTES.md").write_text("a change the evaluation does not see\n", "utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "pull request")
    return repo, base


def _value(text: str, context: dict[str, str]) -> str:
    def one(match: re.Match[str]) -> str:
        expression = match.group(1)
        assert expression in context, f"the test does not know {expression!r}"
        return context[expression]

    return _EXPRESSION.sub(one, text)


def _run_workflow(tmp_path: Path, worse: bool) -> Ran:
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    repo, base = _repository(tmp_path, worse)
    runner = tmp_path / "runner"
    runner.mkdir()
    summary = runner / "step_summary.md"
    summary.touch()
    context = {"github.event.pull_request.base.sha": base}
    env = cli_env({**{k: str(v) for k, v in data["env"].items()},
                   "RUNNER_TEMP": str(runner), "GITHUB_STEP_SUMMARY": str(summary),
                   "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"})
    context |= {f"env.{k}": env[k] for k in data["env"]}
    codes: dict[str, int | None] = {}
    output: list[str] = []
    failed = False
    for step in data["jobs"]["evaluate"]["steps"]:
        if "uses" in step or step.get("id") == "install":
            continue
        name = step["name"]
        if failed and "!cancelled()" not in step.get("if", ""):
            codes[name] = None
            continue
        step_env = {**env, **{k: _value(str(v), context)
                              for k, v in step.get("env", {}).items()}}
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c",
                               step["run"]], cwd=repo, env=step_env, capture_output=True,
                              text=True, timeout=600, check=False)
        codes[name] = done.returncode
        output.append(f"== {name}: {done.returncode}\n{done.stdout}\n{done.stderr}")
        failed = failed or done.returncode != 0
    return Ran(codes, repo, summary.read_text(encoding="utf-8"), "\n".join(output))


def _actions(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["uses"].split("@")[0]: s for s in data["jobs"]["evaluate"]["steps"]
            if "uses" in s}


@needs_git
def test_an_unchanged_pull_request_passes_the_gate(
        tmp_path: Path, junit_schema: xmlschema.XMLSchema) -> None:
    ran = _run_workflow(tmp_path, worse=False)
    assert set(ran.codes.values()) == {0}, ran.output
    results = ran.repo / "results"
    valid_junit(junit_schema, results / "candidate-junit.xml")
    gate = valid_junit(junit_schema, results / "compare-junit.xml")
    assert gate.get("failures") == "0"
    assert (results / "candidate" / "report.html").is_file()
    assert (results / "baseline" / "compare_candidate.html").is_file()
    assert "## Eunomia: candidate" in ran.summary
    assert "## Eunomia compare: candidate against baseline" in ran.summary
    assert "## Eunomia: baseline" not in ran.summary  # its step leaves the summary alone
    # what the upload and test-report actions are given exists
    data: dict[str, Any] = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    actions = _actions(data)
    context = {"env.RESULTS": data["env"]["RESULTS"]}
    reports = _value(actions["mikepenz/action-junit-report"]["with"]["report_paths"], context)
    assert sorted(Path(p).name for p in glob.glob(str(ran.repo / reports))) == \
        ["candidate-junit.xml", "compare-junit.xml"]
    upload = _value(actions["actions/upload-artifact"]["with"]["path"], context).split()
    assert (ran.repo / upload[0]).is_dir() and upload[1].startswith("!")
    assert actions["actions/checkout"]["with"]["fetch-depth"] == 0


@needs_git
def test_a_worse_pull_request_fails_the_gate_and_is_still_reported(
        tmp_path: Path, junit_schema: xmlschema.XMLSchema) -> None:
    ran = _run_workflow(tmp_path, worse=True)
    assert ran.codes["Gate on regressions"] == 1, ran.output
    assert ran.codes["HTML reports"] == 0, ran.output  # runs after the failed gate
    assert ran.codes["Evaluate this commit"] == 0
    results = ran.repo / "results"
    gate = valid_junit(junit_schema, results / "compare-junit.xml")
    failed = {c.get("name") for c in gate.iterfind("./testsuite/testcase")
              if c.find("failure") is not None}
    assert "regression verdict" in failed
    assert failed & set(WORSE_CASES)
    assert "❌ **regression**" in ran.summary
    assert (results / "baseline" / "compare_candidate.html").is_file()
