"""The summary of a task run built incrementally (:class:`SummaryBuilder`), one stored case
at a time, or from a list of records (:func:`summarize`).

Running counts and sums, and per case only small numbers in compact arrays (a case's mean
score for each of its groups, its scores across repeats, its speed figures), so memory does
not grow with what the cases hold. The intervals, agreements and fits are computed from
those arrays at the end, by the same functions and in the same order as from a list of
every case, so the figures are the same.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Iterator, Mapping
from statistics import fmean
from typing import Any

import numpy as np

from eunomia import defaults
from eunomia.kinds._task_suites import human_agreement
from eunomia.kinds.tasks._costs import ModelUse, Reported
from eunomia.kinds.tasks._figures import CaseFigures, case_figures
from eunomia.kinds.tasks._summary import (
    FAILURES_KEPT,
    GROUPINGS,
    Agreement,
    GroupStat,
    TasksSummary,
)
from eunomia.kinds.tasks._summary_rows import Repeats, SpeedRow, SpeedRows
from eunomia.pricing import PriceTable, TokenCount
from eunomia.stats import (
    bootstrap_mean_ci,
    icc,
    krippendorff_alpha,
    linear_fit,
    quantile,
    score_power,
)
from eunomia.stats._validate import FloatArray
from eunomia.tasks import CaseMeta, CaseRecord

_NAN = math.nan


def _group_values(suite: str, meta: CaseMeta | None) -> Iterator[tuple[str, str]]:
    if meta is None:
        yield "suite", suite
        return
    yield "kind", meta.kind
    yield "category", meta.group_category
    for sub in meta.sub_categories or ("(none)",):
        yield "sub_category", sub
    yield "difficulty", meta.difficulty
    yield "suite", suite


class _Group:
    """One group's running counts and its scored cases (rows of the builder's arrays of
    case means and weights: 4 bytes per case and group)."""

    __slots__ = ("cases", "checks_passed", "checks_total", "failed", "rows", "scored",
                 "unscored")

    def __init__(self) -> None:
        self.cases = self.scored = self.unscored = self.failed = 0
        self.checks_passed = self.checks_total = 0
        self.rows = array("i")

    def stat(self, grouping: str, value: str, means: FloatArray, weights: FloatArray
             ) -> GroupStat:
        opts: dict[str, Any] = {"confidence": defaults.CONFIDENCE,
                                "resamples": defaults.BOOTSTRAP_RESAMPLES,
                                "seed": defaults.BOOTSTRAP_SEED}
        rows = np.frombuffer(self.rows, dtype=np.dtype(f"i{self.rows.itemsize}")) \
            if self.rows else np.zeros(0, dtype=np.intp)
        values = means[rows]
        return GroupStat(
            grouping, value, cases=self.cases, scored=self.scored, unscored=self.unscored,
            failed=self.failed, mean=bootstrap_mean_ci(values, **opts),  # type: ignore[arg-type]
            weighted=bootstrap_mean_ci(values, weights[rows], **opts),  # type: ignore[arg-type]
            checks_passed=self.checks_passed, checks_total=self.checks_total,
        )


class SummaryBuilder:
    """A :class:`TasksSummary` built one stored case at a time (:meth:`add`, then
    :meth:`finish`).

    A case's records (its repeats) must come one after the other, as the run store gives
    them (ordered by suite, case, repeat); the figures are then those of :func:`summarize`
    on the list of every record. The intervals depend on that order (a bootstrap resamples
    the cases' means in the order they came), so an export feeds the records in the store's
    order whatever order it read them in: a record by its figures (:meth:`add_figures`),
    its answer apart (:meth:`answer`, whose counts do not depend on the order).
    ``repeats`` (1 + the highest repeat among the records that are not invalid), when
    known, spares keeping what ``--repeat`` > 1 needs.
    """

    def __init__(self, *, candidate: str, judge: str, weights: Mapping[str, float],
                 judge_repeats: int = 1, prices: PriceTable | None = None,
                 repeats: int | None = None) -> None:
        self.out = TasksSummary(candidate, judge, dict(weights))
        self._weights = weights
        self._judge_repeats = judge_repeats
        self._prices = prices
        self._overall = _Group()
        self._groups: dict[str, dict[str, _Group]] = {g: {} for g in GROUPINGS}
        self._key: tuple[str, str] | None = None
        self._case_groups: list[_Group] = []
        self._case_scores: list[float] = []
        self._case_weight = 1.0
        self._case_human: float | None = None
        self._case_row = -1
        self._repeats = Repeats() if repeats is None or repeats >= 2 else None
        self._units = array("d")
        self._unit_sizes = array("q")
        self._means = array("d")
        """Each scored case's mean score (over its scored repeats), in case order."""
        self._mean_weights = array("d")
        """Each scored case's weight (by its difficulty)."""
        self._human = array("d")
        self._judged = array("d")
        self._tokens = [0, 0, 0, 0]
        self._calls: dict[str, list[int]] = {}
        self._candidate_calls: dict[str, list[int]] = {}
        self._reported = Reported()
        self._uses: dict[tuple[str, str], list[int]] = {}
        self._latencies = array("d")
        self._speed = SpeedRows()
        self.out.speed = self._speed
        self._seen_answers: list[str] = []
        self._prob = array("d")
        self._prob_sampled = array("d")

    def _group(self, grouping: str, value: str) -> _Group:
        found = self._groups[grouping].get(value)
        if found is None:
            found = self._groups[grouping][value] = _Group()
        return found

    def _close_case(self) -> None:
        scores = self._case_scores
        if self._key is not None and scores:
            mean = fmean(scores)
            row = len(self._means)
            self._means.append(mean)
            self._mean_weights.append(self._case_weight)
            for g in dict.fromkeys(self._case_groups):  # one unit per case and group
                g.rows.append(row)
            if self._case_human is not None:
                self._human.append(self._case_human)
                self._judged.append(mean)
        self._key = None
        self._case_scores = []

    def add(self, r: CaseRecord) -> None:
        self.add_figures(r.suite, r.case_name, r.info, case_figures(r))
        if r.result is not None and r.status not in ("failed", "invalid"):
            self.answer(r.result.response)

    def add_figures(self, suite: str, case_name: str, meta: CaseMeta | None,
                    f: CaseFigures) -> None:
        """:meth:`add` of a record given by its figures (:func:`case_figures`) and its
        case's groups, without its answer (see :meth:`answer`)."""
        out = self.out
        status = f.status
        out.total += 1
        if status == "scored":
            out.scored += 1
        elif status == "unscored":
            out.unscored += 1
        elif status == "invalid":
            out.invalid += 1
        else:
            out.failed += 1
        if f.reason is not None:
            failure = (suite, case_name, f.repeat, status, f.reason)
            out.failure_count += 1
            if len(out.failures) < FAILURES_KEPT:
                out.failures.append(failure)
            if status == "failed" and (f.reason in out.failure_reasons
                                       or len(out.failure_reasons) < FAILURES_KEPT):
                out.failure_reasons[f.reason] += 1
        out.cache_hits += int(f.cached)
        if status == "invalid":
            return
        key = (suite, case_name)
        if key != self._key:
            self._close_case()
            self._key = key
            self._case_groups = [self._overall, *(self._group(g, v)
                                                  for g, v in _group_values(suite, meta))]
            self._case_weight = self._weights.get(meta.difficulty if meta else "", 1.0)
            self._case_human = meta.human_score if meta is not None else None
            if self._repeats is not None:
                self._case_row = self._repeats.new_case(suite, case_name)
        passed, total = f.checks_passed, f.checks_total
        scored, unscored = status == "scored", status == "unscored"
        failed = status == "failed"
        for g in self._case_groups:
            g.cases += 1
            g.scored += scored
            g.unscored += unscored
            g.failed += failed
            g.checks_passed += passed
            g.checks_total += total
        score = f.score
        if score is not None:
            self._case_scores.append(score)
        if self._repeats is not None:
            self._repeats.add(self._case_row, f.repeat, score)
        if not f.answered:
            return
        prob = f.prob
        if prob is not None and score is not None:
            self._prob.append(prob)
            self._prob_sampled.append(score)
        elif score is not None:
            out.prob_missing += 1
        judged = out.judge_scores
        for v in f.verdicts:
            if v is not None:
                judged[v] += 1
        for unit in f.units:
            self._unit_sizes.append(len(unit))
            self._units.extend(_NAN if v is None else float(v) for v in unit)
        tokens = self._tokens
        for role, model, i, o, k, reported, made in f.calls:
            use = self._uses.setdefault((role, model), [0, 0, 0, 0])
            use[0] += made
            use[1] += i
            use[2] += o
            use[3] += k
            if role == "candidate":
                tokens[0] += i
                tokens[1] += o
            elif role == "judge":
                tokens[2] += i
                tokens[3] += o
            if self._prices is not None:
                _count_tokens(self._calls, model, i, o, k)
                if role == "candidate":
                    _count_tokens(self._candidate_calls, model, i, o, k)
                self._reported.add(self._prices, role, model, TokenCount(model, i, o, k),
                                   reported)
        if f.latency is not None:
            self._latencies.append(f.latency)
        if f.speed is not None:
            self._speed.append(SpeedRow(suite, case_name, f.repeat, *f.speed))

    def answer(self, text: str) -> None:
        """Count a candidate's answer (of a record neither failed nor invalid): what the
        summary keeps of answers (counts, up to 2 distinct) is the same in any order."""
        out = self.out
        out.answers += 1
        out.empty_answers += not text.strip()
        if out.distinct_answers < 2 and text not in self._seen_answers:
            self._seen_answers.append(text)
            out.distinct_answers += 1

    def _agreement(self) -> Agreement:
        units: list[list[float | None]] = []
        start = 0
        for size in self._unit_sizes:
            units.append([None if math.isnan(x) else x
                          for x in self._units[start:start + size]])
            start += size
        complete = [[float(x) for x in u if x is not None] for u in units
                    if all(x is not None for x in u)]
        human = human_agreement(list(self._human), list(self._judged))
        return Agreement(
            judge_repeats=self._judge_repeats, answers=len(units),
            alpha=krippendorff_alpha(units, "interval") if units else None,
            icc=icc(complete) if complete else None,
            human_cases=0 if human is None else human.cases,
            # too few human-scored cases: no kappa (human.kappa_text() says so)
            qwk=None if human is None or human.qwk is None else human.qwk.estimate,
            mad=None if human is None else human.mad, human=human,
        )

    def finish(self) -> TasksSummary:
        self._close_case()
        out = self.out
        means = np.frombuffer(self._means, dtype=np.float64) if self._means \
            else np.zeros(0, dtype=np.float64)
        weights = np.frombuffer(self._mean_weights, dtype=np.float64) if self._mean_weights \
            else np.zeros(0, dtype=np.float64)
        out.overall = self._overall.stat("overall", "all", means, weights)
        out.power = score_power(means.tolist()) if means.size >= 2 else None
        for grouping in GROUPINGS:
            members = self._groups[grouping]
            for value in sorted(members):
                out.groups.append(members[value].stat(grouping, value, means, weights))
        out.agreement = self._agreement()
        out.prob_cases = len(self._prob)
        if self._prob:
            out.prob_mean = bootstrap_mean_ci(list(self._prob))
            out.prob_sampled_mean = fmean(self._prob_sampled)
        out.repeat_consistency = self._repeats.result() if self._repeats is not None else None
        ci, co, ji, jo = self._tokens
        out.candidate_tokens, out.judge_tokens = (ci, co), (ji, jo)
        if self._prices is not None:
            rep = self._reported
            out.cost, unknown = rep.total(self._prices, self._calls)
            out.candidate_cost = rep.total(self._prices, self._candidate_calls, "candidate")[0]
            out.unknown_models = sorted(set(unknown))
            out.models = [ModelUse(role, model, calls, i, o,
                                   rep.total(self._prices, {model: [i, o, k]}, role)[0])
                          for (role, model), (calls, i, o, k) in self._uses.items()]
            if rep.calls:
                out.reported_cost, out.reported_calls = rep.theirs, rep.calls
                out.reported_cost_computed = None if rep.unpriced else rep.ours
                out.cost_disagreements = rep.disagreements
        latencies = self._latencies
        out.latency_mean_s = fmean(latencies) if latencies else None
        out.latency_p95_s = quantile(latencies, 0.95)
        points = list(self._speed.points())
        if len(points) >= 2 and len({x for x, _ in points}) >= 2:
            out.speed_fit = linear_fit([x for x, _ in points], [y for _, y in points],
                                       defaults.CONFIDENCE)
        return out


def _count_tokens(acc: dict[str, list[int]], model: str, i: int, o: int, k: int) -> None:
    found = acc.get(model)
    if found is None:
        acc[model] = [i, o, k]
    else:
        found[0] += i
        found[1] += o
        found[2] += k


def _grouped(records: Iterable[CaseRecord]) -> list[CaseRecord]:
    """The records with each case's records together (first appearance order kept)."""
    recs = list(records)
    first: dict[tuple[str, str], int] = {}
    together = True
    last: tuple[str, str] | None = None
    for i, r in enumerate(recs):
        key = (r.suite, r.case_name)
        if key != last and key in first:
            together = False
        first.setdefault(key, i)
        last = key
    if together:
        return recs
    return sorted(recs, key=lambda r: first[(r.suite, r.case_name)])


def summarize(records: Iterable[CaseRecord], *, candidate: str, judge: str,
              weights: Mapping[str, float], judge_repeats: int = 1,
              prices: PriceTable | None = None) -> TasksSummary:
    """The summary of a list of records (a case's records are taken together)."""
    recs = _grouped(records)
    usable = [r.repeat for r in recs if r.status != "invalid"]
    builder = SummaryBuilder(candidate=candidate, judge=judge, weights=weights,
                             judge_repeats=judge_repeats, prices=prices,
                             repeats=1 + max(usable, default=0))
    for r in recs:
        builder.add(r)
    return builder.finish()
