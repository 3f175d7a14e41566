"""Runs for the report and viewer tests, made once per session.

The example scenario is run through :func:`eunomia.api.run_scenarios` against the
scripted Athena stand-in, whose feedback carries script injections, and one test case
has a diagram element named like an HTML tag. A judged-tasks run is written through
:class:`RunStore` directly.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from tests.support.scripted_server import (
    Reply,
    ScriptedServer,
    case_names,
    feedback_item,
    usage,
)

from eunomia.api import RunOptions, load_all, run_scenarios
from eunomia.scenarios import discover
from eunomia.scheduler import RetryPolicy
from eunomia.store import CaseRow, RunStore, now
from eunomia.targets.athena import AthenaTarget

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "scenarios"
FAST = RetryPolicy(retries=1, timeout_s=5.0, backoff_initial_s=0.01, backoff_max_s=0.02)

SCRIPT_XSS = "<script>window.__pwned=1</script>"
IMG_XSS = '<img src=x onerror="window.__pwned=1">'
ELEMENT_XSS = "<img src=x onerror=window.__pwned=1>"
"""The name given to a class of one submission."""
XSS_CASE = "missing_task_class"
"""The test case whose diagram carries ELEMENT_XSS."""

PROJECT = "c466bb1c-d5ec-5e96-a653-d603ced7b9d8"
TASK = "31e48ded-b2d9-57d3-8627-481ca11ee347"
TEAM = "77aa766e-61dd-5038-b40e-88ae1d851216"
"""The class named ELEMENT_XSS in XSS_CASE."""
COMPOSITION = "fb9d21c1-a9a0-52c5-9883-de96b6f33a92"
"""Project to Task: a composition, or an association in some cases."""
BOGUS = "no-such-element"
ID_XSS = '"><script>window.__pwned=1</script>'
ELEMENTS: dict[int, list[str]] = {
    1: [PROJECT, TASK], 2: [TEAM, TASK], 3: [COMPOSITION], 4: [COMPOSITION], 5: [COMPOSITION],
    6: [TEAM], 8: [BOGUS, ID_XSS], 13: [COMPOSITION, PROJECT],
}
"""The elements (``elementIds``) each instruction's feedback names: Task is not in
XSS_CASE; BOGUS and ID_XSS are in no diagram."""

DEFAULT = [1, 3, 6, 8, 10, 12, 14]
GPT4O = usage("gpt-4o", 1000, 200)  # 0.0045 per case
MINI = usage("gpt-4o-mini", 2000, 500)  # 0.0006 per case


def evil_reply(sgi_ids: Sequence[int | None], *llm: dict[str, Any]) -> Reply:
    """A valid answer whose titles and descriptions are script injections; its items name
    the diagram elements of :data:`ELEMENTS`."""
    data = []
    for n, sgi in enumerate(sgi_ids, start=1):
        item = feedback_item(sgi, item_id=n, credits=1.0, description=f"{IMG_XSS} fb {sgi}")
        item["title"] = f"{SCRIPT_XSS} item {sgi}"
        item["elementIds"] = ELEMENTS.get(sgi or 0, [])
        data.append(item)
    return Reply(200, {"data": data, "meta": {"llmRequests": list(llm or [GPT4O])}})


# run r1 (2 repeats): two cases miss their point, one flips between repeats, one always fails
R1: dict[str, Any] = {
    "association_instead_of_composition": evil_reply(DEFAULT),  # 75 %
    "missing_task_class": evil_reply([2, 5, 7, 9, 12, 14], MINI),  # 83.3 %
    "composition_reversed": [evil_reply([1, 4, 6, 8, 10, 13, 14]),  # right, then wrong
                             evil_reply([1, 3, 6, 8, 10, 13, 14])],
    "extra_class": Reply(500, text="boom"),
}
# run r2 (1 repeat): the first miss is fixed, the failing case now answers
R2: dict[str, Any] = {
    "association_instead_of_composition": evil_reply([1, 5, 6, 8, 10, 12, 14]),
    "missing_task_class": evil_reply([2, 5, 7, 9, 12, 14], MINI),
    "composition_reversed": evil_reply([1, 3, 6, 8, 10, 13, 14]),
    "extra_class": evil_reply([1, 3, 6, 8, 10, 12, 15]),
}


@dataclass(frozen=True, slots=True)
class Runs:
    results: Path
    store: Path
    scenarios: Path


def _answer_as_expected(scenario: Any) -> Any:
    """Every case not scripted gets exactly its expected instructions."""
    by_sid = {c.submission_id: c.expected for c in scenario.test_cases}

    def answer(request: Any) -> Reply:
        return evil_reply(list(by_sid.get(request.submission_id, ())))

    return answer


def _poison_diagram(scenarios: Path) -> None:
    path = scenarios / "project_management" / "test_cases" / f"{XSS_CASE}.json"
    diagram = json.loads(path.read_text(encoding="utf-8"))
    team = next(e for e in diagram["elements"].values() if e["name"] == "TeamMember")
    team["name"] = ELEMENT_XSS
    path.write_text(json.dumps(diagram, indent=2), encoding="utf-8")


def _tasks_run(store_path: Path) -> None:
    store = RunStore(store_path)
    try:
        run = store.create_run("t1", "tasks", ["openai:gpt-4o-mini"], {"repeats": 1})
        store.add_suite(run, "qa_basics", "suites/qa_basics.yaml",
                        {"name": "qa_basics", "cases": ["capital", "sum"]}, {})
        rows = [("capital", "scored", 4.5, 0.8, 0.0012, None),
                ("sum", "scored", 2.0, 1.6, 0.0020, None),
                (SCRIPT_XSS, "failed", None, None, None, f"judge said {IMG_XSS}")]
        for name, status, score, latency, cost, error in rows:
            store.record_case(run, CaseRow(
                suite="qa_basics", target="openai:gpt-4o-mini", case_name=name, repeat=0,
                status=status, error=error, attempts=1, latency_s=latency, cached=False,
                score=score, input_tokens=100, output_tokens=50, cost=cost, request=None,
                response=None, finished=now()))
        store.set_run_status(run, "complete")
    finally:
        store.close()


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    base = tmp_path_factory.mktemp("report")
    scenarios = base / "scenarios"
    shutil.copytree(EXAMPLES, scenarios,
                    ignore=shutil.ignore_patterns("_generate.py", "__pycache__"))
    _poison_diagram(scenarios)
    results = base / "results"
    sources, _ = discover([scenarios])
    loaded, _ = load_all(sources)
    scenario = loaded[0].scenario
    server = ScriptedServer(default=_answer_as_expected(scenario), names=case_names(scenario))
    with server.in_thread():
        for name, script, repeats in (("r1", R1, 2), ("r2", R2, 1)):
            for case, replies in script.items():
                server.script(case, replies)
            asyncio.run(run_scenarios(
                loaded, AthenaTarget(server.url), run_name=name, results_dir=results,
                options=RunOptions(1, FAST), repeats=repeats, use_cache=False))
    store = results / "eunomia.db"
    _tasks_run(store)
    return Runs(results, store, scenarios)
