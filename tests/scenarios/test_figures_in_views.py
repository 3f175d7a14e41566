"""A scenario run's figures say what they can tell, in every view, as a user runs them:
the score's interval ("too few cases to tell" below 10 cases; "repeats treated as clusters"
with --repeat), the MDE of a future comparison, detection by element type, kind of change
and operator (``element_types.csv``), localization (``localization.csv``), generated cases
marked with their mutations; and an A/A comparison of a non-deterministic system is no
regression."""

from __future__ import annotations

import csv
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest
from tests.support.cli import run_cli
from tests.support.scripted_server import RecordedRequest, Reply, ScriptedServer

from eunomia.apollon import parse_diagram
from eunomia.athena import AthenaExercise
from eunomia.example_server.grading import grade

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"
Z = 1.959964 + 0.841621


def _csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _metrics(folder: Path) -> dict[str, str]:
    return {r["Metric"]: r["Value"] for r in _csv(folder / "tables" / "scenario_summary.csv")}


def _run(where: Path, *args: str | Path) -> str:
    done = run_cli("run", *args, "--results", where / "results", cwd=where, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return " ".join(done.stdout.split())


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """30 cases made by ``eunomia mutate``, run twice each on the example module."""
    where = tmp_path_factory.mktemp("figures")
    done = run_cli("mutate", EXAMPLE, "--count", "30", "--output", where / "mut", "--seed",
                   "3", cwd=where, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    text = _run(where, where / "mut", "--target", "example", "--run-name", "gen",
                "--repeat", "2")
    (where / "gen.txt").write_text(text, encoding="utf-8")
    return where


def test_two_cases_say_too_few_in_every_view(tmp_path: Path) -> None:
    text = _run(tmp_path, EXAMPLE, "--target", "example", "--run-name", "two", "--case",
                "missing_a*", "--summary-md", tmp_path / "two.md")
    few = "too few cases to tell (2 cases; at least 10 are needed)"
    assert "Average Test Case Score 95% CI" in text and few in text  # the terminal's table
    assert "too few cases to tell whether it is better than baseline:default" in text
    markdown = (tmp_path / "two.md").read_text(encoding="utf-8")
    assert "| 100.0 (too few cases to tell, n=2) |" in markdown
    assert f"- Average Test Case Score 95% CI: {few}" in markdown
    folder = tmp_path / "results" / "two" / "project_management"
    metrics = _metrics(folder)
    assert metrics["Average Test Case Score 95% CI"] == few
    assert metrics["Minimum Detectable Effect (future comparison)"] == few
    data = json.loads((folder / "scenario_results.json").read_text(encoding="utf-8"))
    assert data["score_interval"]["too_few"] is True and data["score_interval"]["n"] == 2
    assert data["power"]["too_few"] is True and data["power"]["mde"] is None
    rows = _csv(folder / "tables" / "element_types.csv")
    assert rows and all(r["CI Low (%)"] == "" and r["Interval"].startswith("too few")
                        for r in rows)
    done = run_cli("report", "two", "--results", tmp_path / "results", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    page = " ".join((tmp_path / "results" / "two" / "report.html").read_text().split())
    assert "Mean case score 95% CI" in page and few in page
    # the baseline card says the verdict (no "NOT better"), its sentence under the cards
    assert ('<div class="k">Against baseline:default</div><div class="v">too few cases to tell'
            in page) and "NOT better" not in page


def test_a_generated_scenario_shows_its_mutations_and_what_it_could_detect(
        generated: Path) -> None:
    folder = generated / "results" / "gen" / "mut"
    text = (generated / "gen.txt").read_text(encoding="utf-8")
    metrics = _metrics(folder)
    interval = metrics["Average Test Case Score 95% CI"]
    assert interval.endswith("(95% CI over 30 cases; repeats treated as clusters)")
    data = json.loads((folder / "scenario_results.json").read_text(encoding="utf-8"))
    power = data["power"]
    assert power["n"] == 30 and not power["too_few"]  # cases, not 60 repeats
    assert power["mde"] == pytest.approx(Z * power["sd"] / math.sqrt(30), rel=1e-4)
    assert metrics["Minimum Detectable Effect (future comparison)"].startswith(
        f"{power['mde']:.1f} points at 80% power, alpha 0.05, for a future comparison of 30")
    assert data["score_interval"]["clustered_repeats"] is True
    # every case row is marked generated and names its mutations
    cases = _csv(folder / "tables" / "test_case_results.csv")
    assert len(cases) == 60 and {r["Generated"] for r in cases} == {"Yes"}
    manifest = (generated / "mut" / "manifest.yml").read_text(encoding="utf-8")
    first = cases[0]
    op = first["Mutations"].split(":", 1)[0]
    assert op and f"op: {op}" in manifest
    columns = list(cases[0])  # Generated and Mutations before Repeat, the points after it
    assert columns.index("Generated") + 2 == columns.index("Repeat") == \
        columns.index("Awarded Points") - 1
    # detection by element type, change and operator, each case once
    rows = _csv(folder / "tables" / "element_types.csv")
    groupings = {r["Grouping"] for r in rows}
    assert groupings == {"element_type", "change", "operator"}
    operators = {r["Key"]: r for r in rows if r["Grouping"] == "operator"}
    assert sum(int(r["Cases"]) for r in operators.values()) >= 30
    assert all(r["Generated Cases"] == r["Cases"] for r in rows)
    for r in rows:
        rate = float(r["Detection Rate (%)"])
        assert float(r["Miss Rate (%)"]) == pytest.approx(100 - rate, abs=0.11)
        if int(r["Cases"]) >= 10:
            assert float(r["CI Low (%)"]) <= rate <= float(r["CI High (%)"])
        else:
            assert r["CI Low (%)"] == "" and "too few cases to tell" in r["Interval"]
    located = _csv(folder / "tables" / "localization.csv")
    assert located and all(int(r["Naming A Changed Element"]) <= int(r["Naming An Element"])
                           <= int(r["Items On Changed Instructions"]) for r in located)
    assert "Where it struggles: element types and changes" in text
    assert data["by_change"] and data["localization"]
    # the same files from the store
    done = run_cli("export", "gen", "--results", generated / "results", "--output",
                   generated / "again", cwd=generated, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    again = generated / "again" / "gen" / "mut" / "tables"
    for name in ("element_types.csv", "localization.csv"):
        assert (again / name).read_text() == (folder / "tables" / name).read_text()
    # and in the HTML report
    done = run_cli("report", "gen", "--results", generated / "results", cwd=generated)
    assert done.returncode == 0, done.stdout + done.stderr
    page = (generated / "results" / "gen" / "report.html").read_text(encoding="utf-8")
    assert "Detection by element type, kind of change and operator" in page
    assert "Localization: does feedback point at the changed elements?" in page
    assert "Generated cases (30)" in page and "repeats treated as clusters" in page


def _noisy(flip: float) -> Any:
    """An Athena module that grades like the example module, then moves each item to
    another instruction of its criterion with probability ``flip``: a new draw for each
    request of a case (its n-th request draws from seed (case, n)), so two runs of the
    same unchanged system differ, the same way on every test run."""
    seen: dict[str, int] = {}

    def reply(rec: RecordedRequest) -> Reply:
        body = rec.json
        exercise = AthenaExercise.model_validate(body["exercise"])
        submission = body["submission"]
        model = submission["model"]
        attempt = seen.get(model, 0)
        seen[model] = attempt + 1
        rng = random.Random(f"{len(model)}-{sum(map(ord, model))}-{attempt}")
        siblings = {i.id: [o.id for o in c.structured_grading_instructions if o.id != i.id]
                    for c in exercise.grading_criteria for i in c.structured_grading_instructions}
        items = grade(exercise, int(submission["id"]), parse_diagram(json.loads(model)))
        for item in items:
            moved_to = siblings.get(item.structured_grading_instruction_id or -1, [])
            if rng.random() < flip and moved_to:
                item.structured_grading_instruction_id = rng.choice(moved_to)
        return Reply(json={"data": [i.wire() for i in items], "meta": {}})

    return reply


def test_an_unchanged_noisy_system_is_not_a_regression(generated: Path) -> None:
    server = ScriptedServer()
    server.default = _noisy(0.3)
    with server.in_thread():
        for name in ("aa_a", "aa_b"):
            _run(generated, generated / "mut", "--server-url", server.url, "--run-name",
                 name, "--no-cache")
    a = _csv(generated / "results" / "aa_a" / "mut" / "tables" / "test_case_results.csv")
    b = _csv(generated / "results" / "aa_b" / "mut" / "tables" / "test_case_results.csv")
    flips = sum(x["Test Case Detected Correctly"] != y["Test Case Detected Correctly"]
                for x, y in zip(a, b, strict=True))
    assert flips >= 3  # the system really is non-deterministic
    out = generated / "aa.json"
    done = run_cli("compare", "aa_a", "aa_b", "--results", generated / "results",
                   "--fail-on-regression", "--json", out, cwd=generated, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["verdict"]["kind"] == "no_significant_change"
    assert data["overall"]["metrics"]["score"]["p_value"] >= 0.05
