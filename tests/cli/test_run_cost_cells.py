"""A scenario case's cost gives one answer in every output: the terminal, the tables
(``test_case_results.csv``, ``scenario_summary.csv``), the JSON (``scenario_results.json``, the
case files), JSON Lines and the store — the metered cost when the run metered it (a case whose
request made no LLM call: a known 0), unknown (never 0) and said why when nothing measured it:
an unmetered system that reports no usage, or feedback recorded elsewhere and replayed."""

from __future__ import annotations

import csv
import json
import shutil
import sqlite3
from pathlib import Path

import pytest
import yaml
from tests.cli.test_run_metered import EXAMPLE, System, _run, folder, relay, system
from tests.support.cli import run_cli

__all__ = ["folder", "relay", "system"]  # fixtures, shared with test_run_metered

ROOT = Path(__file__).resolve().parents[2]
CAR_RENTAL = ROOT / "examples" / "athena" / "tutor_graded" / "car_rental_14676"
CASES = ("aggregation_instead_of_composition", "association_and_uppercase_attributes")
"""Cases 1 and 2 of the example scenario (its first two submission ids)."""


def _outputs(tmp_path: Path, run: str, scenario: str) -> dict[str, dict[str, object]]:
    """Each case's cost as every output says it: CSV cell, case file, JSON Lines, store."""
    base = tmp_path / "results" / run / scenario
    with (base / "tables" / "test_case_results.csv").open(encoding="utf-8") as f:
        rows = {r["Test Case"]: r["Cost"] for r in csv.DictReader(f)}
    lines = [json.loads(line) for line in (tmp_path / f"{run}.jsonl").read_text().splitlines()]
    db = sqlite3.connect(tmp_path / "results" / "eunomia.db")
    stored = dict(db.execute("SELECT case_name, cost FROM cases JOIN runs ON runs.id = run_id "
                             "WHERE runs.name = ?", (run,)).fetchall())
    db.close()
    out: dict[str, dict[str, object]] = {}
    for case, cell in rows.items():
        cost = json.loads((base / "test_cases" / f"{case}.json").read_text())["cost"]
        [line] = [x for x in lines if x["case"] == case]
        out[case] = {"csv": None if cell == "" else float(cell), "file": cost["total_cost"],
                     "jsonl": line["cost"], "store": stored[case],
                     "why": cost.get("unknown_because")}
    return out


def _summary(tmp_path: Path, run: str, scenario: str) -> tuple[str, object, str]:
    base = tmp_path / "results" / run / scenario
    with (base / "tables" / "scenario_summary.csv").open(encoding="utf-8") as f:
        metrics = dict(csv.reader(f))
    data = json.loads((base / "scenario_results.json").read_text())
    return metrics["Total Cost"], data["total_cost"], metrics["Cases With Unknown Cost"]


def test_metered_costs_one_answer_everywhere_a_case_without_calls_costs_0(
        system: System, relay: str, folder: Path, tmp_path: Path) -> None:
    system.calls = {1: 0, 2: 1}
    code, out = _run(tmp_path, folder, "--target", f"athena:{system.url}/feedback_suggestions",
                     "--llm-usage", relay, "--case", CASES[0], "--case", CASES[1],
                     "--concurrency", "1", "--run-name", "m",
                     "--jsonl", tmp_path / "m.jsonl")
    assert code == 0, out
    got = _outputs(tmp_path, "m", EXAMPLE.name)
    cost = (198 * 1.0 + 2 * 0.5 + 3 * 2.0) / 1e6  # case 2: one call, 200 input (2 cached)
    assert got[CASES[0]] == {"csv": 0.0, "file": 0.0, "jsonl": 0.0, "store": 0.0,
                                       "why": None}
    missing = got[CASES[1]]
    assert missing["why"] is None
    for where in ("csv", "file", "jsonl", "store"):
        assert missing[where] == pytest.approx(cost, rel=1e-4), where
    total_csv, total_json, unknown = _summary(tmp_path, "m", EXAMPLE.name)
    assert (float(total_csv), unknown) == (pytest.approx(cost, rel=1e-4), "0")
    assert total_json == pytest.approx(cost)
    assert "unknown" not in out.split("Total Cost")[1].splitlines()[0]


def test_unmetered_unknown_cost_is_unknown_everywhere_and_said_why(
        system: System, folder: Path, tmp_path: Path) -> None:
    system.calls = {1: 1, 2: 1}  # it calls its LLM, but reports no usage: nobody measured
    code, out = _run(tmp_path, folder, "--target", f"athena:{system.url}/feedback_suggestions",
                     "--case", CASES[0], "--case", CASES[1], "--run-name", "u",
                     "--jsonl", tmp_path / "u.jsonl")
    assert code == 0, out
    for case in CASES:
        got = _outputs(tmp_path, "u", EXAMPLE.name)[case]
        assert [got[w] for w in ("csv", "file", "jsonl", "store")] == [None] * 4
        assert "not metered (--llm-usage)" in str(got["why"])
    assert _summary(tmp_path, "u", EXAMPLE.name) == ("", None, "2")
    assert "unknown (2 case(s))" in out.split("Total Cost")[1].splitlines()[0]
    assert "meter its LLM traffic through `eunomia serve-model`" in " ".join(out.split())


@pytest.mark.parametrize("target", ["recorded", "recorded:tutor"])
def test_recorded_feedback_costs_unknown_and_says_so(target: str, tmp_path: Path) -> None:
    scenario = tmp_path / CAR_RENTAL.name
    shutil.copytree(CAR_RENTAL, scenario)
    if target == "recorded:tutor":  # the recorded items as the tutor's own feedback
        manifest = yaml.safe_load((scenario / "manifest.yml").read_text(encoding="utf-8"))
        for case in manifest["cases"].values():
            case["tutor"]["feedback"] = case.pop("recorded")["feedback"]
        (scenario / "manifest.yml").write_text(yaml.safe_dump(manifest), encoding="utf-8")
    proc = run_cli("run", scenario, "--target", target, "--max-cases", "3", "--run-name",
                   "r", "--results", tmp_path / "results", "--jsonl", tmp_path / "r.jsonl",
                   cwd=tmp_path, env={"COLUMNS": "200"}, timeout=120)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    got = _outputs(tmp_path, "r", CAR_RENTAL.name)
    assert len(got) == 3
    for case in got.values():
        assert [case[w] for w in ("csv", "file", "jsonl", "store")] == [None] * 4
        assert "recorded elsewhere, replayed" in str(case["why"])
    assert _summary(tmp_path, "r", CAR_RENTAL.name) == ("", None, "3")
    flat = " ".join(out.split())
    assert "unknown (3 case(s))" in flat
    assert "3 of 3 scored case(s) replay feedback recorded elsewhere" in flat
    assert "meter its LLM traffic" not in flat  # no advice that cannot apply
    data = json.loads((tmp_path / "results" / "r" / CAR_RENTAL.name /
                       "scenario_results.json").read_text())
    assert any("replay feedback recorded elsewhere" in w for w in data["warnings"])
