"""What a judge check found: per suite and over all suites, how well the judge tells the good
answer from the bad ones (AUC with a bootstrap interval over cases), its mean score per kind
of answer, its verbosity bias, its self-agreement, and the verdict in words; and what it
gives the answers that look right and are wrong (the content-free answer: its floor; the
fact-altered references; the form ignored): per kind the mean and the AUC of the reference
against it, and whether it is lenient, blind to errors or blind to form
(:mod:`eunomia.judge`'s floor statistics)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from eunomia import defaults
from eunomia.judge import (
    CONTENT_FREE,
    GOOD,
    FloorVerdict,
    KindFigures,
    blind_verdict,
    form_verdict,
    kind_figures,
    lenient_verdict,
)
from eunomia.kinds._task_suites import (
    BAD_CONTROLS,
    CONTROLS,
    FLOOR_CONTROLS,
    HumanAgreement,
    human_agreement,
)
from eunomia.stats import (
    TOO_FEW,
    Interval,
    auc,
    bootstrap_mean_ci,
    clustered_auc_ci,
    icc,
    krippendorff_alpha,
)

WEAK_AUC = 0.8
"""Below this AUC a judge that does better than chance still tells good from bad only
weakly: the bad answers here are easy (another case's answer, a third of the answer, a
refusal), so a judge worth its scores separates them almost always."""

SAME_AUC = 0.01
"""The probability-weighted AUC is mentioned in a verdict when it differs by this much."""

Level = Literal["good", "weak", "cannot_tell", "unknown"]
CANNOT_TELL = ("this judge cannot tell good from bad answers on {where}; its scores are "
               "not evidence")


@dataclass(slots=True)
class Answer:
    """One judged controlled answer: its mean sampled score over the judge's repeats, its
    probability-weighted score, each repeat's score (None: unscored)."""

    control: str
    status: str
    score: float | None
    weighted: float | None
    repeats: list[float | None] = field(default_factory=list)
    human: float | None = None
    """The people's score (an answer people scored, ``control`` ``human``)."""


@dataclass(slots=True)
class CaseAnswers:
    suite: str
    case: str
    category: str
    answers: dict[str, Answer] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """What a judge check says of one judge on one suite (or on all of them: ``suite`` None)."""

    judge: str
    suite: str | None
    level: Level
    text: str
    auc: Interval | None
    weighted_auc: Interval | None = None
    verbosity: Interval | None = None
    lenient: bool = False
    """It gives an answer that says nothing 2 or more of 5 (its low scores are not
    evidence): never called trustworthy then."""

    @property
    def trusted(self) -> bool:
        """Whether the judge's scores carry evidence here: its AUC interval is above 0.5 and
        it is not lenient."""
        return self.level in ("good", "weak") and not self.lenient

    def line(self) -> str:
        where = "all suites" if self.suite is None else self.suite
        return f"{self.judge} on {where}: {self.text}"


@dataclass(slots=True)
class GroupCheck:
    """The figures of one suite (``suite``) or of every suite (``suite`` None)."""

    suite: str | None
    cases: int
    answers: int
    scored: int
    unscored: int
    failed: int
    auc: Interval | None
    weighted_auc: Interval | None
    auc_by_control: dict[str, float | None]
    """Good against each bad control alone (point estimates)."""
    means: dict[str, Interval | None]
    weighted_means: dict[str, float | None]
    verbosity: Interval | None
    """Mean (padded - good) per case: above 0, the judge rewards irrelevant length."""
    alpha: float | None
    icc: float | None
    verdict: JudgeVerdict
    weighted_answers: int = 0
    """Answers with a probability-weighted score (the weighted AUC is over these)."""
    floor: dict[str, KindFigures] = field(default_factory=dict)
    """The reference and each answer that looks right and is wrong: mean, AUC, drop."""
    floor_verdicts: list[FloorVerdict] = field(default_factory=list)
    """Lenient, blind to errors, blind to form (in that order)."""
    human: HumanAgreement | None = None
    """The judge against the people on the answers they scored (``eunomia label RUN``)."""


def _interval_text(i: Interval) -> str:
    return f"AUC {i.estimate:.2f}, 95% CI {i.low:.2f}-{i.high:.2f}"


def judge_verdict(judge: str, suite: str | None, auc_ci: Interval | None,
                  weighted: Interval | None = None, verbosity: Interval | None = None
                  ) -> JudgeVerdict:
    """The verdict in words: "cannot tell" when the AUC interval reaches down to 0.5,
    "weakly" when it is above 0.5 but the AUC is below :data:`WEAK_AUC`."""
    where = "all these suites" if suite is None else "this suite"
    if auc_ci is None:
        level: Level = "unknown"
        text = f"too few scored answers to tell whether this judge can judge on {where}"
    elif auc_ci.too_few:  # an AUC over a handful of cases: no interval, no verdict
        level = "unknown"
        text = (f"{TOO_FEW} whether this judge can judge on {where} (AUC "
                f"{auc_ci.estimate:.2f} over {auc_ci.n} case(s); at least "
                f"{defaults.MIN_CASES_FOR_INTERVAL} are needed)")
    elif auc_ci.low <= 0.5:
        level = "cannot_tell"
        text = CANNOT_TELL.format(where=where) + f" ({_interval_text(auc_ci)}"
        text += "; it scores the bad answers higher)" if auc_ci.high < 0.5 else ")"
    elif auc_ci.estimate < WEAK_AUC:
        level = "weak"
        text = (f"this judge tells good from bad answers only weakly on {where} "
                f"({_interval_text(auc_ci)}): read its scores as rough; small differences "
                "are not evidence")
    else:
        level = "good"
        text = f"this judge tells good from bad answers on {where} ({_interval_text(auc_ci)})"
    if weighted is not None and auc_ci is not None and not auc_ci.too_few \
            and abs(weighted.estimate - auc_ci.estimate) >= SAME_AUC:
        better = "better" if weighted.estimate > auc_ci.estimate else "worse"
        text += (f"; its probability-weighted scores separate them {better} "
                 f"({_interval_text(weighted)})")
    if verbosity is not None and not verbosity.too_few and verbosity.low > 0:
        text += (f"; it rewards padding: irrelevant text added to the reference raises its "
                 f"score by {verbosity.estimate:+.2f} (95% CI {verbosity.low:+.2f} to "
                 f"{verbosity.high:+.2f})")
    return JudgeVerdict(judge, suite, level, text, auc_ci, weighted, verbosity)


def _scores(cases: Sequence[CaseAnswers], controls: Iterable[str], weighted: bool
            ) -> list[list[float]]:
    out = []
    for c in cases:
        values = []
        for control in controls:
            a = c.answers.get(control)
            value = None if a is None else (a.weighted if weighted else a.score)
            if value is not None:
                values.append(value)
        out.append(values)
    return out


def _auc_ci(cases: Sequence[CaseAnswers], weighted: bool) -> Interval | None:
    return clustered_auc_ci(_scores(cases, ("good",), weighted),
                            _scores(cases, BAD_CONTROLS, weighted))


def group_check(judge: str, suite: str | None, cases: Sequence[CaseAnswers],
                judge_repeats: int) -> GroupCheck:
    """The figures of ``cases`` (one suite's, or every suite's with ``suite`` None)."""
    answers = [a for c in cases for a in c.answers.values()]
    sampled = _auc_ci(cases, weighted=False)
    with_weights = sum(a.weighted is not None for a in answers)
    weighted = _auc_ci(cases, weighted=True) if with_weights else None
    good = [s for v in _scores(cases, ("good",), False) for s in v]
    by_control: dict[str, float | None] = {
        k: auc(good, [s for v in _scores(cases, (k,), False) for s in v]) for k in BAD_CONTROLS}
    means: dict[str, Interval | None] = {}
    weighted_means: dict[str, float | None] = {}
    for control in CONTROLS:
        values = [a.score for a in answers if a.control == control and a.score is not None]
        means[control] = bootstrap_mean_ci(values)
        wv = [a.weighted for a in answers if a.control == control and a.weighted is not None]
        weighted_means[control] = sum(wv) / len(wv) if wv else None
    diffs = [pad.score - ref.score for c in cases
             if (ref := c.answers.get("good")) is not None and ref.score is not None
             and (pad := c.answers.get("padded")) is not None and pad.score is not None]
    verbosity = bootstrap_mean_ci(diffs)
    alpha = agreement = None
    if judge_repeats > 1:
        alpha = krippendorff_alpha([a.repeats for a in answers])
        full = [[float(s) for s in a.repeats if s is not None] for a in answers
                if a.repeats and all(s is not None for s in a.repeats)]
        agreement = icc(full) if full else None
    scores = [{k: a.score for k, a in c.answers.items()} for c in cases]
    floor = kind_figures(scores, [GOOD, *FLOOR_CONTROLS])
    where = "these suites" if suite is None else "this suite"
    floor_verdicts = [lenient_verdict(floor.get(CONTENT_FREE), where),
                      blind_verdict(scores, floor), form_verdict(scores, floor)]
    verdict = with_floor(judge_verdict(judge, suite, sampled, weighted, verbosity),
                         floor_verdicts)
    return GroupCheck(
        suite=suite, cases=len(cases), answers=len(answers),
        scored=sum(a.status == "scored" for a in answers),
        unscored=sum(a.status == "unscored" for a in answers),
        failed=sum(a.status not in ("scored", "unscored") for a in answers),
        auc=sampled, weighted_auc=weighted, auc_by_control=by_control, means=means,
        weighted_means=weighted_means, verbosity=verbosity, alpha=alpha, icc=agreement,
        verdict=verdict, weighted_answers=with_weights, floor=floor,
        floor_verdicts=floor_verdicts, human=_against_people(answers))


def with_floor(verdict: JudgeVerdict, found: Sequence[FloorVerdict]) -> JudgeVerdict:
    """``verdict`` with what the answers that look right and are wrong found, when it holds
    (lenient; blind to errors or to form): a lenient judge is not trusted."""
    said = [f"{f.text}: {f.evidence}" if f.evidence else f.text
            for f in found if f.level in ("yes", "weakly")]
    if not said:
        return verdict
    lenient = any(f.finding == "lenient" and f.holds for f in found)
    joint = "; but " if verdict.level in ("good", "weak") else "; and "
    return dataclasses.replace(verdict, text=verdict.text + joint + "; ".join(said),
                               lenient=lenient)


def _against_people(answers: Sequence[Answer]) -> HumanAgreement | None:
    """The judge's scores of the answers people scored against theirs (None: none)."""
    pairs = [(a.human, a.score) for a in answers
             if a.human is not None and a.score is not None]
    return human_agreement([h for h, _ in pairs], [j for _, j in pairs])


@dataclass(slots=True)
class JudgeCheckSummary:
    """One judge's check over every suite of the run."""

    judge: str
    judge_repeats: int
    weighted_asked: bool
    suites: list[GroupCheck] = field(default_factory=list)
    overall: GroupCheck | None = None
    """Over every suite's cases (only with several suites)."""
    unchecked: int = 0
    """Selected cases that cannot be checked (no reference answer, or a conversation)."""
    failures: list[tuple[str, str, str, str]] = field(default_factory=list)
    """(suite, case#answer, status, reason) of every answer not scored."""
    cost: float | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency_mean_s: float | None = None

    @property
    def headline(self) -> GroupCheck | None:
        """Over all suites, or the only suite's."""
        return self.overall if self.overall is not None else (
            self.suites[0] if self.suites else None)

    @property
    def verdicts(self) -> list[JudgeVerdict]:
        """Each suite's verdict, then the verdict over all suites (with several)."""
        out = [g.verdict for g in self.suites]
        if self.overall is not None:
            out.append(self.overall.verdict)
        return out

    @property
    def answers(self) -> int:
        return sum(g.answers for g in self.suites)

    @property
    def not_scored(self) -> int:
        return sum(g.answers - g.scored for g in self.suites)
