"""Fixtures of the CI-output tests: the JUnit schema, and scenario runs made once per module
with the command line (the rule-based example module and ``baseline:default``: no key)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from tests.support.cli import run_cli

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXAMPLES = ROOT / "examples" / "scenarios"
EXAMPLE_CASES = len(list((EXAMPLES / "project_management" / "test_cases").glob("*.json")))


@pytest.fixture(scope="session")
def junit_schema() -> xmlschema.XMLSchema:
    """``junit-10.xsd`` of the Jenkins xUnit plugin, unchanged (see the file's header)."""
    return xmlschema.XMLSchema(HERE / "junit-10.xsd")


def valid_junit(schema: xmlschema.XMLSchema, path: Path) -> ET.Element:
    """The root of a JUnit file after checking it against the schema (a failure names the
    reason)."""
    schema.validate(str(path))
    return ET.parse(path).getroot()


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@dataclass(frozen=True)
class ScenarioRuns:
    results: Path
    out: Path
    """The CI files of run ``good``: junit.xml, cases.jsonl, summary.md, step.md."""
    stdout: str


@pytest.fixture(scope="module")
def scenario_runs(tmp_path_factory: pytest.TempPathFactory) -> ScenarioRuns:
    """``good``: the example module with every CI output (and a step summary that already
    holds an earlier step's text); ``worse``: ``baseline:default`` on the same cases."""
    base = tmp_path_factory.mktemp("ci_runs")
    results, out = base / "results", base / "out"
    out.mkdir()
    (out / "step.md").write_text("earlier step\n", encoding="utf-8")
    good = run_cli("run", EXAMPLES, "--target", "example", "--run-name", "good",
                   "--results", results, "--junit", out / "junit.xml",
                   "--jsonl", out / "cases.jsonl", "--summary-md", out / "summary.md",
                   cwd=base, env={"GITHUB_STEP_SUMMARY": str(out / "step.md")})
    assert good.returncode == 0, good.stdout + good.stderr
    worse = run_cli("run", EXAMPLES, "--target", "baseline:default", "--run-name", "worse",
                    "--results", results, cwd=base, env={"GITHUB_STEP_SUMMARY": ""})
    assert worse.returncode == 0, worse.stdout + worse.stderr
    return ScenarioRuns(results, out, good.stdout)
