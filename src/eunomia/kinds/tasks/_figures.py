"""What a task summary keeps of one stored case (one repeat): its figures, small plain
values computed once from the record (:func:`case_figures`).

The summary builder and the export's tables read them instead of asking the record's
result again (each of its scores walks every verdict). They are plain values on purpose:
an export that meets the cases in one order and feeds them in another parks them
(``marshal``), so they hold no object of the run — the case's groups (its
:class:`~eunomia.tasks.CaseMeta`) are given beside them.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean
from typing import NamedTuple

from eunomia.judge import Verdict
from eunomia.tasks import CaseRecord

Call = tuple[str, str, int, int, int, float | None, bool]
"""One model call: role, model, input, output and cached input tokens, the cost its
system reports (None: none reported), and whether a call was made or answered from the
cache (a trivial baseline's answer is neither)."""
Speed = tuple[int | None, int, int, float | None, float | None, float | None, float | None]
"""Expected words, output words, output tokens, latency, time to first token, words per
second, length adherence (the fields of :class:`~eunomia.tasks.SpeedRow` after the case)."""


class CaseFigures(NamedTuple):
    """What the summary and ``cases.csv`` need of one record, besides its case's groups."""

    repeat: int
    status: str
    reason: str | None
    """Why the case is not scored (``CaseRecord.failure``); None when it is."""
    cached: bool
    score: float | None
    """``CaseRecord.score``: the mean judge score of a scored case."""
    checks_passed: int
    checks_total: int
    answered: bool
    """Whether the record has a result (the rest below is empty without one)."""
    prob: float | None
    """``CaseResult.prob_score``."""
    verdicts: tuple[int | None, ...]
    """Every verdict's score, the turns' after the case's own (``all_verdicts``)."""
    units: tuple[tuple[int | None, ...], ...]
    """The scores of each list of verdicts of two or more (the judge's repeats)."""
    calls: tuple[Call, ...]
    latency: float | None
    """``CaseResult.candidate_latency_s``."""
    speed: Speed | None


def mean_score(scores: list[int]) -> float | None:
    """``CaseResult.score`` of the usable scores: their ``fmean`` (of one: itself)."""
    if not scores:
        return None
    return float(scores[0]) if len(scores) == 1 else fmean(scores)


def _prob(verdicts: Sequence[Verdict]) -> float | None:
    """``CaseResult.prob_score`` of these verdicts (``all_verdicts``)."""
    weighted = [v.weighted_score for v in verdicts if v.score is not None]
    values = [x for x in weighted if x is not None]
    return fmean(values) if weighted and len(values) == len(weighted) else None


def case_figures(r: CaseRecord) -> CaseFigures:
    """The figures of ``r``: the same values as its record and result give."""
    res = r.result
    status = r.status
    if res is None:
        reason = None if status == "scored" else (r.error or status)
        return CaseFigures(r.repeat, status, reason, r.cached, None, 0, 0, False, None, (),
                           (), (), None, None)
    turns = res.turns
    every = res.all_verdicts() if turns else res.verdicts
    verdicts = [v.score for v in every]
    usable = [x for x in verdicts if x is not None]
    checks = res.all_checks() if turns else res.checks
    reason = None
    if status != "scored":
        reason = r.error or res.feedback or status
    units = tuple(tuple(v.score for v in group)
                  for group in (res.verdicts, *(t.verdicts for t in turns)) if len(group) >= 2)
    s = res.speed
    return CaseFigures(
        r.repeat, status, reason, r.cached,
        mean_score(usable) if status == "scored" else None,
        sum(c.passed for c in checks), len(checks), True,
        _prob(every) if usable else None,
        tuple(verdicts), units,
        tuple((c.role, c.model, c.input_tokens, c.output_tokens, c.cached_input_tokens,
               c.reported_cost, c.attempts > 0 or c.cached) for c in res.calls),
        res.candidate_latency_s,
        None if s is None else (s.expected_words, s.output_words, s.output_tokens, s.latency_s,
                                s.time_to_first_token_s, s.words_per_second,
                                s.length_adherence))
