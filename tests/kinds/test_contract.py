"""The kind contract: a new kind implements its plan, its per-case work and its summary; the
engine runs it, and the CI records, the HTML report, comparisons and the terminal fall back
to the neutral case record.

The kind here is a test's own (``echo``: each case's answer is its own name, scored by its
length); everything it runs through is the product's: the engine, the store, the report's
data, the comparison.
"""

from __future__ import annotations

import io
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console

from eunomia.compare import compare_runs
from eunomia.errors import EunomiaError
from eunomia.kinds import (
    DoneKeys,
    Exported,
    Finished,
    Kind,
    NoFacts,
    Part,
    Plan,
    RunContext,
    Selection,
    TargetRun,
)
from eunomia.report import Columns, LeaderboardRow
from eunomia.report.html import build_run_report
from eunomia.run import RunReport, run_evaluation
from eunomia.scheduler import RunOptions
from eunomia.stats import bootstrap_mean_ci
from eunomia.store import CaseRow, RunInfo, RunStore, now

CASES = ("a", "bb", "ccc", "boom")
"""``boom`` fails: its target fails after its retries."""


@dataclass(frozen=True)
class EchoSummary:
    target: str
    scores: tuple[float, ...]
    failed: int


class EchoKind(Kind[EchoSummary]):
    name = "echo"
    title = "echo check"
    command = "echo"
    columns = Columns("System", "Length (95% CI)", 1, "Cost", "-", detection=False)
    score_scale = "characters"

    def export(self, store: RunStore, run: RunInfo,
               results_dir: Path) -> list[Exported[EchoSummary]]:
        out = []
        for target in run.targets:
            rows = list(store.iter_cases(run, None, target))
            summary = EchoSummary(target, tuple(r.score for r in rows if r.score is not None),
                                  sum(r.status != "scored" for r in rows))
            out.append(Exported(target, results_dir / run.name / target, summary,
                                failed=summary.failed))
        return out

    def leaderboard_row(self, target: str,
                        exported: Sequence[Exported[EchoSummary]]) -> LeaderboardRow:
        s = exported[0].summary
        return LeaderboardRow(target, len(s.scores) + s.failed, s.failed,
                              bootstrap_mean_ci(list(s.scores)), None, None, None, None)


ECHO = EchoKind()


@dataclass(frozen=True)
class Job:
    case: str
    repeat: int


class EchoTarget(TargetRun[Job, str]):
    def __init__(self, name: str, boost: float) -> None:
        super().__init__(name, 2)
        self.boost = boost

    def parts(self, selection: Selection, repeats: int,
              done: DoneKeys) -> Iterator[Part[Job, str]]:
        jobs = [Job(c, r) for r in range(repeats) for c in CASES
                if selection.matches("words", c) and ("words", self.name, c, r) not in done]
        yield Part("words", iter(jobs), len(jobs))

    async def work(self, job: Job) -> Finished[str]:
        failed = job.case == "boom"
        return Finished(CaseRow(
            "words", self.name, job.case, job.repeat, "failed" if failed else "scored",
            "HTTP 503 after 4 attempts" if failed else None, 4 if failed else 1, 0.01, False,
            None if failed else len(job.case) * self.boost, 3, 5, None, None, None, now()),
            item=job.case, requests=4 if failed else 1)


@dataclass
class EchoPlan(Plan[Job, str, EchoSummary]):
    boosts: dict[str, float]

    @property
    def kind(self) -> EchoKind:
        return ECHO

    @property
    def targets(self) -> list[str]:
        return list(self.boosts)

    def snapshot(self, store: RunStore, run: RunInfo) -> None:
        store.add_suite(run, "words", "words.txt", {"cases": list(CASES)}, {})

    @asynccontextmanager
    async def target(self, context: RunContext, name: str) -> AsyncIterator[EchoTarget]:
        yield EchoTarget(name, self.boosts[name])


async def _run(tmp_path: Path, name: str, boosts: dict[str, float]
               ) -> tuple[RunReport[EchoSummary], RunStore, RunInfo]:
    out = io.StringIO()
    report = await run_evaluation(EchoPlan(boosts), run_name=name, results_dir=tmp_path,
                                  options=RunOptions(2),
                                  console=Console(file=out, width=200))
    store = RunStore(report.store_path)
    return report, store, store.require_run(name)


async def test_a_new_kind_runs_through_the_engine_with_its_typed_summary(
        tmp_path: Path) -> None:
    report, store, run = await _run(tmp_path, "one", {"echo-1": 1.0})
    try:
        summary = report.summary
        assert summary is not None and summary.target == "echo-1"
        assert sorted(summary.scores) == [1.0, 2.0, 3.0] and summary.failed == 1
        assert report.failed_cases == 1 and report.requests_made == 3 + 4
        rows = {r.case_name: r for r in store.iter_cases(run)}
        assert rows["boom"].status == "failed" and rows["ccc"].score == 3.0
        assert (tmp_path / "one" / "run.json").is_file()
    finally:
        store.close()


async def test_the_defaults_fall_back_to_the_neutral_case_record(tmp_path: Path) -> None:
    _report, store, run = await _run(tmp_path, "two", {"echo-1": 1.0})
    try:
        records = {r.case: r for r in ECHO.case_records(store, run)}
        assert set(records) == set(CASES)
        good, bad = records["bb"], records["boom"]
        assert (good.passed, good.outcome, good.score, good.reason) == (True, "passed", 2.0,
                                                                         None)
        assert (bad.passed, bad.outcome, bad.attempts) == (False, "error", 4)
        assert bad.reason == "HTTP 503 after 4 attempts" and bad.kind == "echo"
        assert good.score_scale == "characters"
        with pytest.raises(EunomiaError, match="a case passes when it was scored"):
            list(ECHO.case_records(store, run, pass_score=3.0))
        assert not ECHO.owns(tmp_path) and ECHO.validate([tmp_path]).lines == []
        assert isinstance(ECHO.run_facts(store, run), NoFacts)
        assert ECHO.definition_changes("words", {"a": 1}, {"a": 1}) is None
        assert ECHO.definition_changes("words", {"a": 1}, {"a": 2}) == []
        out = io.StringIO()
        exported = ECHO.export(store, run, tmp_path)[0]
        ECHO.print_summary(Console(file=out, width=200), exported)
        text = out.getvalue()
        assert "echo-1: Length (95% CI) 2.0 [" in text and "1/4 failed" in text
    finally:
        store.close()


async def test_the_report_and_the_comparison_need_nothing_more(tmp_path: Path) -> None:
    _report, store, run = await _run(tmp_path, "pair", {"short": 1.0, "long": 2.0})
    try:
        page = build_run_report(store, run, ECHO)
        assert {(g.suite, g.target) for g in page.groups} == {("words", "short"),
                                                               ("words", "long")}
        # the neutral leaderboard: the cases' mean scores, best first, failures counted
        assert [r.target for r in page.leaderboard] == ["long", "short"]
        best = page.leaderboard[0]
        assert best.score is not None and best.score.estimate == pytest.approx(4.0)
        assert (best.cases, best.failed) == (4, 1)
        _again, store_b, run_b = await _run(tmp_path, "pair-b", {"short": 1.0, "long": 2.0})
        try:
            comparison = compare_runs(store, run, store_b, run_b, ECHO)
            assert comparison.verdict.kind == "no_significant_change"
        finally:
            store_b.close()
    finally:
        store.close()
