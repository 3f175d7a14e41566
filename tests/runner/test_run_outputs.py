"""A whole run of the example scenario against a scripted Athena module, checked file by file.

Every number below was computed by hand from the manifest (numeric SGI ids are
assigned in manifest order: classes_correct=1 ... extras_present=15), the scripted
answers and the prices in examples/scenarios/llm_cost.yml.
"""

from __future__ import annotations

import csv
import io
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from tests.support.scripted_server import (
    Reply,
    ScriptedServer,
    case_names,
    feedback_reply,
    usage,
)

from eunomia.api import CaseSelection, RunOptions, RunReport, load_all, run_scenarios
from eunomia.errors import EunomiaError
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.targets.athena import AthenaTarget

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "scenarios"
FAST = RetryPolicy(retries=2, timeout_s=5.0, backoff_initial_s=0.01, backoff_max_s=0.02)

# classes 1-2, relationship_type 3-5, multiplicity 6-7, assignment 8-9, attributes 10-11,
# naming_format 12-13, extras 14-15
DEFAULT = [1, 3, 6, 8, 10, 12, 14]
GPT4O = usage("gpt-4o", 1000, 200)  # 1000 * 2.50e-6 + 200 * 10e-6 = 0.0045

ANSWERS: dict[str, Reply] = {
    "perfect_solution": feedback_reply(DEFAULT, llm_requests=[GPT4O]),
    # seven cases answered exactly as expected
    "aggregation_instead_of_composition": feedback_reply([1, 5, 6, 8, 10, 12, 14],
                                                         llm_requests=[GPT4O]),
    "association_and_uppercase_attributes": feedback_reply([1, 5, 6, 8, 10, 13, 14],
                                                           llm_requests=[GPT4O]),
    "inheritance_instead_of_composition": feedback_reply([1, 5, 7, 8, 10, 12, 14],
                                                         llm_requests=[GPT4O]),
    "lowercase_class_names": feedback_reply([1, 3, 6, 8, 10, 13, 14], llm_requests=[GPT4O]),
    "missing_assignment": feedback_reply([1, 3, 6, 9, 10, 12, 14], llm_requests=[GPT4O]),
    "missing_attributes": feedback_reply([1, 3, 6, 8, 11, 12, 14], llm_requests=[GPT4O]),
    "wrong_multiplicity": feedback_reply([1, 3, 7, 8, 10, 12, 14], llm_requests=[GPT4O]),
    # exact answers without any usage: no cost at all
    "job_instead_of_task": feedback_reply([2, 3, 6, 8, 10, 12, 14], llm_requests=None),
    "redundant_project_attribute": feedback_reply([1, 3, 6, 8, 10, 12, 15], meta=None),
    # misses its point (relationship_not_composition=5), says relationship_correct=3;
    # two LLM calls: 0.0006 (gpt-4o-mini) + 0.0035 (gpt-4o) = 0.0041
    "association_instead_of_composition": feedback_reply(
        DEFAULT, llm_requests=[usage("gpt-4o-mini", 2000, 500), usage("gpt-4o", 1000, 100)]),
    # misses attributes_missing=11 (a 0-credit instruction): scores still match;
    # 400 cached input tokens: (600*2.5 + 400*1.25 + 100*10) / 1e6 = 0.003
    "missing_task_class": feedback_reply(
        [2, 5, 7, 9, 12, 14],
        llm_requests=[usage("gpt-4o", 1000, 100, numCachedInputTokens=400)], delay_s=0.05),
    # the module manager's shape, snake_case items; naming_format_incorrect=13 instead of
    # 12, an unknown SGI id 99 and an item with no SGI id; 2000*2.5e-6 + 300*10e-6 = 0.008
    "composition_reversed": feedback_reply(
        [1, 4, 6, 8, 10, 13, 14, 99, None], manager=True, snake_case=True,
        llm_requests=[usage("gpt-4o-2024-08-06", 2000, 300)]),
    # extras_present=15 (twice) and also no_extras=14; o3-mini: 0.011 + 0.0044 = 0.0154
    "extra_class": feedback_reply([1, 3, 6, 8, 10, 12, 15, 15, 14],
                                  llm_requests=[usage("o3-mini", 10000, 1000)]),
}

# Test Case, Detected, Score (%), Expected Points, Returned Points, Cost, Wrong <, Wrong >
EXPECTED_ROWS = [
    ("aggregation_instead_of_composition", "Yes", "100", "6", "6", "0.0045", "0", "0"),
    ("association_and_uppercase_attributes", "Yes", "100", "5", "5", "0.0045", "0", "0"),
    ("association_instead_of_composition", "No", "75", "6", "8", "0.0041", "0", "1"),
    ("composition_reversed", "Yes", "87.5", "7", "6", "0.008", "1", "0"),
    ("extra_class", "Yes", "100", "7", "8", "0.0154", "0", "1"),
    ("inheritance_instead_of_composition", "Yes", "100", "5", "5", "0.0045", "0", "0"),
    ("job_instead_of_task", "Yes", "100", "7", "7", "", "0", "0"),
    ("lowercase_class_names", "Yes", "100", "7", "7", "0.0045", "0", "0"),
    ("missing_assignment", "Yes", "100", "7", "7", "0.0045", "0", "0"),
    ("missing_attributes", "Yes", "100", "7", "7", "0.0045", "0", "0"),
    ("missing_task_class", "No", "83.3333", "2", "2", "0.003", "0", "0"),
    ("perfect_solution", "Yes", "100", "8", "8", "0.0045", "0", "0"),
    ("redundant_project_attribute", "Yes", "100", "7", "7", "", "0", "0"),
    ("wrong_multiplicity", "Yes", "100", "7", "7", "0.0045", "0", "0"),
]
COLUMNS = ["Test Case", "Test Case Detected Correctly", "Test Case Score (%)",
           "Expected Points", "Total Returned Points", "Cost", "Request Time (s)",
           "Wrong < Points", "Wrong > Points", "Status", "Error"]


def _read_csv(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def _leftovers(folder: Path) -> list[Path]:
    """Temporary files left behind by the atomic writes."""
    return list(folder.rglob("*.tmp"))


def _json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


async def _run(
    scenarios: Path, server: ScriptedServer, results: Path, *, run_name: str = "r1",
    selection: CaseSelection | None = None, console: Console | None = None,
) -> RunReport:
    sources, problems = discover([scenarios])
    assert not problems
    loaded, _ = load_all(sources)
    server.names = case_names(loaded[0].scenario)
    return await run_scenarios(
        loaded, AthenaTarget(server.url), run_name=run_name, results_dir=results,
        options=RunOptions(4, FAST), selection=selection or CaseSelection(),
        console=console,
    )


@pytest.fixture
async def full_run(scripted_server: ScriptedServer, tmp_path: Path) -> Path:
    for name, reply in ANSWERS.items():
        scripted_server.script(name, reply)
    report = await _run(EXAMPLES, scripted_server, tmp_path / "results")
    assert report.failed_cases == 0 and not report.interrupted
    assert sorted(scripted_server.counts) == sorted(ANSWERS)
    assert set(scripted_server.counts.values()) == {1}
    return tmp_path / "results" / "r1" / "project_management"


async def test_layout_of_the_results_folder(full_run: Path) -> None:
    assert (full_run / "tables" / "scenario_summary.csv").is_file()
    assert (full_run / "tables" / "test_case_results.csv").is_file()
    assert (full_run / "scenario_results.json").is_file()
    assert (full_run / "failures.json").is_file()
    assert sorted(p.stem for p in (full_run / "test_cases").glob("*.json")) == sorted(ANSWERS)
    assert not _leftovers(full_run)


async def test_test_case_results_csv(full_run: Path) -> None:
    header, *rows = _read_csv(full_run / "tables" / "test_case_results.csv")
    # the document's nine columns, then Status and Error (later additions go after them)
    assert header[: len(COLUMNS)] == COLUMNS
    assert [(r[0], r[1], r[2], r[3], r[4], r[5], r[7], r[8]) for r in rows] == EXPECTED_ROWS
    assert {(r[9], r[10]) for r in rows} == {("scored", "")}
    times = {r[0]: float(r[6]) for r in rows}
    assert all(0 <= t < 5 for t in times.values())
    assert times["missing_task_class"] >= 0.045  # the scripted 0.05 s delay


async def test_scenario_summary_csv(full_run: Path) -> None:
    header, *rows = _read_csv(full_run / "tables" / "scenario_summary.csv")
    assert header == ["Metric", "Value"]
    metrics = dict(rows)
    assert [r[0] for r in rows][:8] == [
        "Total Cases", "Fully Correct Cases", "Score Matched Count", "Average Test Case Score",
        "Correctly Detected Test Cases / Total Cases", "Total Cost", "Average Cost",
        "Average Request Time (s)",
    ]
    assert metrics["Total Cases"] == "14"
    assert metrics["Fully Correct Cases"] == "10"
    assert metrics["Score Matched Count"] == "11"  # the 10 + missing_task_class (2 == 2)
    # (10 * 100 + 75 + 83.3333 + 87.5 + 100) / 14
    assert metrics["Average Test Case Score"] == "96.131"
    assert metrics["Correctly Detected Test Cases / Total Cases"] == "12/14"
    assert metrics["Total Cost"] == "0.0665"  # 8 * 0.0045 + 0.0041 + 0.003 + 0.008 + 0.0154
    assert metrics["Average Cost"] == "0.005542"  # over the 12 cases with a cost
    assert metrics["Scored Cases"] == "14"
    assert metrics["Failed Cases"] == "0"
    # the two cases whose answer reported no token usage: unknown, not 0
    assert metrics["Cases With Unknown Cost"] == "2"
    assert metrics["Input Tokens"] == "24000"
    assert metrics["Output Tokens"] == "3600"
    _, *case_rows = _read_csv(full_run / "tables" / "test_case_results.csv")
    mean = sum(float(r[6]) for r in case_rows) / len(case_rows)
    assert float(metrics["Average Request Time (s)"]) == pytest.approx(mean, abs=0.002)


async def test_scenario_results_json(full_run: Path) -> None:
    data = _json(full_run / "scenario_results.json")
    assert data["scenario"] == "project_management"
    assert data["run_name"] == "r1"
    assert data["target"].endswith("/feedback_suggestions")
    assert (data["total_cases"], data["scored_cases"], data["failed_cases"]) == (14, 14, 0)
    assert data["fully_correct_cases"] == 10
    assert data["score_matched_count"] == 11
    assert data["correctly_detected_cases"] == 12
    assert data["average_test_case_score"] == pytest.approx(1345.833333333 / 14)
    assert data["total_cost"] == pytest.approx(0.0665)
    assert data["average_cost"] == pytest.approx(0.0665 / 12)
    assert data["cases_with_unknown_cost"] == 2 and data["unknown_cost_models"] == []
    assert (data["input_tokens"], data["output_tokens"]) == (24000, 3600)
    assert data["failures"] == [] and _json(full_run / "failures.json") == []

    criteria = {c["criterion_textual_id"]: c for c in data["criteria"]}
    assert list(criteria) == ["classes", "relationship_type", "multiplicity", "assignment",
                              "attributes", "naming_format", "extras"]
    # every case expects one instruction of each criterion
    assert {c["cases"] for c in criteria.values()} == {14}
    assert {k: c["missed"] for k, c in criteria.items()} == {
        "classes": 0, "relationship_type": 1, "multiplicity": 0, "assignment": 0,
        "attributes": 1, "naming_format": 1, "extras": 0,
    }
    assert criteria["relationship_type"]["miss_rate"] == pytest.approx(1 / 14)

    ins = {i["textual_id"]: i for i in data["instructions"]}
    assert (ins["relationship_not_composition"]["expected"],
            ins["relationship_not_composition"]["missed"]) == (5, 1)
    assert ins["relationship_correct"]["expected"] == 8
    assert ins["relationship_correct"]["returned_unexpected"] == 1
    assert ins["naming_format_correct"]["missed"] == 1
    assert ins["naming_format_incorrect"]["returned_unexpected"] == 1
    assert ins["no_extras"]["returned_unexpected"] == 1
    assert ins["attributes_missing"]["expected"] == 2
    assert ins["attributes_missing"]["missed"] == 1
    assert ins["attributes_missing"]["miss_rate"] == pytest.approx(0.5)
    assert ins["classes_missing"]["miss_rate"] == 0.0
    assert ins["relationship_reversed"]["criterion_textual_id"] == "relationship_type"


def _ins(i: int, textual: str, credits: float) -> dict[str, Any]:
    return {"id": i, "textual_id": textual, "credits": credits}


def _strip(d: dict[str, Any]) -> dict[str, Any]:
    return {k: d[k] for k in ("id", "textual_id", "credits")}


async def test_case_json_mismatch_pair_and_costs(full_run: Path) -> None:
    case = _json(full_run / "test_cases" / "association_instead_of_composition.json")
    assert case["test_case"] == "association_instead_of_composition"
    assert case["status"] == "scored" and case["error"] is None and case["attempts"] == 1
    assert case["expected_score"] == 6.0 and case["returned_score"] == 8.0
    assert case["test_case_detected_correctly"] is False
    assert case["test_case_score_percent"] == 75.0
    assert case["fully_correct"] is False and case["score_match"] is False
    assert (case["wrong_less_points"], case["wrong_more_points"]) == (0, 1)
    assert [i["id"] for i in case["expected_instructions"]] == [1, 5, 6, 8, 10, 12, 14]
    assert case["diff_instructions"] == [{"id": 5, "textual_id": "relationship_not_composition"}]
    assert case["missing_instructions"] == [
        {"id": 5, "textual_id": "relationship_not_composition"}]
    assert case["extra_instructions"] == [{"id": 3, "textual_id": "relationship_correct"}]
    (crit,) = case["criteria_results"]
    assert (crit["criterion_id"], crit["criterion_textual_id"]) == (2, "relationship_type")
    (pair,) = crit["mismatch_pairs"]
    assert _strip(pair["expected"]) == _ins(5, "relationship_not_composition", 0.0)
    assert pair["expected"]["instructionDescription"].startswith(
        "The Project-Task relationship is missing or is not a composition")
    assert "feedbackDescription" not in pair["expected"]
    assert _strip(pair["received"]) == _ins(3, "relationship_correct", 2.0)
    assert pair["received"]["feedbackDescription"].startswith(
        "Excellent! The Project-Task relationship is a composition")
    assert crit["missing_instructions"] == [] and crit["extra_instructions"] == []

    cost = case["cost"]
    assert cost["total_cost"] == pytest.approx(0.0041)
    assert cost["total_input_cost"] == pytest.approx(0.0028)
    assert cost["total_output_cost"] == pytest.approx(0.0013)
    assert cost["unknown_models"] == []
    assert [(d["llm"], d["input_tokens"], d["output_tokens"]) for d in cost["details"]] == [
        ("gpt-4o-mini", 2000, 500), ("gpt-4o", 1000, 100)]
    mini, big = cost["details"]
    assert mini["input_cost"] == pytest.approx(0.0003)
    assert mini["output_cost"] == pytest.approx(0.0003)
    assert mini["total"] == pytest.approx(0.0006)
    assert big["input_cost"] == pytest.approx(0.0025)
    assert big["output_cost"] == pytest.approx(0.001)
    assert big["total"] == pytest.approx(0.0035)
    assert [f["structured_grading_instruction_id"] for f in case["feedback"]] == DEFAULT


async def test_case_json_missing_instruction_and_cached_tokens(full_run: Path) -> None:
    case = _json(full_run / "test_cases" / "missing_task_class.json")
    assert case["expected_score"] == 2.0 and case["returned_score"] == 2.0
    assert case["score_match"] is True and case["fully_correct"] is False
    assert case["test_case_detected_correctly"] is False
    assert case["test_case_score_percent"] == pytest.approx(100 * 10 / 12)
    assert sorted(i["id"] for i in case["diff_instructions"]) == [2, 5, 7, 9, 11]
    (crit,) = case["criteria_results"]
    assert (crit["criterion_id"], crit["criterion_textual_id"]) == (5, "attributes")
    assert crit["mismatch_pairs"] == [] and crit["extra_instructions"] == []
    assert [_strip(i) for i in crit["missing_instructions"]] == [
        _ins(11, "attributes_missing", 0.0)]
    (line,) = case["cost"]["details"]
    assert (line["llm"], line["input_tokens"], line["cached_input_tokens"],
            line["output_tokens"]) == ("gpt-4o", 1000, 400, 100)
    assert line["input_cost"] == pytest.approx(0.002)
    assert line["output_cost"] == pytest.approx(0.001)
    assert case["cost"]["total_cost"] == pytest.approx(0.003)
    assert case["request_time_s"] >= 0.045


async def test_case_json_unmapped_ids_and_raw_feedback(full_run: Path) -> None:
    case = _json(full_run / "test_cases" / "composition_reversed.json")
    assert case["unmapped_instruction_ids"] == [99]
    assert case["unreferenced_feedback_count"] == 1
    assert (case["wrong_less_points"], case["wrong_more_points"]) == (1, 0)
    assert case["test_case_score_percent"] == 87.5
    (crit,) = case["criteria_results"]
    assert crit["criterion_textual_id"] == "naming_format" and crit["criterion_id"] == 6
    (pair,) = crit["mismatch_pairs"]
    assert _strip(pair["expected"]) == _ins(12, "naming_format_correct", 1.0)
    assert _strip(pair["received"]) == _ins(13, "naming_format_incorrect", 0.0)
    fb = case["feedback"]
    assert [f["structured_grading_instruction_id"] for f in fb] == [
        1, 4, 6, 8, 10, 13, 14, 99, None]
    assert fb[0]["description"] == "fb 1" and fb[0]["title"] == "item 1"
    assert fb[0]["is_graded"] is False and fb[0]["submission_id"] == 1
    assert case["cost"]["details"][0]["llm"] == "gpt-4o-2024-08-06"
    assert case["cost"]["total_cost"] == pytest.approx(0.008)


async def test_case_json_extra_and_duplicate(full_run: Path) -> None:
    case = _json(full_run / "test_cases" / "extra_class.json")
    assert case["duplicate_instructions"] == [{"id": 15, "textual_id": "extras_present"}]
    assert case["test_case_detected_correctly"] is True
    assert (case["expected_score"], case["returned_score"]) == (7.0, 8.0)
    (crit,) = case["criteria_results"]
    assert crit["criterion_textual_id"] == "extras"
    assert crit["mismatch_pairs"] == [] and crit["missing_instructions"] == []
    (extra,) = crit["extra_instructions"]
    assert _strip(extra) == _ins(14, "no_extras", 1.0)
    assert extra["feedbackDescription"] == "No unnecessary elements found. Perfect!"
    assert len(case["feedback"]) == 9  # every item kept, duplicates included
    assert case["cost"]["total_cost"] == pytest.approx(0.0154)


async def test_case_json_without_usage(full_run: Path) -> None:
    for name in ("job_instead_of_task", "redundant_project_attribute"):
        case = _json(full_run / "test_cases" / f"{name}.json")
        assert case["fully_correct"] is True
        assert case["criteria_results"] == []
        assert case["cost"]["details"] == []
        # no usage reported: a cost nobody measured, as in the summary and the CSV
        assert case["cost"]["total_cost"] is None
        assert case["cost"]["total_input_cost"] is None
    rows = {r[0]: r for r in _read_csv(full_run / "tables" / "test_case_results.csv")[1:]}
    assert rows["job_instead_of_task"][5] == ""


# --- failures, retries, invalid files, unknown prices ---------------------------------------


@pytest.fixture
async def rough_run(
    scripted_server: ScriptedServer, examples_copy: Path, tmp_path: Path
) -> tuple[Path, ScriptedServer, RunReport, str]:
    cases = examples_copy / "project_management" / "test_cases"
    (cases / "broken.json").write_text('{"version": "3.0.0", "type": ', encoding="utf-8")
    ok = feedback_reply(DEFAULT, llm_requests=[GPT4O])
    scripted_server.script("perfect_solution", [Reply(503, text="busy"), ok])
    scripted_server.script("missing_attributes", [
        Reply(429, {"error": "slow down"}, headers={"Retry-After": "1"}),
        feedback_reply([1, 3, 6, 8, 11, 12, 14], llm_requests=[GPT4O])])
    scripted_server.script("extra_class", [Reply(500, text="upstream exploded")])
    scripted_server.script("lowercase_class_names", [Reply(400, {"error": "bad exercise"})])
    scripted_server.script("wrong_multiplicity", feedback_reply(
        [1, 3, 7, 8, 10, 12, 14], llm_requests=[usage("mystery-llm", 500, 50), GPT4O]))
    out = io.StringIO()
    console = Console(file=out, width=300, force_terminal=False, color_system=None)
    selection = CaseSelection(("perfect_solution", "missing_attributes", "extra_class",
                               "lowercase_class_names", "wrong_multiplicity", "broken"))
    report = await _run(examples_copy, scripted_server, tmp_path / "results",
                        selection=selection, console=console)
    return (tmp_path / "results" / "r1" / "project_management", scripted_server, report,
            out.getvalue())


async def test_retries_are_counted_and_scored(rough_run: Any) -> None:
    folder, server, _, _ = rough_run
    assert server.counts["perfect_solution"] == 2
    assert server.counts["missing_attributes"] == 2
    first, second = server.requests_for("missing_attributes")
    assert second.at - first.at >= 0.95  # Retry-After: 1 honoured, not the 0.01 s backoff
    for name in ("perfect_solution", "missing_attributes"):
        case = _json(folder / "test_cases" / f"{name}.json")
        assert case["status"] == "scored" and case["attempts"] == 2
        assert case["fully_correct"] is True
    rows = {r[0]: r for r in _read_csv(folder / "tables" / "test_case_results.csv")[1:]}
    assert rows["perfect_solution"][9] == "scored"
    assert rows["perfect_solution"][2] == "100"
    assert rows["missing_attributes"][5] == "0.0045"


async def test_permanent_failures_are_reported_everywhere(rough_run: Any) -> None:
    folder, server, report, terminal = rough_run
    assert server.counts["extra_class"] == 1  # a 500 is retried only when asked
    assert server.counts["lowercase_class_names"] == 1  # a 400 is not retried
    assert "broken" not in server.counts
    assert report.failed_cases == 3

    rows = {r[0]: r for r in _read_csv(folder / "tables" / "test_case_results.csv")[1:]}
    assert sorted(rows) == ["broken", "extra_class", "lowercase_class_names",
                            "missing_attributes", "perfect_solution", "wrong_multiplicity"]
    assert rows["extra_class"][:11] == ["extra_class", "", "", "", "", "", "", "", "",
                                        "failed", "HTTP 500: upstream exploded"]
    assert rows["lowercase_class_names"][9:11] == [
        "failed", 'HTTP 400: {"error": "bad exercise"}']
    assert rows["broken"][9] == "invalid"
    assert rows["broken"][10].startswith("invalid JSON at line 1 column")

    failures = _json(folder / "failures.json")
    by_case = {f["test_case"]: f for f in failures}
    assert by_case["extra_class"] == {"test_case": "extra_class", "status": "failed",
                                      "reason": "HTTP 500: upstream exploded", "attempts": 1}
    assert by_case["lowercase_class_names"]["attempts"] == 1
    assert by_case["broken"]["status"] == "invalid"
    assert by_case["broken"]["reason"].startswith("invalid JSON")
    assert _json(folder / "scenario_results.json")["failures"] == failures

    case = _json(folder / "test_cases" / "extra_class.json")
    assert case["status"] == "failed" and case["attempts"] == 1
    assert case["error"] == "HTTP 500: upstream exploded"
    assert "criteria_results" not in case and case["feedback"] == []
    broken = _json(folder / "test_cases" / "broken.json")
    assert broken["status"] == "invalid" and broken["error"].startswith("invalid JSON")

    metrics = dict(_read_csv(folder / "tables" / "scenario_summary.csv")[1:])
    assert metrics["Total Cases"] == "6"
    assert metrics["Scored Cases"] == "3"
    assert metrics["Failed Cases"] == "3"
    assert metrics["Fully Correct Cases"] == "3"
    assert metrics["Average Test Case Score"] == "100"
    assert metrics["Correctly Detected Test Cases / Total Cases"] == "3/6"  # of all cases

    assert "Failed cases (3)" in terminal
    assert "HTTP 500: upstream exploded" in terminal
    assert "extra_class" in terminal and "broken" in terminal and "invalid JSON" in terminal


async def test_unknown_model_gives_unknown_cost_and_a_warning(rough_run: Any) -> None:
    folder, _, _, terminal = rough_run
    rows = {r[0]: r for r in _read_csv(folder / "tables" / "test_case_results.csv")[1:]}
    assert rows["wrong_multiplicity"][9] == "scored"
    assert rows["wrong_multiplicity"][5] == ""  # unknown, not 0 and not gpt-4o's part only
    case = _json(folder / "test_cases" / "wrong_multiplicity.json")
    assert case["cost"]["total_cost"] is None
    assert case["cost"]["total_input_cost"] is None
    assert case["cost"]["unknown_models"] == ["mystery-llm"]
    mystery, known = case["cost"]["details"]
    assert (mystery["llm"], mystery["input_cost"], mystery["total"]) == ("mystery-llm", None, None)
    assert known["llm"] == "gpt-4o" and known["total"] == pytest.approx(0.0045)

    metrics = dict(_read_csv(folder / "tables" / "scenario_summary.csv")[1:])
    assert metrics["Cases With Unknown Cost"] == "1"
    assert metrics["Total Cost"] == "0.009"  # the two cases with a known cost
    assert metrics["Average Cost"] == "0.0045"
    assert metrics["Input Tokens"] == str(1000 + 1000 + 500 + 1000)
    data = _json(folder / "scenario_results.json")
    assert data["unknown_cost_models"] == ["mystery-llm"]
    assert data["cases_with_unknown_cost"] == 1
    assert "warning: no price for mystery-llm in llm_cost.yml" in terminal


async def test_run_name_reuse_refused(scripted_server: ScriptedServer, tmp_path: Path) -> None:
    scripted_server.default = feedback_reply(DEFAULT, llm_requests=[GPT4O])
    one = CaseSelection(("perfect_solution",))
    results = tmp_path / "results"
    report = await _run(EXAMPLES, scripted_server, results, run_name="r1", selection=one)
    folder = report.folder / "project_management"
    before = (folder / "tables" / "test_case_results.csv").read_bytes()
    requests = len(scripted_server.requests)
    with pytest.raises(EunomiaError, match="already"):
        await _run(EXAMPLES, scripted_server, results, run_name="r1")
    assert len(scripted_server.requests) == requests  # refused before any request
    assert (folder / "tables" / "test_case_results.csv").read_bytes() == before
    # another name is fine
    report = await _run(EXAMPLES, scripted_server, results, run_name="r2",
                        selection=CaseSelection(("perfect_solution", "extra_class")))
    assert report.folder == results / "r2"
    assert _json(report.folder / "project_management" / "scenario_results.json")[
        "total_cases"] == 2


def test_one_price_table_models_yml_then_llm_cost_yml(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scenario prices: free local models < models.yml < the scenario's llm_cost.yml."""
    folder = tmp_path / "scenarios"
    shutil.copytree(EXAMPLES / "project_management", folder / "project_management")
    (folder / "llm_cost.yml").write_text(
        "llm_costs:\n  gpt-4o-mini: {input_cost_per_million: 9, output_cost_per_million: 9}\n",
        encoding="utf-8")
    work = tmp_path / "work"
    work.mkdir()
    (work / "models.yml").write_text(
        "models:\n"
        "  openai:gpt-4o-mini:\n"
        "    price: {input_cost_per_million: 1, output_cost_per_million: 1}\n"
        "  openai:gpt-4.1:\n"
        "    price: {input_cost_per_million: 2, output_cost_per_million: 8}\n",
        encoding="utf-8")
    monkeypatch.chdir(work)
    sources, problems = discover([folder])
    assert not problems
    (item,), _ = load_all(sources)
    prices = item.prices
    assert prices.lookup("gpt-4o-mini").input_cost_per_million == 9  # type: ignore[union-attr]
    assert prices.lookup("gpt-4.1").output_cost_per_million == 8  # type: ignore[union-attr]
    assert prices.lookup("qwen2.5-coder-0.5b").input_cost_per_million == 0  # type: ignore[union-attr]
