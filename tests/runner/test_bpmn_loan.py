"""The real bpmn_loan scenario of the original test bench, end to end against a scripted module.

Instruction ids: criterion k (1..10, manifest order) has ``<k>_correct`` = 2k-1 (1 credit)
and ``<k>_incorrect`` = 2k (0 credits). 37 test case files: 32 cases replace one default
instruction, 2 (unlabelled_activity, wrongly_named_activity) replace two, 3 replace none.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.support.scripted_server import (
    RecordedRequest,
    Reply,
    ScriptedServer,
    case_names,
    feedback_reply,
    usage,
)

from eunomia.api import RunOptions, RunReport, load_all, run_scenarios
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.targets.athena import AthenaTarget

SCENARIOS = (Path(__file__).resolve().parents[2].parent
             / "shared/conformance/eunomia_testbench/scenarios")
BPMN = SCENARIOS / "bpmn_loan"
pytestmark = pytest.mark.skipif(not (BPMN / "manifest.yml").is_file(),
                                reason=f"the conformance scenario {BPMN} is absent")

DEFAULT = list(range(1, 21, 2))
NO_DIFF = {"unlabelled_event", "wrongly_named_connecting_objects", "wrongly_named_event"}
TWO_DIFFS = {"unlabelled_activity", "wrongly_named_activity"}
GPT4O = usage("gpt-4o", 1000, 100)  # 0.0025 + 0.001 = 0.0035


def _expected_by_case() -> dict[str, list[int]]:
    """Expected ids per case, read straight from the manifest (not through the loader)."""
    manifest = yaml.safe_load((BPMN / "manifest.yml").read_text(encoding="utf-8"))
    ids = {ins["id"]: n for n, ins in enumerate(
        (i for c in manifest["criteria"] for i in c["instructions"]), start=1)}
    names = sorted(p.stem for p in (BPMN / "test_cases").glob("*.json"))
    out = {name: [ids[t] for t in manifest["default_expected"]] for name in names}
    for original, cases in manifest["test_case_diffs"].items():
        for case, replacement in (cases or {}).items():
            if case in out:
                out[case] = [ids[replacement] if i == ids[original] else i for i in out[case]]
    return out


def _metrics(folder: Path) -> dict[str, str]:
    with (folder / "tables" / "scenario_summary.csv").open(newline="", encoding="utf-8") as fh:
        return dict(list(csv.reader(fh))[1:])


def _rows(folder: Path) -> dict[str, list[str]]:
    with (folder / "tables" / "test_case_results.csv").open(newline="", encoding="utf-8") as fh:
        return {r[0]: r for r in list(csv.reader(fh))[1:]}


async def _run(server: ScriptedServer, results: Path) -> tuple[RunReport, Path]:
    sources, problems = discover([SCENARIOS])
    assert not problems
    loaded, diagnostics = load_all(sources)
    assert [item.scenario.name for item in loaded] == ["bpmn_loan"]
    assert any("excessive_diagram_object2" in str(d) for d in diagnostics)
    server.names = case_names(loaded[0].scenario)
    report = await run_scenarios(
        loaded, AthenaTarget(server.manager_url), run_name="bpmn", results_dir=results,
        options=RunOptions(10, RetryPolicy(retries=1, timeout_s=5, backoff_initial_s=0.01)),
    )
    return report, results / "bpmn" / "bpmn_loan"


def test_expectations_read_from_manifest() -> None:
    expected = _expected_by_case()
    assert len(expected) == 37
    changed = {name: sum(a != b for a, b in zip(ids, DEFAULT, strict=True))
               for name, ids in expected.items()}
    assert {n for n, k in changed.items() if k == 0} == NO_DIFF
    assert {n for n, k in changed.items() if k == 2} == TWO_DIFFS
    assert sum(k == 1 for k in changed.values()) == 32


async def test_default_answers_for_every_case(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    scripted_server.default = feedback_reply(DEFAULT, llm_requests=[GPT4O], manager=True)
    report, folder = await _run(scripted_server, tmp_path)
    assert report.failed_cases == 0
    assert len(scripted_server.requests) == 37
    assert {r.path for r in scripted_server.requests} == {
        "/modules/modeling/module_modeling_llm/feedback_suggestions"}
    assert {r.json["exercise"]["maxPoints"] for r in scripted_server.requests} == {10}

    m = _metrics(folder)
    assert m["Total Cases"] == "37"
    assert m["Fully Correct Cases"] == "3"
    assert m["Score Matched Count"] == "3"
    avg = (3 * 100 + 32 * 100 * 9 / 11 + 2 * 100 * 8 / 12) / 37
    assert float(m["Average Test Case Score"]) == pytest.approx(avg, abs=1e-4)
    assert m["Correctly Detected Test Cases / Total Cases"] == "3/37"
    assert float(m["Total Cost"]) == pytest.approx(37 * 0.0035)
    assert float(m["Average Cost"]) == pytest.approx(0.0035)
    assert m["Input Tokens"] == "37000" and m["Output Tokens"] == "3700"

    rows = _rows(folder)
    assert len(rows) == 37
    for name, row in rows.items():
        if name in NO_DIFF:
            assert row[1:5] == ["Yes", "100", "10", "10"], name
            assert row[7:9] == ["0", "0"]
        elif name in TWO_DIFFS:
            assert row[1:5] == ["No", "66.6667", "8", "10"], name
            assert row[7:9] == ["0", "2"]
        else:
            assert row[1:5] == ["No", "81.8182", "9", "10"], name
            assert row[7:9] == ["0", "1"]
        assert row[5] == "0.0035"


async def test_expected_answers_and_the_documents_example(
    scripted_server: ScriptedServer, tmp_path: Path
) -> None:
    expected = _expected_by_case()

    def answer(request: RecordedRequest) -> Reply:
        return feedback_reply(expected[request.key], llm_requests=[GPT4O])

    scripted_server.default = answer
    # The document's example: naming_format_correct instead of naming_format_incorrect,
    # priced for o1-preview-2024-09-12 (4851 * 15e-6 = 0.072765, 7146 * 60e-6 = 0.42876).
    doc_answer = [i - 1 if i == 14 else i for i in expected["unlabelled_activity"]]
    scripted_server.script("unlabelled_activity", feedback_reply(
        doc_answer, llm_requests=[usage("o1-preview-2024-09-12", 4851, 7146)]))
    report, folder = await _run(scripted_server, tmp_path)
    assert report.failed_cases == 0
    assert sorted(scripted_server.counts) == sorted(expected)

    m = _metrics(folder)
    assert m["Total Cases"] == "37"
    assert m["Fully Correct Cases"] == "36"
    assert m["Score Matched Count"] == "36"
    assert float(m["Average Test Case Score"]) == pytest.approx(
        (36 * 100 + 100 * 10 / 12) / 37, abs=1e-4)
    assert m["Correctly Detected Test Cases / Total Cases"] == "36/37"
    assert float(m["Total Cost"]) == pytest.approx(36 * 0.0035 + 0.501525)
    assert float(m["Average Cost"]) == pytest.approx((36 * 0.0035 + 0.501525) / 37, abs=1e-6)

    doc: dict[str, Any] = json.loads(
        (folder / "test_cases" / "unlabelled_activity.json").read_text(encoding="utf-8"))
    assert doc["test_case"] == "unlabelled_activity"
    assert doc["expected_score"] == 8.0
    assert doc["returned_score"] == 9.0
    assert doc["test_case_detected_correctly"] is False
    assert doc["test_case_score_percent"] == pytest.approx(83.33333333333334)
    cost = doc["cost"]
    assert cost["total_cost"] == pytest.approx(0.501525)
    assert cost["total_input_cost"] == pytest.approx(0.072765)
    assert cost["total_output_cost"] == pytest.approx(0.42876)
    (line,) = cost["details"]
    assert line["llm"] == "o1-preview-2024-09-12"
    assert (line["input_cost"], line["output_cost"], line["total"]) == pytest.approx(
        (0.072765, 0.42876, 0.501525))
    (crit,) = doc["criteria_results"]
    assert crit["criterion_id"] == 7 and crit["criterion_textual_id"] == "naming_format"
    assert crit["missing_instructions"] == [] and crit["extra_instructions"] == []
    assert crit["mismatch_pairs"] == [{
        "expected": {"id": 14, "textual_id": "naming_format_incorrect", "credits": 0.0,
                     "instructionDescription":
                         "One or more tasks do not follow the Verb-Object format."},
        "received": {"id": 13, "textual_id": "naming_format_correct", "credits": 1.0,
                     "instructionDescription": "All tasks use 'Verb Object' naming.",
                     "feedbackDescription": "Task names follow the correct naming scheme."},
    }]
    rows = _rows(folder)
    assert rows["unlabelled_activity"][1:9] == [
        "No", "83.3333", "8", "9", "0.501525", rows["unlabelled_activity"][6], "0", "1"]
