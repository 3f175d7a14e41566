"""Comparing judged task runs (kind ``tasks``) from the stored case rows alone.

The runs are written straight through :class:`RunStore`: a case ``score`` is the judge
mean (0-5); there is no detection and no criteria. Every number is worked out by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from eunomia.compare import Comparison, comparison_to_json
from eunomia.errors import EunomiaError
from eunomia.report._compare_terminal import print_comparison
from eunomia.stats import paired_bootstrap, sign_flip_p
from eunomia.store import CaseRow, RunInfo, RunStore, now
from eunomia.viewer import compare_stored as compare_runs

SUITE = "summaries"


def _row(case: str, score: float | None, *, target: str = "judge:m1", repeat: int = 0,
         status: str = "scored", cost: float | None = 0.01, latency: float | None = 1.0,
         error: str | None = None) -> CaseRow:
    return CaseRow(suite=SUITE, target=target, case_name=case, repeat=repeat, status=status,
                   error=error, attempts=1, latency_s=latency, cached=False, score=score,
                   input_tokens=100, output_tokens=10, cost=cost, request=None, response=None,
                   finished=now())


def _run(db: RunStore, name: str, rows: list[CaseRow], *, target: str = "judge:m1",
         definition: object = None, repeats: int = 1) -> RunInfo:
    run = db.create_run(name, "tasks", [target], {"repeats": repeats})
    db.add_suite(run, SUITE, "tasks/summaries", definition or {"tasks": ["t1"]}, {})
    for row in rows:
        db.record_case(run, row)
    db.set_run_status(run, "complete")
    return db.require_run(name)


@pytest.fixture
def db(tmp_path: Path) -> Iterator[RunStore]:
    store = RunStore(tmp_path / "eunomia.db")
    yield store
    store.close()


# A: twelve cases judged 4.0 (c00 judged 4 and 2 over two repeats: mean 3.0),
# c_fail scored, c_fix failed, c_only_a only in A.
# B (another model): the twelve cases judged 3.0 except c00 (3.0: unchanged) and
# c01 (4.5: better); c_fail failed, c_fix scored 5, c_only_b only in B.
def _a_rows() -> list[CaseRow]:
    rows = [_row("c00", 4.0), _row("c00", 2.0, repeat=1)]
    rows += [_row(f"c{i:02d}", 4.0) for i in range(1, 12)]
    rows += [_row("c_fail", 3.0), _row("c_fix", None, status="failed", error="judge timeout"),
             _row("c_only_a", 4.0)]
    return rows


def _b_rows(target: str = "judge:m2") -> list[CaseRow]:
    rows = [_row("c00", 3.0, target=target), _row("c01", 4.5, target=target, latency=2.0)]
    rows += [_row(f"c{i:02d}", 3.0, target=target, cost=0.002, latency=2.0)
             for i in range(2, 12)]
    rows += [_row("c_fail", None, target=target, status="failed", error="HTTP 429"),
             _row("c_fix", 5.0, target=target), _row("c_only_b", 1.0, target=target)]
    return rows


@pytest.fixture
def tasks(db: RunStore) -> Comparison:
    a = _run(db, "ta", _a_rows(), repeats=2)
    b = _run(db, "tb", _b_rows(), target="judge:m2", definition={"tasks": ["t1", "t2"]})
    return compare_runs(db, a, db, b)


def test_cases_are_classified_from_rows(tasks: Comparison) -> None:
    kinds = {c.case: c.change for c in tasks.cases}
    assert kinds["c00"] == "unchanged"  # mean of the repeats (4 + 2) / 2 = 3.0 vs 3.0
    assert kinds["c01"] == "improved"
    assert {k for n, k in kinds.items() if n[1:].isdigit() and int(n[1:]) >= 2} == {"regressed"}
    assert (kinds["c_fail"], kinds["c_fix"]) == ("newly_failed", "fixed")
    assert (kinds["c_only_a"], kinds["c_only_b"]) == ("only_in_a", "only_in_b")
    c00 = next(c for c in tasks.cases if c.case == "c00")
    assert (c00.a_score, c00.a_repeats, c00.b_repeats) == (3.0, 2, 1)
    assert c00.a_detected is None and c00.criteria_changes == ()
    fixed = next(c for c in tasks.cases if c.case == "c_fix")
    assert (fixed.a_status, fixed.a_error, fixed.b_score) == ("failed", "judge timeout", 5.0)
    assert next(c for c in tasks.cases if c.case == "c_fail").b_error == "HTTP 429"


def test_score_delta_is_bootstrapped(tasks: Comparison) -> None:
    score = tasks.overall.score
    assert score.label == "Judge score (0-5)" and score.unit == "score"
    # pairs scored on both sides: c00 (3 -> 3), c01 (4 -> 4.5), c02..c11 (4 -> 3)
    a = [3.0, 4.0] + [4.0] * 10
    b = [3.0, 4.5] + [3.0] * 10
    assert score.n == 12
    assert (score.a, score.b) == pytest.approx((sum(a) / 12, sum(b) / 12))
    assert score.delta == pytest.approx((0.5 - 10) / 12)
    ref = paired_bootstrap(a, b)
    assert ref is not None and (score.low, score.high) == pytest.approx((ref.low, ref.high))
    assert score.p_value == pytest.approx(sign_flip_p(a, b))  # exact: 11 non-zero pairs
    assert score.p_value is not None and score.p_value < 0.05 and score.significant
    assert tasks.overall.detection is None and tasks.overall.fully_correct is None
    assert tasks.criteria == ()


def test_failures_cost_and_latency(tasks: Comparison) -> None:
    o = tasks.overall
    assert o.paired_cases == 14 and o.scored_both == 12
    # failed repeats over the 14 paired cases: c_fix in A; c_fail in B
    assert (o.failures.a, o.failures.b, o.failures.regressions, o.failures.fixes) == (1, 1, 1, 1)
    # A: 15 rows of the paired cases at 0.01; B: 14 rows, ten of them at 0.002
    assert o.cost_total.a == pytest.approx(15 * 0.01)
    assert o.cost_total.b == pytest.approx(4 * 0.01 + 10 * 0.002)
    assert o.latency_mean.delta == pytest.approx(11 / 14)  # eleven cases 1 s -> 2 s
    assert (o.latency_p50.a, o.latency_p50.b) == (1.0, 2.0)


def test_verdict_and_warnings(tasks: Comparison) -> None:
    assert tasks.verdict.regression
    assert [s.kind for s in tasks.verdict.signals] == ["score", "new_failures"]
    assert "1 case(s) only in A, not compared: summaries/c_only_a" in tasks.warnings
    assert "1 case(s) only in B, not compared: summaries/c_only_b" in tasks.warnings
    assert any(w.startswith("suite 'summaries' is defined differently in A and B")
               for w in tasks.warnings)
    assert any("different repeats (A: 2, B: 1)" in w for w in tasks.warnings)
    assert tasks.matching.startswith("cases paired by (suite, case) across targets: judge:m1")
    assert comparison_to_json(tasks)["overall"]["metrics"]["score"]["unit"] == "score"
    console = Console(record=True, width=160, color_system=None)
    print_comparison(console, tasks)
    text = console.export_text()
    assert "Judge score (0-5)" in text and "Criteria" not in text
    assert "judge timeout" in text and "HTTP 429" in text
    assert "failed in A: judge timeout" in text  # the fixed case
    regressed = text.split("Regressed (10)")[1].split("Newly failed")[0]
    assert "c02" in regressed and "What changed" not in regressed  # no criteria in tasks
    assert "1 only in A, 1 only in B" in text


def test_tolerated_failures_and_same_definition(db: RunStore) -> None:
    a = _run(db, "ta", _a_rows())
    b = _run(db, "tb", _b_rows(target="judge:m1"))
    c = compare_runs(db, a, db, b, max_new_failures=1)
    assert [s.kind for s in c.verdict.signals] == ["score"]
    assert not any("defined differently" in w for w in c.warnings)
    assert c.matching == "cases paired by (suite, case) on target judge:m1"


def test_several_targets_pair_by_name(db: RunStore) -> None:
    a = db.create_run("multi_a", "tasks", ["m1", "m2"], {})
    b = db.create_run("multi_b", "tasks", ["m2", "m3"], {})
    for run, target, score in ((a, "m1", 1.0), (a, "m2", 2.0), (b, "m2", 4.0), (b, "m3", 5.0)):
        for i in range(3):
            db.record_case(run, _row(f"c{i}", score, target=target))
    c = compare_runs(db, db.require_run("multi_a"), db, db.require_run("multi_b"))
    assert {x.target for x in c.cases} == {"m2"}
    assert all(x.delta == 2.0 for x in c.cases)
    assert "target(s) only in A, not compared: m1" in c.warnings
    assert "target(s) only in B, not compared: m3" in c.warnings
    one = compare_runs(db, db.require_run("multi_a"), db, db.require_run("multi_b"),
                       target_a="m1", target_b="m3")
    assert all(x.delta == 4.0 and x.target == "m1 -> m3" for x in one.cases)


def test_runs_that_cannot_be_compared(db: RunStore) -> None:
    a = _run(db, "ta", _a_rows())
    scen = db.create_run("s", "scenarios", ["x"], {})
    with pytest.raises(EunomiaError, match="cannot compare a tasks run"):
        compare_runs(db, a, db, scen)
    other = db.create_run("other", "tasks", ["judge:m1"], {})
    db.record_case(other, CaseRow("elsewhere", "judge:m1", "z", 0, "scored", None, 1, None,
                                  False, 1.0, 0, 0, None, None, None, now()))
    with pytest.raises(EunomiaError, match="no case in common"):
        compare_runs(db, a, db, db.require_run("other"))
    with pytest.raises(EunomiaError, match="allowed new failures"):
        compare_runs(db, a, db, a, max_new_failures=-1)


NO_SCORE = "no checks and --judge none"


def _unscored_runs(db: RunStore, *, max_new_failures: int = 0) -> Comparison:
    """A: twelve cases scored 3.0. B: the same model, ten scored 3.0, u1 unscored in both
    repeats, f1 failed in one repeat and unscored in the other (a failure: not every repeat
    was unscored), and w0 unscored in A and scored in B."""
    a_rows = [_row(f"c{i:02d}", 3.0) for i in range(10)]
    a_rows += [_row("u1", 4.0), _row("f1", 4.0),
               _row("w0", None, status="unscored", error=NO_SCORE)]
    b_rows = [_row(f"c{i:02d}", 3.0, repeat=r) for i in range(10) for r in (0, 1)]
    b_rows += [_row("u1", None, status="unscored", error=NO_SCORE, repeat=r) for r in (0, 1)]
    b_rows += [_row("f1", None, status="failed", error="HTTP 500"),
               _row("f1", None, status="unscored", error=NO_SCORE, repeat=1)]
    b_rows += [_row("w0", 2.0, repeat=r) for r in (0, 1)]
    a = _run(db, "ua", a_rows)
    b = _run(db, "ub", b_rows, repeats=2)
    return compare_runs(db, a, db, b, max_new_failures=max_new_failures)


def test_unscored_in_b_is_its_own_change_and_a_warning(db: RunStore) -> None:
    c = _unscored_runs(db, max_new_failures=1)
    kinds = {x.case: x.change for x in c.cases}
    assert (kinds["u1"], kinds["f1"], kinds["w0"]) == ("newly_unscored", "newly_failed",
                                                       "newly_scored")
    counts = c.counts()
    assert (counts["newly_unscored"], counts["newly_failed"], counts["newly_scored"],
            counts["fixed"], counts["unchanged"]) == (1, 1, 1, 0, 10)
    # the failures metric agrees: f1 is the one newly failed case, u1 is not one
    assert (c.overall.failures.regressions, c.overall.failures.fixes) == (1, 0)
    assert c.overall.unscored is not None
    assert (c.overall.unscored.a, c.overall.unscored.b) == (1, 3)
    # one new failure is allowed: no regression, but the verdict warns of the unscored case
    assert not c.verdict.regression and c.verdict.kind == "no_significant_change"
    assert c.verdict.warned
    (signal,) = c.verdict.signals
    assert (signal.kind, signal.regression, signal.warning) == ("new_unscored", False, True)
    assert "1 case(s) scored in A could not be scored in B" in c.verdict.summary
    assert (f"1 case(s) scored in A are unscored in B, not failed ({NO_SCORE}); left out of "
            "the score test: summaries/u1") in c.warnings
    assert (f"1 case(s) scored in B are unscored in A, not failed ({NO_SCORE}); left out of "
            "the score test: summaries/w0") in c.warnings
    data = comparison_to_json(c)
    assert data["format"] == 2 and data["verdict"]["warning"] is True
    assert (data["counts"]["newly_unscored"], data["counts"]["newly_scored"]) == (1, 1)
    assert data["verdict"]["signals"][0]["warning"] is True
    console = Console(record=True, width=160, color_system=None)
    print_comparison(console, c)
    text = console.export_text()
    assert "1 newly failed, 1 newly unscored, 1 newly scored, 10 unchanged" in text
    unscored = text.split("Newly unscored (1)")[1].split("Newly scored")[0]
    assert "u1" in unscored and f"unscored (not failed): {NO_SCORE}" in unscored
    assert "f1" not in unscored and "HTTP 500" in text.split("Newly failed (1)")[1]
    assert "unscored in A: " + NO_SCORE in text.split("Newly scored (1)")[1]


def test_a_newly_unscored_case_never_fails_the_gate(db: RunStore) -> None:
    c = _unscored_runs(db)  # no new failure allowed: f1 is a regression, u1 never is
    assert c.verdict.regression
    assert [(s.kind, s.regression) for s in c.verdict.signals] == [
        ("new_failures", True), ("new_unscored", False)]
    assert "1 case(s) scored in A failed in B" in c.verdict.summary
    assert "could not be scored in B" in c.verdict.summary
