"""Every scenario run beside ``baseline:default``, computed locally with no request: the
score of a system that assumes every diagram is perfect (it returns the scenario's
``default_expected`` instructions on every case). The target's cases are paired with the
baseline's, and the deltas tested as ``eunomia compare`` tests them (paired bootstrap of
the score, McNemar on detection). A target not significantly better is flagged."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from eunomia.compare import Agg, CaseFacts, MetricDelta, facts_only, paired_overall
from eunomia.kinds.scenarios._compare import facts_of
from eunomia.scenarios import BASELINE_DEFAULT, Scenario, baseline_feedback
from eunomia.scoring import score_case

SCORE = ("Score (%)", "%")
"""The score's label and unit in the deltas (as ``eunomia compare`` says them)."""


@dataclass(frozen=True, slots=True)
class BaselineComparison:
    """A target against ``baseline:default`` on the cases scored on both."""

    score: MetricDelta
    """Score %: a = the baseline, b = the target, delta = target - baseline."""
    detection: MetricDelta | None
    cases: int
    better: bool
    """The target scores significantly higher than the baseline."""

    @property
    def verdict(self) -> str:
        """The figures: the target's score against the baseline's, with the paired test."""
        s = self.score
        delta = "-" if s.delta is None else f"{s.delta:+.1f}"
        ci = "" if s.low is None or s.high is None else f" [{s.low:+.1f}, {s.high:+.1f}]"
        p = "" if s.p_value is None else f", p={s.p_value:.3g}"
        a = "-" if s.a is None else f"{s.a:.1f}%"
        b = "-" if s.b is None else f"{s.b:.1f}%"
        line = (f"score {b} vs {a} for {BASELINE_DEFAULT} (a system that assumes every "
                f"diagram is perfect), {delta} points{ci}{p} over {self.cases} case(s)")
        d = self.detection
        if d is not None and d.a is not None and d.b is not None:
            line += (f"; detected {100 * d.b:.0f}% vs {100 * d.a:.0f}%"
                     + ("" if d.p_value is None else f" (McNemar p={d.p_value:.3g})"))
        return line

    @property
    def note(self) -> str:
        return f"significantly better than {BASELINE_DEFAULT}: {self.verdict}"

    @property
    def warning(self) -> str | None:
        """None when the target is significantly better than the baseline."""
        if self.better:
            return None
        worse = self.score.delta is not None and self.score.delta < 0 and self.score.significant
        return (f"{'significantly worse than' if worse else 'not significantly better than'} "
                f"{BASELINE_DEFAULT}: {self.verdict}")

    def to_json(self) -> dict[str, Any]:
        return {"baseline": BASELINE_DEFAULT, "cases": self.cases, "better": self.better,
                "score": asdict(self.score),
                "detection": None if self.detection is None else asdict(self.detection),
                "verdict": self.verdict}


def against_baseline(scenario: Scenario, facts: Mapping[str, Sequence[CaseFacts]],
                     target: str) -> BaselineComparison | None:
    """``facts``: the target's scored repeats per case (of ``target``). None for an
    unlabelled scenario, when no case was scored, and for the baseline itself."""
    if not scenario.labelled or target == BASELINE_DEFAULT:
        return None
    answer = baseline_feedback(scenario, "default")
    pairs = []
    # the baseline's answer is the same on every case, so its score depends only on what the
    # case expects: cases that expect alike share one scoring (most expect the default set)
    base_of: dict[tuple[tuple[int, ...], frozenset[int]], Agg | None] = {}
    for name, mine in sorted(facts.items()):  # case order, not completion order
        case = scenario.case_named(name)
        if case is None or not mine:
            continue
        key = (case.expected, case.diff_instructions)
        if key not in base_of:
            base = facts_of(scenario, score_case(scenario, case, answer))
            base_of[key] = None if base is None else facts_only([base])
        base_agg = base_of[key]
        if base_agg is not None:  # (read only: one Agg may stand for many cases)
            pairs.append((base_agg, facts_only(mine)))
    if not pairs:
        return None
    overall = paired_overall(pairs, SCORE, detects=True)
    better = overall.score.significant and (overall.score.delta or 0.0) > 0
    return BaselineComparison(overall.score, overall.detection, len(pairs), better)
