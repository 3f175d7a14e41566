"""The floor under judged scores: what a judge gives answers that say nothing, or that read
right and are wrong, and what that makes of its other scores.

Input everywhere: per case, the judge's score of each kind of answer (``good``, the case's
reference; ``content_free``; the fact-altered kinds ``numbers`` ``entity`` ``negated``
``dropped``; ``form``; any other kind), None or absent where not scored. Scores of one case
are not independent of each other, so every interval resamples cases (seeded bootstrap).

* :func:`kind_figures` — per kind: its mean score, the AUC of the good answer against it
  (1: the judge always scores the reference higher, 0.5: a coin) and the paired drop
  ``good − kind`` per case, each with its 95% interval;
* :func:`lenient_verdict` — a judge whose content-free answers average
  :data:`~eunomia.defaults.LENIENT_FLOOR` or more is **lenient**: its scores up to the upper
  end of that mean's interval say nothing about the answers;
* :func:`blind_verdict` — a judge that cannot tell references with altered facts from the
  references (the AUC interval reaches 0.5) is **blind to errors**: its high scores do not
  say that an answer's facts are right (``weakly`` below :data:`WEAK_AUC`);
* :func:`compare_to_floor` — a candidate's scores against a control's on the same cases:
  the paired difference with its interval, and "no better than a content-free answer" when
  that interval reaches 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from eunomia import defaults
from eunomia.stats import (
    Interval,
    PairedDelta,
    bootstrap_mean_ci,
    clustered_auc_ci,
    paired_bootstrap,
)

GOOD = "good"
CONTENT_FREE = "content_free"
FACT_KINDS: tuple[str, ...] = ("numbers", "entity", "negated", "dropped")
FORM = "form"
WEAK_AUC = 0.8
"""Below this AUC a judge that does better than chance sees a kind of error only weakly."""
KIND_WORDS: dict[str, str] = {
    GOOD: "the reference",
    CONTENT_FREE: "an answer that says nothing",
    "other_reference": "another case's reference",
    "numbers": "numbers changed",
    "entity": "a name swapped",
    "negated": "the key claim negated",
    "dropped": "the key sentence dropped",
    FORM: "the requested form ignored",
}

CaseScores = Mapping[str, float | None]
"""One case: each kind of answer's score (None or absent: not scored)."""


@dataclass(frozen=True, slots=True)
class KindFigures:
    """What a judge gave one kind of answer."""

    kind: str
    answers: int
    """Scored answers of this kind."""
    mean: Interval | None
    auc: Interval | None
    """The good answer against this kind, over the cases with both (None for ``good``)."""
    drop: PairedDelta | None
    """Per case with both: ``good − kind`` (None for ``good``)."""


def _scores(cases: Sequence[CaseScores], kind: str) -> list[float]:
    return [float(v) for c in cases if (v := c.get(kind)) is not None]


def _pairs(cases: Sequence[CaseScores], kinds: Iterable[str]
           ) -> tuple[list[list[float]], list[list[float]]]:
    """Per case that has a scored good answer and one of ``kinds``: ([good], [theirs])."""
    wanted = tuple(kinds)
    good: list[list[float]] = []
    bad: list[list[float]] = []
    for c in cases:
        g = c.get(GOOD)
        theirs = [float(v) for k in wanted if (v := c.get(k)) is not None]
        if g is not None and theirs:
            good.append([float(g)])
            bad.append(theirs)
    return good, bad


def kind_figures(cases: Sequence[CaseScores], kinds: Iterable[str] | None = None,
                 seed: int = defaults.BOOTSTRAP_SEED) -> dict[str, KindFigures]:
    """Per kind of answer (``kinds``, else every kind seen, in order of first appearance):
    its mean, AUC and drop against ``good`` with their intervals (see the module)."""
    if kinds is None:
        kinds = list(dict.fromkeys(k for c in cases for k in c))
    out: dict[str, KindFigures] = {}
    for kind in kinds:
        values = _scores(cases, kind)
        mean = bootstrap_mean_ci(values, resamples=defaults.BOOTSTRAP_RESAMPLES, seed=seed)
        if kind == GOOD:
            out[kind] = KindFigures(kind, len(values), mean, None, None)
            continue
        good, bad = _pairs(cases, (kind,))
        auc = clustered_auc_ci(good, bad, resamples=defaults.BOOTSTRAP_RESAMPLES, seed=seed)
        drop = paired_bootstrap([b[0] for b in bad], [g[0] for g in good],
                                resamples=defaults.BOOTSTRAP_RESAMPLES, seed=seed)
        out[kind] = KindFigures(kind, len(values), mean, auc, drop)
    return out


def pooled_auc(cases: Sequence[CaseScores], kinds: Iterable[str],
               seed: int = defaults.BOOTSTRAP_SEED) -> Interval | None:
    """The AUC of the good answer against every answer of ``kinds`` together, cases
    resampled with all their answers."""
    good, bad = _pairs(cases, kinds)
    return clustered_auc_ci(good, bad, resamples=defaults.BOOTSTRAP_RESAMPLES, seed=seed)


Level = Literal["yes", "weakly", "no", "unknown"]


@dataclass(frozen=True, slots=True)
class FloorVerdict:
    """One finding about a judge, in words: ``lenient`` or ``blind`` (to errors) or
    ``form_blind``; ``level`` ``yes`` when it holds, ``weakly`` (blind only: it sees the
    errors weakly), ``no`` when it does not, ``unknown`` without the scores to tell.
    ``evidence`` says which of the judge's scores carry information."""

    finding: Literal["lenient", "blind", "form_blind"]
    level: Level
    text: str
    evidence: str = ""

    @property
    def holds(self) -> bool:
        return self.level == "yes"


def _ci(i: Interval, digits: int = 2) -> str:
    return f"95% CI {i.low:.{digits}f}-{i.high:.{digits}f}"


def _possessive(where: str) -> str:
    return f"{where}'" if where.endswith("s") else f"{where}'s"


def lenient_verdict(content_free: KindFigures | None, where: str = "this suite",
                    floor: float = defaults.LENIENT_FLOOR) -> FloorVerdict:
    """Lenient when the content-free answers' mean is ``floor`` or more (see the module)."""
    mean = content_free.mean if content_free is not None else None
    if mean is None:
        return FloorVerdict("lenient", "unknown",
                            "no content-free answer was scored: the judge's floor is unknown")
    said = f"{mean.estimate:.2f} of 5 on average ({_ci(mean)}, {mean.n} answers)"
    auc = content_free.auc if content_free is not None else None
    if auc is not None and auc.low <= 0.5:
        said += (f", and cannot tell it from the reference (AUC {auc.estimate:.2f}, "
                 f"{_ci(auc)})")
    if mean.estimate >= floor:
        return FloorVerdict(
            "lenient", "yes",
            f"lenient: it gives an answer that says nothing {said}",
            f"scores at or below {mean.high:.1f} say nothing about {_possessive(where)} "
            "answers")
    return FloorVerdict(
        "lenient", "no", f"not lenient: it gives an answer that says nothing {said}",
        f"scores above {mean.high:.1f} are above what an answer that says nothing gets")


def _blind(finding: Literal["blind", "form_blind"], figures: Mapping[str, KindFigures],
           kinds: Sequence[str], pooled: Interval | None, what: str, consequence: str
           ) -> FloorVerdict:
    present = [figures[k] for k in kinds if k in figures and figures[k].auc is not None]
    good = figures.get(GOOD)
    if pooled is None or not present or good is None or good.mean is None:
        return FloorVerdict(finding, "unknown", f"no {what} was scored beside the reference: "
                            "whether the judge sees them is unknown")
    missed = [f for f in present if f.auc is not None and f.auc.low <= 0.5]
    detail = "; ".join(
        f"{KIND_WORDS.get(f.kind, f.kind)}: {f.mean.estimate:.2f} against "
        f"{good.mean.estimate:.2f}, AUC {f.auc.estimate:.2f}"
        for f in present if f.mean is not None and f.auc is not None)
    auc_text = f"AUC {pooled.estimate:.2f}, {_ci(pooled)}"
    if pooled.low <= 0.5:
        return FloorVerdict(finding, "yes",
                            f"blind to {what}: it scores them close to the reference itself "
                            f"({auc_text}; {detail})", consequence)
    if pooled.estimate < WEAK_AUC or missed:
        names = ", ".join(KIND_WORDS.get(f.kind, f.kind) for f in missed)
        also = f"; it cannot tell {names} from the reference" if missed else ""
        return FloorVerdict(finding, "weakly",
                            f"sees {what} only weakly ({auc_text}; {detail}){also}",
                            consequence)
    return FloorVerdict(finding, "no", f"sees {what}: it scores them below the reference "
                        f"({auc_text}; {detail})")


def blind_verdict(cases: Sequence[CaseScores], figures: Mapping[str, KindFigures],
                  kinds: Sequence[str] = FACT_KINDS, seed: int = defaults.BOOTSTRAP_SEED
                  ) -> FloorVerdict:
    """Blind to errors when the good answer's AUC against the fact-altered answers (all
    ``kinds`` together) has an interval reaching 0.5 (see the module)."""
    return _blind("blind", figures, kinds, pooled_auc(cases, kinds, seed),
                  "altered facts",
                  "a high score from it does not say that an answer's facts are right")


def form_verdict(cases: Sequence[CaseScores], figures: Mapping[str, KindFigures],
                 seed: int = defaults.BOOTSTRAP_SEED) -> FloorVerdict:
    """Blind to form when it cannot tell the reference from the reference in a form the
    case did not ask for."""
    return _blind("form_blind", figures, (FORM,), pooled_auc(cases, (FORM,), seed),
                  "an ignored form",
                  "its scores do not say whether an answer has the length, format or "
                  "language asked for")


@dataclass(frozen=True, slots=True)
class FloorComparison:
    """A candidate's scores against a control answer's on the same cases."""

    candidate: str
    control: str
    cases: int
    candidate_mean: float | None
    control_mean: float | None
    delta: PairedDelta | None
    """``mean(candidate − control)`` per case, with its 95% interval."""
    no_better: bool | None
    """True when the interval reaches 0 (or below); None with fewer than two cases."""
    text: str


def compare_to_floor(candidate: Mapping[str, float | None], control: Mapping[str, float | None],
                     *, candidate_name: str = "the candidate",
                     control_name: str = "a content-free answer",
                     seed: int = defaults.BOOTSTRAP_SEED) -> FloorComparison:
    """``candidate`` and ``control``: each case's score (by case key), over the cases where
    both were scored. Says "no better than <control>" when the paired difference's 95%
    interval reaches 0."""
    keys = [k for k, v in candidate.items() if v is not None and control.get(k) is not None]
    mine = [float(candidate[k]) for k in keys]  # type: ignore[arg-type]
    floor = [float(control[k]) for k in keys]  # type: ignore[arg-type]
    if len(keys) < 2:
        return FloorComparison(candidate_name, control_name, len(keys),
                               sum(mine) / len(mine) if mine else None,
                               sum(floor) / len(floor) if floor else None, None, None,
                               f"too few cases scored for both {candidate_name} and "
                               f"{control_name} to compare them ({len(keys)})")
    delta = paired_bootstrap(floor, mine, resamples=defaults.COMPARE_RESAMPLES, seed=seed)
    assert delta is not None
    a, b = sum(mine) / len(mine), sum(floor) / len(floor)
    figures = (f"{a:.2f} against {b:.2f} for {control_name}, difference "
               f"{delta.mean_delta:+.2f} (95% CI {delta.low:+.2f} to {delta.high:+.2f}, "
               f"{len(keys)} cases)")
    no_better = delta.low <= 0
    if no_better:
        text = f"{candidate_name} is no better than {control_name}: {figures}"
    else:
        text = f"{candidate_name} scores above {control_name}: {figures}"
    return FloorComparison(candidate_name, control_name, len(keys), a, b, delta, no_better,
                           text)
