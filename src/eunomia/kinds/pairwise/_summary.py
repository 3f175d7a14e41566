"""What a pairwise run found: B's win, tie and loss rates against A per kind of task,
category and suite and overall, with 95% intervals; the judge's position bias; the verdict.

The unit is the case: a case's outcome is that of its pairs' mean value over its repeats
(``--repeat``), so cases count once whatever the repeats. Every rate is a proportion of
cases and gets a Wilson score interval (:func:`wilson`): the cases are independent draws,
Wilson keeps close to its nominal coverage with tens of cases, and it never collapses to
a zero-width interval at 0% or 100% (a percentile bootstrap says [0%, 0%] for no win in 12
cases: certainty it does not have). B's *preference* (wins + ½ ties) / cases, the
leaderboard's figure, is a mean of case values in [0, 1]: its variance is at most
p(1 - p) / n, the binomial one, so the same interval is conservative for it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import NormalDist, fmean
from typing import Literal

from eunomia import defaults
from eunomia.judge import Winner
from eunomia.kinds.pairwise._result import outcome_of
from eunomia.stats import TOO_FEW, Interval
from eunomia.tasks import category_for

FAILURES_KEPT = 200
FEW = 3
"""Fewer verdicts than this say nothing about a pattern."""
Level = Literal["second_better", "first_better", "no_difference", "unknown"]


def wilson(successes: float, n: int, confidence: float = defaults.CONFIDENCE
           ) -> Interval | None:
    """The proportion ``successes / n`` with its Wilson score interval; None when n is 0."""
    if n <= 0:
        return None
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    p = min(1.0, max(0.0, successes / n))
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if p == 0 else max(0.0, centre - half)  # exact at the ends (no rounding)
    high = 1.0 if p == 1 else min(1.0, centre + half)
    return Interval(p, low, high, n, confidence)


def flipped(i: Interval | None) -> Interval | None:
    """The complement ``1 - i`` (A's preference from B's)."""
    if i is None:
        return None
    return Interval(1 - i.estimate, 1 - i.high, 1 - i.low, i.n, i.confidence)


@dataclass(frozen=True, slots=True)
class Rates:
    """B against A on one group of cases (``grouping`` ``overall``, ``kind``, ``category``
    or ``suite``)."""

    grouping: str
    value: str
    cases: int
    """Cases with an outcome (the intervals' n)."""
    wins: int
    ties: int
    losses: int
    not_scored: int
    """Comparisons of this group without an outcome (failed, unscored, not applicable)."""
    win: Interval | None
    tie: Interval | None
    loss: Interval | None
    preference: Interval | None
    """B's preference, (wins + ½ ties) / cases: above 0.5, B is preferred."""


def rates(grouping: str, value: str, case_values: Iterable[float], not_scored: int) -> Rates:
    outcomes = Counter(outcome_of(v) for v in case_values)
    n = sum(outcomes.values())
    wins, ties, losses = outcomes["win"], outcomes["tie"], outcomes["loss"]
    return Rates(grouping, value, n, wins, ties, losses, not_scored, wilson(wins, n),
                 wilson(ties, n), wilson(losses, n), wilson(wins + ties / 2, n))


@dataclass(frozen=True, slots=True)
class Position:
    """How the judge's verdicts depend on the order the answers are shown in."""

    pairs: int
    """Comparisons with a usable verdict in both orders."""
    decisive: int
    """Their verdicts that picked an answer (not a tie)."""
    first: int
    """... the answer shown first."""
    first_rate: Interval | None
    flipped: int
    """Pairs whose verdict flipped with the order (counted as ties)."""
    consistent: int
    """Pairs whose two verdicts agree (the same answer, or a tie twice)."""

    @property
    def biased(self) -> bool:
        """Whether the first-position rate's interval excludes ½."""
        r = self.first_rate
        return r is not None and self.decisive >= FEW and not r.too_few \
            and (r.low > 0.5 or r.high < 0.5)

    @property
    def consistency(self) -> float | None:
        return self.consistent / self.pairs if self.pairs else None

    def line(self) -> str:
        r = self.first_rate
        if r is None:
            return "Position bias: no decisive verdict to measure it on"
        ci = (TOO_FEW if r.too_few else
              f"95% CI {100 * r.low:.0f}-{100 * r.high:.0f}%")
        text = (f"Position bias: the judge preferred the answer shown first in "
                f"{100 * r.estimate:.0f}% of its {self.decisive} decisive verdicts ({ci}; "
                "50% = no bias)")
        if self.biased:
            text += "; a bias, cancelled in the rates by judging both orders"
        return (text + f"; the verdict flipped with the order on {self.flipped} of "
                f"{self.pairs} pairs (counted as ties)")


@dataclass(frozen=True, slots=True)
class PairVerdictText:
    level: Level
    text: str


def verdict(first: str, second: str, overall: Rates | None) -> PairVerdictText:
    """The comparison in words: B preferred, A preferred, or no significant difference."""
    p = overall.preference if overall is not None else None
    if overall is None or p is None:
        return PairVerdictText("unknown", "no case was judged in both orders: nothing to "
                                          "compare")
    if p.too_few:  # no winner from a handful of cases
        return PairVerdictText("unknown", (
            f"{TOO_FEW} which of {second} and {first} is better ({overall.cases} case(s); "
            f"at least {defaults.MIN_CASES_FOR_INTERVAL} are needed): {second} wins "
            f"{100 * overall.win.estimate if overall.win else 0:.0f}% of them, its preference "
            f"{p.estimate:.2f}"))
    shares = (f"{second} wins {_pct(overall.win)}, ties {_pct(overall.tie)} and loses "
              f"{_pct(overall.loss)} of {overall.cases} cases against {first}; its "
              f"preference {p.estimate:.2f} (95% CI {p.low:.2f}-{p.high:.2f})")
    if p.low > 0.5:
        return PairVerdictText("second_better", f"{second} is preferred over {first}: "
                                                f"{shares}")
    if p.high < 0.5:
        return PairVerdictText("first_better", f"{first} is preferred over {second}: "
                                               f"{shares}")
    return PairVerdictText("no_difference", f"no significant difference between {second} "
                                            f"and {first} (the interval includes 0.50): "
                                            f"{shares}")


def _pct(i: Interval | None) -> str:
    return "-" if i is None else f"{100 * i.estimate:.0f}%"


@dataclass(slots=True)
class SideFigures:
    """One candidate's own calls over the run."""

    label: str
    spec: str
    cost: float | None = None
    latency_mean_s: float | None = None
    not_applicable: int = 0


@dataclass(slots=True)
class PairwiseSummary:
    """B against A over the whole run."""

    first: SideFigures
    second: SideFigures
    judge: str
    overall: Rates | None = None
    groups: list[Rates] = field(default_factory=list)
    position: Position = field(default_factory=lambda: Position(0, 0, 0, None, 0, 0))
    verdict: PairVerdictText = field(
        default_factory=lambda: PairVerdictText("unknown", "nothing compared"))
    comparisons: int = 0
    """Stored comparisons (each case x repeat)."""
    scored: int = 0
    unscored: int = 0
    failed: int = 0
    invalid: int = 0
    failures: list[tuple[str, str, int, str, str]] = field(default_factory=list)
    """(suite, case, repeat, status, reason) of the first comparisons without an outcome."""
    judge_cost: float | None = None
    cost: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    warnings: list[str] = field(default_factory=list)

    @property
    def not_scored(self) -> int:
        return self.comparisons - self.scored


@dataclass(slots=True)
class CaseValues:
    """One case's comparisons (its repeats), gathered for the summary."""

    suite: str
    kind: str
    category: str
    values: list[float] = field(default_factory=list)
    not_scored: int = 0

    @property
    def value(self) -> float | None:
        return fmean(self.values) if self.values else None


def category_name(category: str) -> str:
    """A category, spelled as its kind's title when it names one (as ``eval`` does)."""
    kind = category_for(category)
    return kind.title if kind is not None else (category or "-")


def group_rates(cases: Iterable[CaseValues], titles: dict[str, str], several_suites: bool
                ) -> tuple[Rates, list[Rates]]:
    """The overall rates and each group's (by kind of task, category, suite)."""
    keyed: dict[tuple[str, str], tuple[list[float], list[int]]] = {}
    for c in cases:
        keys = [("overall", "all"), ("kind", titles.get(c.kind, c.kind)),
                ("category", category_name(c.category))]
        if several_suites:
            keys.append(("suite", c.suite))
        value = c.value
        for key in keys:
            values, missing = keyed.setdefault(key, ([], [0]))
            if value is not None:
                values.append(value)
            missing[0] += c.not_scored
    made = [rates(g, v, values, missing[0]) for (g, v), (values, missing) in keyed.items()]
    overall = next(r for r in made if r.grouping == "overall")
    order = {"kind": 0, "category": 1, "suite": 2}
    return overall, sorted((r for r in made if r.grouping != "overall"),
                           key=lambda r: (order[r.grouping], r.value))


def position(slots: Iterable[tuple[Winner, Winner]], picks_agree: Iterable[bool],
             flips: int) -> Position:
    """The position figures of the pairs' slot verdicts (A shown first, B shown first)."""
    pairs = first = decisive = 0
    for one, two in slots:
        pairs += 1
        for slot in (one, two):
            if slot != "tie":
                decisive += 1
                first += slot == "1"
    consistent = sum(picks_agree)
    return Position(pairs, decisive, first, wilson(first, decisive), flips, consistent)


def run_warnings(s: PairwiseSummary) -> list[str]:
    """What makes the comparison say little, in words."""
    out: list[str] = []
    overall = s.overall
    if overall is not None and overall.cases >= FEW and overall.ties == overall.cases:
        out.append(f"every compared case is a tie: the judge ({s.judge}) does not tell these "
                   "two candidates apart (or its verdict flips with the order)")
    if s.comparisons >= FEW and s.scored == 0 and s.unscored:
        out.append(f"no comparison has an outcome ({s.unscored} unscored: see "
                   "pairwise.json's failures)")
    if s.position.biased and s.position.first_rate is not None:
        r = s.position.first_rate
        side = "first" if r.estimate > 0.5 else "second"
        out.append(f"the judge ({s.judge}) prefers the answer shown {side} "
                   f"({100 * r.estimate:.0f}% of {s.position.decisive} decisive verdicts): "
                   "cancelled here by judging both orders, but a sign of a weak judge; "
                   "check it with eunomia judge-check")
    return out

