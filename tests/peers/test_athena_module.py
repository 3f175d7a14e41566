"""Eunomia against the LEGACY Athena modeling module (ls1intum/Athena a373df28, run by
``scripts/peer-athena.sh --legacy``), the version that drops every SGI id: it keeps the
"SGI scores measure nothing" diagnosis tested on a real system. The current module is tested
in test_athena_current.py.

The module's LLM is the scripted stand-in (tests/support/athena_llm_standin.py); everything else
is the real thing: Athena's module, its manager, and Eunomia's command line. A recording proxy
between Eunomia and the module keeps the module's answers byte for byte, so each case's stored
response and exported file can be compared with what the module actually sent: feedback items,
SGI ids (or their absence), credits, element ids, token usage per LLM request, and the cost
recomputed from the scenario's llm_cost.yml. Nothing lost, nothing invented.

The last tests pin facts about this Athena version that Eunomia has to handle (issue 13); they
talk to the module directly.

Cost: about 15 s on 2 cores once the venvs are cached (module and manager start: ~10 s; the
runs: ~1-2 s each), plus the one-time `setup` (about 1.5 minutes cold, see docs/peer-athena.md).
"""

from __future__ import annotations

import json
import sqlite3
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.peers.conftest import LMS_DEPLOYMENT, AthenaPeer, Recorded, RecordingProxy
from tests.support.athena_llm_standin import (
    StandinCall,
    element_names_in_prompt,
    instruction_ids_in_prompt,
)
from tests.support.cli import run_cli

from eunomia.athena import DEFAULT_ID_BASE, case_index
from eunomia.pricing import BUNDLED_PRICES_FILE
from eunomia.store import RunStore

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"
BPMN_LOAN = ROOT.parent / "shared" / "conformance" / "eunomia_testbench" / "scenarios" / "bpmn_loan"
BPMN_CASES = ("missing_gateway", "missing_start_event", "unlabelled_activity",
              "use_of_wrong_event_type", "missing_message_flow")

# The module's feedback item (camelCase, as stored) and the exported test case file (snake_case).
ITEM_FIELDS = {
    "id": "id",
    "title": "title",
    "description": "description",
    "credits": "credits",
    "structuredGradingInstructionId": "structured_grading_instruction_id",
    "isGraded": "is_graded",
    "meta": "meta",
    "exerciseId": "exercise_id",
    "submissionId": "submission_id",
    "elementIds": "element_ids",
}


def eunomia_run(scenario: Path, url: str, results: Path, secret: str, *extra: str) -> None:
    proc = run_cli("run", scenario, "--target", f"athena:{url}", "--results", results,
                   "--run-name", "x", *extra, cwd=results.parent,
                   env={"ATHENA_SECRET": secret}, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]


def prices(scenario: Path) -> dict[str, dict[str, float]]:
    """The scenario's llm_cost.yml over Eunomia's bundled table (the lowest priority)."""
    table = yaml.safe_load((scenario.parent / "llm_cost.yml").read_text(encoding="utf-8"))
    bundled = yaml.safe_load(BUNDLED_PRICES_FILE.read_text(encoding="utf-8"))
    return {**bundled["llm_costs"], **table["llm_costs"]}


def diagram_ids(submission_model: str) -> set[str]:
    diagram = json.loads(submission_model)
    return set(diagram["elements"]) | set(diagram["relationships"])


def sent_for(stored: bytes, posts: list[Recorded]) -> Recorded:
    """The request sent for a stored one: the same bytes, or (ids of a named run) the same but
    for ``submission.id``, which is then the same case's id in the run's own block."""
    exact = [r for r in posts if r.request_body == stored]
    if exact:
        return exact[0]
    want = json.loads(stored)
    for record in posts:
        got = json.loads(record.request_body)
        sent_id = got["submission"]["id"]
        if case_index(sent_id) != case_index(want["submission"]["id"]):
            continue
        got["submission"]["id"] = want["submission"]["id"]
        if got == want:
            return record
    raise AssertionError("stored request is not what was sent")


def check_run(results: Path, scenario: Path, records: list[Recorded],
              llm_calls: list[StandinCall], *, through_manager: bool) -> dict[str, Any]:
    """Every case Eunomia stored and exported equals what the peer sent; returns the answers."""
    store = RunStore(results / "eunomia.db")
    try:
        run = store.require_run("x")
        rows = list(store.iter_cases(run))
        posts = [r for r in records if r.method == "POST"]
        # One request per case: no retry, nothing answered from a cache, nothing unrecorded.
        assert len(posts) == len(rows) > 0
        assert all(r.status == 200 for r in posts)
        by_body = {r.request_body: r for r in posts}
        assert len(by_body) == len(posts)
        answers: dict[str, Any] = {}
        price_table = prices(scenario)
        for row in rows:
            assert (row.status, row.attempts, row.cached) == ("scored", 1, False), row
            assert row.request is not None and row.response is not None
            record = sent_for(store.get_blob(row.request), posts)
            sent = record.request_body
            answer = json.loads(record.response_body)
            answers[row.case_name] = answer
            if through_manager:
                assert answer["module_name"] == "module_modeling_llm"
                assert answer["status"] == 200
            data, meta = answer["data"], answer["meta"]
            stored = store.get_json(row.response)
            assert stored["raw"] == answer  # the raw answer, unchanged

            # Feedback items: the stored (normalised) ones and the exported ones.
            assert len(stored["feedback"]) == len(data) > 0
            exported = json.loads((results / "x" / scenario.name / "test_cases"
                                   / f"{row.case_name}.json").read_text(encoding="utf-8"))
            assert len(exported["feedback"]) == len(data)
            for mine, kept, theirs in zip(stored["feedback"], exported["feedback"], data,
                                          strict=True):
                for camel, snake in ITEM_FIELDS.items():
                    assert mine[camel] == theirs.get(camel), (row.case_name, camel)
                    assert kept[snake] == theirs.get(camel), (row.case_name, snake)
            sent_json = json.loads(sent)
            ids = diagram_ids(sent_json["submission"]["model"])
            for item in data:
                assert set(item["elementIds"]) <= ids, "element ids not in the submission"
                # the ids sent, in Eunomia's range, are the ones the module answered about
                assert item["submissionId"] == sent_json["submission"]["id"] >= DEFAULT_ID_BASE
                assert item["exerciseId"] == sent_json["exercise"]["id"] >= DEFAULT_ID_BASE
            # the system's own cost figure is kept as it sent it
            assert stored.get("reported_cost") == meta["totalUsage"]["cost"]
            returned = {i["structuredGradingInstructionId"] for i in data} - {None}
            assert {i["id"] for i in exported["returned_instructions"]} == returned
            assert exported["unreferenced_feedback_count"] == sum(
                1 for i in data if i["structuredGradingInstructionId"] is None)

            # Token usage per LLM request, and the cost recomputed from llm_cost.yml.
            requests = meta["llmRequests"]
            assert len(stored["usage"]) == len(requests) >= 1
            for mine, theirs in zip(stored["usage"], requests, strict=True):
                for key in ("model", "numInputTokens", "numOutputTokens", "numTotalTokens"):
                    assert mine[key] == theirs[key], (row.case_name, key)
            assert row.input_tokens == sum(r["numInputTokens"] for r in requests)
            assert row.output_tokens == sum(r["numOutputTokens"] for r in requests)
            per_model: Counter[str] = Counter()
            for r in requests:
                per_model[r["model"]] += r["numInputTokens"]
            assert {d["llm"]: d["input_tokens"] for d in exported["cost"]["details"]} == per_model
            unpriced = {r["model"] for r in requests} - set(price_table)
            if unpriced:
                assert exported["cost"]["total_cost"] is None
                assert set(exported["cost"]["unknown_models"]) == unpriced
            else:
                expected = sum(
                    r["numInputTokens"] * price_table[r["model"]]["input_cost_per_million"]
                    + r["numOutputTokens"] * price_table[r["model"]]["output_cost_per_million"]
                    for r in requests) / 1_000_000
                assert exported["cost"]["total_cost"] == pytest.approx(expected, rel=1e-9)
                assert row.cost == pytest.approx(expected, rel=1e-9)

        # Every LLM call the module made is reported in some answer, and the other way round.
        reported = Counter(
            (r["model"], r["numInputTokens"], r["numOutputTokens"], r["numTotalTokens"])
            for a in answers.values() for r in a["meta"]["llmRequests"])
        made = Counter((c.model, c.prompt_tokens, c.completion_tokens, c.total_tokens)
                       for c in llm_calls)
        assert reported == made
        return answers
    finally:
        store.close()


def run_and_check(peer: AthenaPeer, proxy: RecordingProxy, scenario: Path, path: str,
                  tmp_path: Path, *extra: str, through_manager: bool = False) -> dict[str, Any]:
    results = tmp_path / "results"
    before = len(peer.standin.completions)
    eunomia_run(scenario, proxy.url + path, results, peer.secret, *extra)
    calls = [StandinCall.of(e) for e in peer.standin.completions[before:]]
    return check_run(results, scenario, proxy.take(), calls, through_manager=through_manager)


def module_base(peer: AthenaPeer) -> str:
    return peer.module_url.removesuffix("/feedback_suggestions")


def test_example_scenario_stored_as_the_module_sent_it(
        athena_legacy: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    proxy = recording_proxy(module_base(athena_legacy))
    answers = run_and_check(athena_legacy, proxy, EXAMPLE, "/feedback_suggestions", tmp_path)
    assert len(answers) == len(list((EXAMPLE / "test_cases").glob("*.json")))
    # The comparison is not vacuous: the module referenced diagram elements.
    assert any(item["elementIds"] for a in answers.values() for item in a["data"])


@pytest.mark.skipif(not BPMN_LOAN.is_dir(), reason="../shared/conformance bpmn_loan not present")
def test_bpmn_loan_subset_stored_as_the_module_sent_it(
        athena_legacy: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    proxy = recording_proxy(module_base(athena_legacy))
    selection = [arg for case in BPMN_CASES for arg in ("--case", case)]
    answers = run_and_check(athena_legacy, proxy, BPMN_LOAN, "/feedback_suggestions", tmp_path,
                            *selection)
    assert sorted(answers) == sorted(BPMN_CASES)


def test_through_the_module_manager(
        athena_legacy: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    if athena_legacy.manager_url is None:
        pytest.skip(f"the module manager did not start here:\n{athena_legacy.manager_problem}")
    base, _, path = athena_legacy.manager_url.partition("/modules/")
    proxy = recording_proxy(base)
    answers = run_and_check(athena_legacy, proxy, EXAMPLE, "/modules/" + path, tmp_path,
                            "--x-server-url", LMS_DEPLOYMENT, through_manager=True)
    assert len(answers) == len(list((EXAMPLE / "test_cases").glob("*.json")))


# --- facts about this Athena version (issue 13); requests made directly -------------------------

def post(url: str, body: Any, headers: dict[str, str]) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **headers})
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        text = exc.read().decode(errors="replace")
        try:
            return exc.code, json.loads(text)
        except json.JSONDecodeError:
            return exc.code, text


def example_request(exercise_id: int, submission_id: int) -> dict[str, Any]:
    manifest = yaml.safe_load((EXAMPLE / "manifest.yml").read_text(encoding="utf-8"))
    solution = (EXAMPLE / manifest["exercise"]["example_solution"]).read_text(encoding="utf-8")
    submission = (EXAMPLE / "test_cases" / "perfect_solution.json").read_text(encoding="utf-8")
    criteria = []
    sgi = 0
    for c_index, criterion in enumerate(manifest["criteria"], start=1):
        instructions = []
        for instruction in criterion["instructions"]:
            sgi += 1
            instructions.append({"id": sgi, "credits": instruction["credits"],
                                 "gradingScale": instruction["grading_scale"],
                                 "instructionDescription": instruction["instruction_description"],
                                 "feedback": instruction["feedback"], "usageCount": 0})
        criteria.append({"id": c_index, "title": criterion["title"],
                         "structuredGradingInstructions": instructions})
    exercise = manifest["exercise"]
    return {
        "exercise": {"id": exercise_id, "title": exercise["title"], "type": "modeling",
                     "maxPoints": exercise["max_points"], "bonusPoints": exercise["bonus_points"],
                     "gradingInstructions": exercise["grading_instructions"],
                     "problemStatement": exercise["problem_statement"],
                     "exampleSolution": solution, "gradingCriteria": criteria, "meta": {}},
        "submission": {"id": submission_id, "exerciseId": exercise_id, "model": submission,
                       "meta": {}},
        "isGraded": True,
    }


def test_facts_about_this_athena_version(athena_legacy: AthenaPeer) -> None:
    peer = athena_legacy
    auth = {"Authorization": peer.secret, "X-Server-URL": "http://localhost"}
    before = len(peer.standin.completions)
    status, answer = post(peer.module_url, example_request(910_001, 910_001), auth)
    assert status == 200, answer
    [call] = peer.standin.completions[before:]
    llm_request = call.request_json
    # What the module asks its LLM.
    assert llm_request["response_format"] == {"type": "json_object"}
    assert [m["role"] for m in llm_request["messages"]] == ["system", "user"]
    assert (llm_request["model"], llm_request["max_tokens"], llm_request["temperature"]) == (
        "gpt-4o-mini", 1000, 0.0)
    # The stand-in answered valid instruction ids and element names ...
    llm_answer = json.loads(call.response_json["choices"][0]["message"]["content"])
    offered = set(instruction_ids_in_prompt(llm_request))
    assert {f["grading_instruction_id"] for f in llm_answer["feedbacks"]} <= offered
    names = element_names_in_prompt(llm_request["messages"][1]["content"])
    assert {"Project", "Task", "TeamMember", "R1", "R2"} <= set(names)
    # ... and this version drops every SGI id (its converter is never given the criteria),
    # but keeps the element ids it mapped from the names.
    assert [i["structuredGradingInstructionId"] for i in answer["data"]] == [None] * len(
        llm_answer["feedbacks"])
    assert all(i["elementIds"] for i in answer["data"])
    # Its own cost figure prices input tokens at the output rate (5 / 15 USD per million here).
    usage = call.response_json["usage"]
    total = answer["meta"]["totalUsage"]
    assert total["numInputTokens"] == usage["prompt_tokens"]
    assert total["cost"] == pytest.approx(
        (usage["prompt_tokens"] + usage["completion_tokens"]) * 15 / 1_000_000)
    assert total["cost"] != pytest.approx(
        (usage["prompt_tokens"] * 5 + usage["completion_tokens"] * 15) / 1_000_000)

    # A wrong secret: 401 from the module.
    status, answer = post(peer.module_url, example_request(910_001, 910_001),
                          {**auth, "Authorization": "wrong"})
    assert (status, answer) == (401, {"detail": "Invalid API secret."})
    # No X-Server-URL: 500 from the module (its database needs the LMS URL).
    status, _ = post(peer.module_url, example_request(910_001, 910_001),
                     {"Authorization": peer.secret})
    assert status == 500
    # A version-2 Apollon diagram (arrays): 500.
    v2_request = example_request(910_001, 910_002)
    diagram = json.loads(v2_request["submission"]["model"])
    diagram.update(version="2.0.0", elements=list(diagram["elements"].values()),
                   relationships=list(diagram["relationships"].values()))
    v2_request["submission"]["model"] = json.dumps(diagram)
    status, _ = post(peer.module_url, v2_request, auth)
    assert status == 500

    # Submissions are stored by id alone: the same id for another exercise (or another LMS)
    # takes over the first one's row.
    status, _ = post(peer.module_url, example_request(910_002, 910_001),
                     {**auth, "X-Server-URL": "https://another-lms.example"})
    assert status == 200
    with sqlite3.connect(peer.run_dir / "data" / "module.sqlite") as db:
        row = db.execute("SELECT exercise_id, lms_url FROM modeling_submissions WHERE id=910001"
                         ).fetchone()
    assert row == (910_002, "https://another-lms.example")

    if peer.manager_url is not None:
        # The manager: the right secret with an LMS URL that is not one of its deployments
        # gives the same 401 as a wrong secret.
        request = example_request(910_003, 910_003)
        assert post(peer.manager_url, request, auth) == (401, {"detail": "Invalid API secret."})
        status, answer = post(peer.manager_url, request, {**auth, "X-Server-URL": LMS_DEPLOYMENT})
        assert status == 200 and answer["status"] == 200, answer

