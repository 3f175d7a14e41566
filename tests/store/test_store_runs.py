"""Run store, response cache, resume, store-backed exports, repeats and matrix runs."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from tests.support.scripted_server import (
    RecordedRequest,
    Reply,
    ScriptedServer,
    feedback_reply,
    usage,
)

from eunomia.api import RunOptions, RunReport, load_all, run_scenarios
from eunomia.kinds.scenarios import leaderboard
from eunomia.run import export_run
from eunomia.scenarios import Scenario, discover
from eunomia.scheduler import RetryPolicy
from eunomia.store import RunStore
from eunomia.targets.athena import AthenaTarget

FAST = RunOptions(4, RetryPolicy(retries=1, timeout_s=5, backoff_initial_s=0.001,
                                 backoff_max_s=0.002))


def _loaded(scenarios: Path) -> Any:
    sources, problems = discover([scenarios])
    assert not problems
    loaded, _ = load_all(sources)
    return loaded


def _expected_reply(scenario: Scenario, model: str = "gpt-4o") -> Any:
    by_sid = {c.submission_id: c.expected for c in scenario.test_cases}

    def reply(req: RecordedRequest) -> Reply:
        sid = req.submission_id
        assert sid is not None
        return feedback_reply(by_sid[sid], llm_requests=[usage(model, 1000, 100)])

    return reply


async def _run(loaded: Any, url: str, results: Path, name: str, **kw: Any) -> RunReport:
    return await run_scenarios(loaded, AthenaTarget(url), run_name=name, results_dir=results,
                               options=kw.pop("options", FAST), **kw)


def _rows(path: Path) -> list[list[str]]:
    with path.open(newline="", encoding="utf-8") as fh:
        return list(csv.reader(fh))


def _without_timing(rows: list[list[str]]) -> list[list[str]]:
    header = rows[0]
    drop = {header.index("Request Time (s)")}
    return [[v for i, v in enumerate(r) if i not in drop] for r in rows]


async def test_unchanged_rerun_is_answered_from_the_cache(
    examples_copy: Path, tmp_path: Path
) -> None:
    loaded = _loaded(examples_copy)
    server = ScriptedServer(default=_expected_reply(loaded[0].scenario))
    async with server:
        first = await _run(loaded, server.url, tmp_path / "res", "first")
        assert len(server.requests) == 14 and first.cache_hits == 0
        # With --cache (Athena's answers are reused across runs only when asked), and
        # operational settings differing: still the same answers, so still cached.
        other = RunOptions(2, RetryPolicy(retries=0, timeout_s=1))
        second = await _run(loaded, server.url, tmp_path / "res", "second", options=other,
                            cache_systems=True)
        assert len(server.requests) == 14  # not one more request
        assert second.cache_hits == 14 and second.requests_made == 0
        third = await _run(loaded, server.url, tmp_path / "res", "third", use_cache=False)
        assert len(server.requests) == 28 and third.cache_hits == 0
        # By default a new run asks the module again: it may have changed behind its URL.
        fourth = await _run(loaded, server.url, tmp_path / "res", "fourth")
        assert len(server.requests) == 42 and fourth.cache_hits == 0
    a = _rows(tmp_path / "res/first/project_management/tables/test_case_results.csv")
    b = _rows(tmp_path / "res/second/project_management/tables/test_case_results.csv")
    assert _without_timing(a) == _without_timing(b)
    case = json.loads((tmp_path / "res/second/project_management/test_cases/"
                       "extra_class.json").read_text())
    assert case["cached"] is True and case["attempts"] == 0


async def test_the_cache_key_contains_the_repeat_index(
    examples_copy: Path, tmp_path: Path
) -> None:
    loaded = _loaded(examples_copy)
    server = ScriptedServer(default=_expected_reply(loaded[0].scenario))
    async with server:
        report = await _run(loaded, server.url, tmp_path / "res", "rep", repeats=2)
    assert len(server.requests) == 28 and report.cache_hits == 0
    rows = _rows(tmp_path / "res/rep/project_management/tables/test_case_results.csv")
    assert len(rows) == 1 + 28
    repeat = rows[0].index("Repeat")
    assert sorted({r[repeat] for r in rows[1:]}) == ["0", "1"]


async def test_resume_requests_only_what_is_missing(examples_copy: Path, tmp_path: Path) -> None:
    loaded = _loaded(examples_copy)
    scenario = loaded[0].scenario
    good = _expected_reply(scenario)
    broken = {c.submission_id for c in scenario.test_cases[:3]}

    def flaky(req: RecordedRequest) -> Reply:
        return Reply(500, {"error": "down"}) if req.submission_id in broken else good(req)

    server = ScriptedServer(default=flaky)
    async with server:
        first = await _run(loaded, server.url, tmp_path / "res", "r")
        assert first.failed_cases == 3
        made = len(server.requests)
        assert made == 11 + 3  # a 500 is not retried unless asked (--retry-500)
        # Resuming without --retry-failed: every case is stored, nothing is asked again.
        again = await _run(loaded, server.url, tmp_path / "res", "r", resume=True)
        assert len(server.requests) == made and again.failed_cases == 3
        server.default = good
        fixed = await _run(loaded, server.url, tmp_path / "res", "r", resume=True,
                           retry_failed=True)
        assert len(server.requests) == made + 3
        assert fixed.failed_cases == 0
    asked = [r.submission_id for r in server.requests[made:]]
    assert sorted(asked) == sorted(broken)
    db = RunStore(tmp_path / "res" / "eunomia.db")
    try:
        run = db.require_run("r")
        assert run.status == "complete"
        assert db.run_totals(run).cases == 14 and db.run_totals(run).failed == 0
    finally:
        db.close()


async def test_a_run_name_cannot_be_reused_without_resume(
    examples_copy: Path, tmp_path: Path
) -> None:
    from eunomia.errors import EunomiaError

    loaded = _loaded(examples_copy)
    server = ScriptedServer(default=_expected_reply(loaded[0].scenario))
    async with server:
        await _run(loaded, server.url, tmp_path / "res", "same")
        with pytest.raises(EunomiaError, match="already exists"):
            await _run(loaded, server.url, tmp_path / "res", "same")


async def test_files_are_exports_of_the_store(examples_copy: Path, tmp_path: Path) -> None:
    loaded = _loaded(examples_copy)
    server = ScriptedServer(default=_expected_reply(loaded[0].scenario))
    async with server:
        await _run(loaded, server.url, tmp_path / "res", "x")
    folder = tmp_path / "res" / "x" / "project_management"
    before = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    shutil.rmtree(folder)
    # The scenario files on disk change after the run: the export uses the stored snapshot.
    (examples_copy / "project_management" / "manifest.yml").write_text("garbage: [")
    db = RunStore(tmp_path / "res" / "eunomia.db")
    try:
        exported = export_run(db, db.require_run("x"), tmp_path / "res")
    finally:
        db.close()
    after = {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    assert after == before
    assert exported[0].summary.total == 14 and exported[0].summary.fully_correct == 14


async def test_repeats_show_where_feedback_is_inconsistent(
    examples_copy: Path, tmp_path: Path
) -> None:
    loaded = _loaded(examples_copy)
    scenario = loaded[0].scenario
    good = _expected_reply(scenario)
    wobbly = next(c for c in scenario.test_cases if c.name == "extra_class")
    other = [i for i in wobbly.expected if scenario.instructions[i].textual_id != "extras_present"]
    no_extras = scenario.by_textual_id["no_extras"].id
    calls = {"n": 0}

    def reply(req: RecordedRequest) -> Reply:
        if req.submission_id != wobbly.submission_id:
            return good(req)
        calls["n"] += 1  # repeats 0 and 2 right, repeat 1 misses the extra class
        return good(req) if calls["n"] != 2 else feedback_reply([*other, no_extras])

    server = ScriptedServer(default=reply)
    async with server:
        report = await _run(loaded, server.url, tmp_path / "res", "rep",
                            repeats=3, options=RunOptions(1, FAST.policy))
    consistency = report.exported[0].consistency
    assert consistency is not None
    assert consistency.consistent_cases == 13
    (unstable,) = consistency.inconsistent
    assert unstable.case == "extra_class" and unstable.repeats == 3
    extras = scenario.by_textual_id["extras_present"].id
    assert unstable.instruction_share[extras] == pytest.approx(2 / 3)
    assert unstable.instruction_share[no_extras] == pytest.approx(1 / 3)
    # 7 criteria: only "extras" flips (twice in 2 transitions) -> mean flip rate 1/7
    assert unstable.flip_rate == pytest.approx(1 / 7)
    assert consistency.fleiss_kappa is not None and consistency.fleiss_kappa < 1.0
    rows = _rows(tmp_path / "res/rep/project_management/tables/consistency.csv")
    row = next(r for r in rows if r[0] == "extra_class")
    assert row[3] == "No" and "extras_present 67%" in row[-1] and "no_extras 33%" in row[-1]
    data = json.loads((tmp_path / "res/rep/project_management/scenario_results.json")
                      .read_text())
    assert data["consistency"]["consistent_cases"] == 13


async def test_matrix_run_gives_a_leaderboard_with_the_pareto_front(
    examples_copy: Path, tmp_path: Path
) -> None:
    loaded = _loaded(examples_copy)
    scenario = loaded[0].scenario
    perfect = _expected_reply(scenario, model="gpt-4o")          # best, expensive
    silent = feedback_reply([], llm_requests=[usage("gpt-4o-mini", 10, 1)])  # cheap, poor

    def poor_and_pricey(req: RecordedRequest) -> Reply:
        return feedback_reply([], llm_requests=[usage("gpt-4o", 5000, 500)])

    servers = [ScriptedServer(default=perfect), ScriptedServer(default=silent),
               ScriptedServer(default=poor_and_pricey)]
    for s in servers:
        await s.start()
    try:
        targets = [AthenaTarget(s.url) for s in servers]
        report = await run_scenarios(loaded, targets, run_name="m", results_dir=tmp_path,
                                     options=FAST)
    finally:
        for s in servers:
            await s.close()
    assert {e.target for e in report.exported} == {t.name for t in targets}
    rows = leaderboard([(t.name, [e.summary for e in report.exported if e.target == t.name], [])
                        for t in targets])
    assert rows[0].target == targets[0].name
    by_name = {r.target: r for r in rows}
    assert by_name[targets[0].name].score is not None
    assert by_name[targets[0].name].score.estimate == pytest.approx(100.0)
    assert by_name[targets[0].name].pareto and by_name[targets[1].name].pareto
    assert not by_name[targets[2].name].pareto  # worse and dearer than the silent one
    assert len(list((tmp_path / "m").glob("*/project_management/tables"))) == 3
