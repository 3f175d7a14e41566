"""Eunomia against the CURRENT Athena modeling module (release 2.7, run by
scripts/peer-athena.sh), its LLM the scripted stand-in behind a recording
``eunomia serve-model --upstream`` relay (tests/peers/conftest.py).

Everything but the LLM is real: the module, its manager, the relay and Eunomia's command line.
A recording proxy between Eunomia and the module keeps the module's answers byte for byte, the
stand-in keeps every LLM exchange and the relay records every call, so each case can be
checked three ways: what Eunomia stored equals what the module sent (feedback items, ids,
credits, element references), what the module sent is what the LLM chose (the instruction of
each item, its credits clamped at 0, the element it names), and the token usage Eunomia
metered for the case is that of the LLM calls made for it. The module reports no usage itself
(``meta: {}``): unmetered, the cost is unknown everywhere.

Cost: about 30 s on 2 cores once the venvs are cached (module and manager start ~10 s, each
run 2-6 s), plus the one-time set-up of the current version (~80 s cold).
"""

from __future__ import annotations

import csv
import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.peers.conftest import LMS_DEPLOYMENT, AthenaPeer, Recorded, RecordingProxy
from tests.peers.test_athena_module import (
    BPMN_CASES,
    BPMN_LOAN,
    EXAMPLE,
    ITEM_FIELDS,
    diagram_ids,
    example_request,
    module_base,
    post,
    prices,
    sent_for,
)
from tests.support.athena_llm_standin import FILTER_PREFIX, Exchange
from tests.support.cli import run_cli

from eunomia.store import RunStore

pytestmark = pytest.mark.slow

ANSWER_MODEL = "gpt-4o-mini"
"""The model the stand-in names in its answers (the id the module asked for)."""


def llm_items(exchange: Exchange) -> list[dict[str, Any]]:
    """The feedback items the LLM answered in one exchange."""
    content = exchange.response_json["choices"][0]["message"]["content"]
    items = json.loads(content)["feedbacks"]
    assert isinstance(items, list)
    return items


def usage_page(peer: AthenaPeer) -> dict[str, Any]:
    assert peer.usage_url is not None
    with urllib.request.urlopen(peer.usage_url + "/eunomia/usage?after=0", timeout=30) as r:
        page: dict[str, Any] = json.load(r)
    return page


def run(peer: AthenaPeer, scenario: Path, url: str, tmp_path: Path, *extra: str,
        metered: bool = True, graded: bool = True) -> tuple[Path, str]:
    """``eunomia run`` on the module at ``url``; the results folder and the terminal output."""
    options = [] if graded else ["graded=false"]
    if metered:
        options.append(f"llm_usage={peer.usage_url}")
    target = f"athena:{url}" + (f"?{'&'.join(options)}" if options else "")
    results = tmp_path / "results"
    proc = run_cli("run", scenario, "--target", target, "--results", results, "--run-name", "x",
                   "--concurrency", "1", *extra, cwd=tmp_path,
                   env={"ATHENA_SECRET": peer.secret}, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return results, proc.stdout


def case_folder(results: Path, scenario: Path) -> Path:
    [folder] = [p for p in (results / "x").rglob(scenario.name) if p.is_dir()]
    return folder


def check_reference(item: dict[str, Any], chosen: dict[str, Any], submission: str) -> None:
    """The module's element reference is the element the LLM named, or none."""
    diagram = json.loads(submission)
    everything = {**diagram["elements"], **diagram["relationships"]}
    name = chosen.get("element_name")
    reference = item.get("reference")
    assert item["elementIds"] == ([reference] if reference else [])
    if name is None:
        assert reference is None
        return
    if reference is None:  # a name the module could not map (the stand-in's are all mappable)
        raise AssertionError(f"element {name!r} was not mapped")
    kind, _, element_id = reference.partition(":")
    assert element_id in everything and everything[element_id]["type"] == kind
    named = [i for i, e in diagram["elements"].items() if e.get("name") == name]
    if len(named) == 1:  # a uniquely named element (not a relation R<n>): that very one
        assert element_id == named[0]


def check_run(peer: AthenaPeer, results: Path, scenario: Path, posts: list[Recorded],
              exchanges: list[Exchange], *, graded: bool = True,
              through_manager: bool = False) -> dict[str, Any]:
    """Every case: stored = sent by the module = chosen by the LLM; metered = the LLM calls
    made for it. Returns the summary JSON."""
    calls_per_case = 1 if graded else 2
    store = RunStore(results / "eunomia.db")
    folder = case_folder(results, scenario)
    price = prices(scenario)[ANSWER_MODEL]
    try:
        rows = list(store.iter_cases(store.require_run("x")))
        assert len(posts) == len(rows) > 0 and all(r.status == 200 for r in posts)
        assert len(exchanges) == calls_per_case * len(rows)
        by_request: dict[bytes, list[Exchange]] = {}
        for i, record in enumerate(posts):  # concurrency 1: the calls come in request order
            by_request[record.request_body] = exchanges[i * calls_per_case:
                                                        (i + 1) * calls_per_case]
        for row in rows:
            assert (row.status, row.attempts, row.cached) == ("scored", 1, False), row
            assert row.request is not None and row.response is not None
            record = sent_for(store.get_blob(row.request), posts)
            sent = json.loads(record.request_body)
            assert sent["isGraded"] is graded
            answer = json.loads(record.response_body)
            if through_manager:
                assert (answer["module_name"], answer["status"]) == ("module_modeling_llm", 200)
            data = answer["data"]
            assert answer["meta"] == {}  # the module reports no token usage at all
            stored = store.get_json(row.response)
            assert stored["raw"] == answer and stored["usage"] == []
            exported = json.loads((folder / "test_cases" / f"{row.case_name}.json"
                                   ).read_text(encoding="utf-8"))
            # stored and exported = what the module sent
            assert len(stored["feedback"]) == len(exported["feedback"]) == len(data) > 0
            for mine, kept, theirs in zip(stored["feedback"], exported["feedback"], data,
                                          strict=True):
                for camel, snake in ITEM_FIELDS.items():
                    assert mine[camel] == theirs.get(camel), (row.case_name, camel)
                    assert kept[snake] == theirs.get(camel), (row.case_name, snake)
                assert kept["reference"] == theirs["reference"]
            ids = diagram_ids(sent["submission"]["model"])  # "<Type>:<id>" in this version
            assert all({e.partition(":")[2] for e in i["elementIds"]} <= ids for i in data)
            # what the module sent = what the LLM chose
            calls = by_request[record.request_body]
            assert [c.kind for c in calls] == (["feedback"] if graded else
                                               ["feedback", "filter"])
            chosen = llm_items(calls[0])
            offered = {i["id"] for c in sent["exercise"]["gradingCriteria"]
                       for i in c["structuredGradingInstructions"]}
            assert len(chosen) == len(data)
            for item, llm in zip(data, chosen, strict=True):
                assert llm["grading_instruction_id"] in offered
                assert item["structuredGradingInstructionId"] == llm["grading_instruction_id"]
                assert item["credits"] == max(0.0, llm["credits"])
                assert item["isGraded"] is graded
                check_reference(item, llm, sent["submission"]["model"])
                if graded:
                    assert (item["title"], item["description"]) == (llm["title"],
                                                                     llm["description"])
                else:  # the student-facing rewrite (the second call) is what came back
                    assert item["description"] == FILTER_PREFIX + llm["description"]
            returned = {i["structuredGradingInstructionId"] for i in data}
            assert {i["id"] for i in exported["returned_instructions"]} == returned
            # metered = the LLM calls made for this case, priced from llm_cost.yml
            metered = exported["cost"]["metered"]
            assert metered["attribution"] == "exact"
            assert [(c["model"], c["answered_by"], c["input_tokens"], c["output_tokens"])
                    for c in metered["calls"]] == [
                (ANSWER_MODEL, c.response_json["model"], c.response_json["usage"][
                    "prompt_tokens"], c.response_json["usage"]["completion_tokens"])
                for c in calls]
            assert "reported_by_system" not in metered
            tokens_in = sum(c.response_json["usage"]["prompt_tokens"] for c in calls)
            tokens_out = sum(c.response_json["usage"]["completion_tokens"] for c in calls)
            assert (row.input_tokens, row.output_tokens) == (tokens_in, tokens_out)
            expected = (tokens_in * price["input_cost_per_million"]
                        + tokens_out * price["output_cost_per_million"]) / 1_000_000
            assert exported["cost"]["total_cost"] == pytest.approx(expected, rel=1e-9)
            assert row.cost == pytest.approx(expected, rel=1e-9)
        summary: dict[str, Any] = json.loads((folder / "scenario_results.json").read_text(
            encoding="utf-8"))
        assert summary["cases_with_unknown_cost"] == 0
        assert summary["input_tokens"] == sum(
            c.response_json["usage"]["prompt_tokens"] for c in exchanges)
        return summary
    finally:
        store.close()


def run_and_check(peer: AthenaPeer, proxy: RecordingProxy, scenario: Path, path: str,
                  tmp_path: Path, *extra: str, graded: bool = True,
                  through_manager: bool = False) -> tuple[dict[str, Any], str]:
    before = len(peer.standin.completions)
    results, out = run(peer, scenario, proxy.url + path, tmp_path, *extra, graded=graded)
    posts = [r for r in proxy.take() if r.method == "POST"]
    summary = check_run(peer, results, scenario, posts, peer.standin.completions[before:],
                        graded=graded, through_manager=through_manager)
    return summary, out


def test_example_scenario_stored_as_sent_and_chosen_and_metered(
        athena_current: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    proxy = recording_proxy(module_base(athena_current))
    summary, out = run_and_check(athena_current, proxy, EXAMPLE, "/feedback_suggestions",
                                 tmp_path)
    assert summary["total_cases"] == len(list((EXAMPLE / "test_cases").glob("*.json")))
    # this version names an instruction on every item: the SGI scores measure something
    assert summary["feedback_items"] == summary["feedback_items_naming_an_instruction"] > 0
    assert "every case's calls exactly (14 case(s)" in " ".join(out.split())
    assert "SGI scores measure nothing" not in out


@pytest.mark.skipif(not BPMN_LOAN.is_dir(), reason="../shared/conformance bpmn_loan not present")
def test_bpmn_loan_subset_stored_as_sent_and_chosen_and_metered(
        athena_current: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    proxy = recording_proxy(module_base(athena_current))
    selection = [arg for case in BPMN_CASES for arg in ("--case", case)]
    summary, _ = run_and_check(athena_current, proxy, BPMN_LOAN, "/feedback_suggestions",
                               tmp_path, *selection)
    assert summary["total_cases"] == len(BPMN_CASES)


def test_ungraded_requests_take_a_second_call_and_cost_it(
        athena_current: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    proxy = recording_proxy(module_base(athena_current))
    _, out = run_and_check(athena_current, proxy, EXAMPLE, "/feedback_suggestions", tmp_path,
                           "--max-cases", "4", graded=False)
    assert "(4 case(s), one request in flight at a time): 8 call(s)" in " ".join(out.split())


def test_unmetered_the_cost_is_unknown_everywhere(
        athena_current: AthenaPeer, tmp_path: Path) -> None:
    results, out = run(athena_current, EXAMPLE, athena_current.module_url, tmp_path,
                       "--max-cases", "3", metered=False)
    folder = case_folder(results, EXAMPLE)
    summary = json.loads((folder / "scenario_results.json").read_text(encoding="utf-8"))
    assert (summary["total_cost"], summary["cases_with_unknown_cost"]) == (None, 3)
    for path in (folder / "test_cases").glob("*.json"):
        cost = json.loads(path.read_text(encoding="utf-8"))["cost"]
        assert cost["total_cost"] is None and "metered" not in cost
    with (folder / "tables" / "test_case_results.csv").open(encoding="utf-8") as f:
        assert [r[5] for r in list(csv.reader(f))[1:]] == ["", "", ""]
    with (folder / "tables" / "scenario_summary.csv").open(encoding="utf-8") as f:
        metrics = dict(list(csv.reader(f))[1:])
    assert (metrics["Total Cost"], metrics["Cases With Unknown Cost"]) == ("", "3")
    assert "reported no token usage on 3 of 3 scored case(s)" in " ".join(out.split())


def test_concurrent_requests_totals_exact_and_attribution_said(
        athena_current: AthenaPeer, tmp_path: Path) -> None:
    peer = athena_current
    before = usage_page(peer)["last_seq"]
    results, out = run(peer, EXAMPLE, peer.module_url, tmp_path, "--concurrency", "4")
    made = [c for c in usage_page(peer)["calls"] if c["seq"] > before]
    assert len(made) == 14
    store = RunStore(results / "eunomia.db")
    try:
        rows = list(store.iter_cases(store.require_run("x")))
    finally:
        store.close()
    folder = case_folder(results, EXAMPLE)
    given: list[int] = []
    methods = set()
    for row in rows:
        metered = json.loads((folder / "test_cases" / f"{row.case_name}.json").read_text(
            encoding="utf-8"))["cost"]["metered"]
        given += [c["seq"] for c in metered["calls"]]
        methods.add(metered["attribution"])
    # every call given to exactly one case: the run's totals are exact
    assert sorted(given) == sorted(c["seq"] for c in made)
    assert sum(r.input_tokens or 0 for r in rows) == sum(c["input_tokens"] for c in made)
    flat = " ".join(out.split())
    if "overlap" in methods:
        assert "by overlap (several requests in flight" in flat
    else:  # the requests happened not to overlap
        assert "every case's calls exactly" in flat


def test_through_the_module_manager(
        athena_current: AthenaPeer, recording_proxy: Callable[[str], RecordingProxy],
        tmp_path: Path) -> None:
    if athena_current.manager_url is None:
        pytest.skip(f"the module manager did not start here:\n{athena_current.manager_problem}")
    base, _, path = athena_current.manager_url.partition("/modules/")
    proxy = recording_proxy(base)
    summary, _ = run_and_check(athena_current, proxy, EXAMPLE, "/modules/" + path, tmp_path,
                               "--x-server-url", LMS_DEPLOYMENT, "--max-cases", "3",
                               through_manager=True)
    assert summary["total_cases"] == 3


def test_facts_about_the_current_version(athena_current: AthenaPeer) -> None:
    peer = athena_current
    auth = {"Authorization": peer.secret, "X-Server-URL": "http://localhost"}
    # What the module asks its LLM: json_object, the output schema in the prompt.
    before = len(peer.standin.completions)
    status, answer = post(peer.module_url, example_request(920_001, 920_001), auth)
    assert status == 200, answer
    [call] = peer.standin.completions[before:]
    request = call.request_json
    assert request["response_format"] == {"type": "json_object"}
    assert request["model"] == ANSWER_MODEL
    # up to 4,000 answer tokens, asked as max_completion_tokens (the legacy module: max_tokens
    # 1,000)
    assert (request.get("max_completion_tokens"), request.get("max_tokens")) == (4000, None)
    system = request["messages"][0]["content"]
    assert '"element_name"' in system and '"element_names"' not in system
    # It returns the instruction ids the LLM chose, and no usage.
    assert answer["meta"] == {}
    assert [i["structuredGradingInstructionId"] for i in answer["data"]] == [
        f["grading_instruction_id"] for f in llm_items(call)]
    # Credits are clamped at 0; an id that is not the exercise's is dropped.
    peer.standin.content_override = lambda _: json.dumps({"feedbacks": [
        {"title": "t", "description": "d", "element_name": None, "credits": -2.5,
         "grading_instruction_id": 1},
        {"title": "u", "description": "e", "element_name": "Nowhere", "credits": 1.5,
         "grading_instruction_id": 999}]})
    try:
        status, answer = post(peer.module_url, example_request(920_001, 920_002), auth)
    finally:
        peer.standin.content_override = None
    assert status == 200
    first, second = answer["data"]
    assert (first["credits"], first["structuredGradingInstructionId"]) == (0.0, 1)
    assert (second["credits"], second["structuredGradingInstructionId"]) == (1.5, None)
    assert second["elementIds"] == [] and second["reference"] is None
    # Ungraded: a second call rewrites the feedback for students.
    before = len(peer.standin.completions)
    request_body = example_request(920_001, 920_003)
    request_body["isGraded"] = False
    status, answer = post(peer.module_url, request_body, auth)
    assert status == 200
    assert [c.kind for c in peer.standin.completions[before:]] == ["feedback", "filter"]
    assert all(i["description"].startswith(FILTER_PREFIX) for i in answer["data"])
    assert {i["isGraded"] for i in answer["data"]} == {False}
    # Its usage callback fails on every call: why the module reports nothing.
    log = (peer.run_dir / "module.log").read_text(errors="replace")
    assert "KeyError('usage_metadata')" in log
    # The script wrote every model entry of llm_config.yml for the served model.
    config = yaml.safe_load((peer.run_dir / "module" / "llm_config.yml").read_text())
    assert set(config["models"].values()) == {f"openai_{ANSWER_MODEL}"}
    assert len(config["models"]) == 4
