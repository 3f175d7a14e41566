"""How far a judge agrees with people: the human scores of a task run's cases (written in
the suite as ``human_score``, or given with ``eunomia label RUN`` into ``labels.yml``) beside
the judge's scores of the same cases (``eval``), and the answers people scored read back from
the run store for a judge check to score (:func:`human_answers`).

Quadratic-weighted kappa (both scores rounded to the 0-5 scale) with a 95% percentile
bootstrap interval over the cases (1,000 resamples, seeded: the same figures every time), and
the mean absolute difference. Below :data:`eunomia.defaults.MIN_CASES_FOR_INTERVAL` cases the
kappa is not given as a number but as "too few cases to tell": a kappa of five cases can be
anything from -0.5 to 1.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from eunomia.judge import SCORES
from eunomia.stats import (
    Interval,
    enough,
    mean_absolute_difference,
    paired_statistic_ci,
    quadratic_weighted_kappa,
    too_few_text,
)
from eunomia.store import RunInfo, RunStore
from eunomia.tasks import CaseResult, TaskSuite
from eunomia.tasks._labels import ScoreLabel, read_task_labels, resolve_score, task_labels_path


@dataclass(frozen=True, slots=True)
class HumanAgreement:
    """The judge against the human scores of ``cases`` cases."""

    cases: int
    qwk: Interval | None
    """Quadratic-weighted kappa with its interval; None with too few cases, or when it is
    undefined (every score the same)."""
    mad: float | None
    """Mean absolute difference, in points of 0-5."""

    @property
    def too_few(self) -> bool:
        return not enough(self.cases)

    def kappa_text(self) -> str:
        """``0.62 [0.31, 0.85]``, "too few cases to tell (...)" or "undefined (...)"."""
        if self.too_few:
            return too_few_text(self.cases)
        if self.qwk is None:
            return "undefined (every score on one side is the same)"
        return f"{self.qwk.estimate:.2f} [{self.qwk.low:.2f}, {self.qwk.high:.2f}]"

    def text(self) -> str:
        """The whole comparison in one line, e.g. ``quadratic-weighted kappa 0.62 [0.31,
        0.85], mean absolute difference 0.80, over 14 human-scored cases``."""
        mad = "" if self.mad is None else f", mean absolute difference {self.mad:.2f}"
        return (f"quadratic-weighted kappa {self.kappa_text()}{mad}, over {self.cases} "
                f"human-scored case{'s' if self.cases != 1 else ''}")


def scores_kappa(a: Sequence[float], b: Sequence[float]) -> float | None:
    """Quadratic-weighted kappa of two raters' 0-5 scores (rounded to the scale)."""
    return quadratic_weighted_kappa([round(x) for x in a], [round(y) for y in b], list(SCORES))


def human_agreement(human: Sequence[float], judged: Sequence[float],
                    resamples: int = 1000) -> HumanAgreement | None:
    """The judge's scores ``judged`` against ``human`` (paired, one per case), the kappa's
    interval from ``resamples`` bootstrap resamples of the cases; None when no case has a
    human score."""
    if not human:
        return None
    qwk = paired_statistic_ci(human, judged, scores_kappa, resamples=resamples) \
        if enough(len(human)) else None
    return HumanAgreement(len(human), qwk, mean_absolute_difference(human, judged))


@dataclass(frozen=True, slots=True)
class HumanAnswer:
    """An answer people scored with ``eunomia label RUN``: its text (read back from the run
    store and checked against the SHA-256 the labels recorded) and its human score."""

    case: str
    text: str
    score: float
    run: str
    target: str
    labellers: int


@dataclass(slots=True)
class HumanAnswers:
    """Per suite name and case, the human-scored answer a judge check also has its judge
    score; ``notes`` say which scores could not be used, and why."""

    by_suite: dict[str, dict[str, HumanAnswer]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def count(self) -> int:
        return sum(len(v) for v in self.by_suite.values())


_Scored = tuple[str, str, str, dict[str, ScoreLabel], tuple[str, ...]]
"""(suite, case, SHA-256 of the answer scored, its labels, the human_score policy)."""


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def human_answers(suites: Sequence[TaskSuite], store_path: Path) -> HumanAnswers:
    """The answers people scored of ``suites`` (the labels.yml beside each suite file) that
    the run store at ``store_path`` still holds: per case, the answer the most labellers
    scored (the same run, candidate and text), its human score under the file's
    ``human_score`` policy. Scores of a run not in the store, or of a stored answer whose text
    is not the one scored, are left out and said."""
    out = HumanAnswers()
    wanted: dict[tuple[str, str], list[_Scored]] = {}
    for suite in suites:
        labels, _ = read_task_labels(task_labels_path(Path(suite.path)))
        if labels is None:
            continue  # a broken labels.yml: loading the suite said so
        for case, by in labels.suites.get(suite.name, {}).items():
            groups: dict[tuple[str, str, str], dict[str, ScoreLabel]] = {}
            for who, label in by.items():
                if label.run and label.answer_sha256:
                    key = (label.run, label.target, label.answer_sha256)
                    groups.setdefault(key, {})[who] = label
            if not groups:
                continue
            (run, target, sha), chosen = max(groups.items(), key=lambda kv: len(kv[1]))
            wanted.setdefault((run, target), []).append((suite.name, case, sha, chosen,
                                                         labels.policy))
    if not wanted:
        return out
    if not store_path.is_file():
        out.notes.append(f"{sum(len(v) for v in wanted.values())} human-scored answer(s) "
                         f"left out: no run store at {store_path}")
        return out
    db = RunStore(store_path)
    try:
        for (run_name, target), scored in wanted.items():
            stored = db.get_run(run_name)
            if stored is None:
                out.notes.append(f"{len(scored)} human-scored answer(s) of run {run_name} left "
                                 f"out: the run is not in {store_path}")
                continue
            _read_answers(db, stored, target, scored, out)
    finally:
        db.close()
    return out


def _read_answers(db: RunStore, run: RunInfo, target: str,
                  scored: list[_Scored],
                  out: HumanAnswers) -> None:
    """The stored answers (first repeat) of the ``scored`` cases of one run and candidate."""
    differ = 0
    for suite, case, sha, labels, policy in scored:
        rows = db.cases_named(run, suite, target, [case])
        row = next((r for r in rows if r.response is not None), None)
        text = None
        if row is not None and row.response is not None:
            text = CaseResult.model_validate_json(db.get_blob(row.response)).response
        score = resolve_score(labels, policy)
        if text is None or _sha256(text) != sha or score is None:
            differ += 1
            continue
        out.by_suite.setdefault(suite, {})[case] = HumanAnswer(case, text, score, run.name,
                                                               target, len(labels))
    if differ:
        out.notes.append(f"{differ} human-scored answer(s) of run {run.name} left out: the "
                         "stored answer is not the text that was scored, or is missing")


def scored_other_answers(suites: Sequence[TaskSuite], candidates: Sequence[str], *,
                         judged: bool = True) -> list[str]:
    """A warning per suite whose human scores (labels.yml) rated answers of a candidate that
    is not among ``candidates``: an eval compares its judge's score (without a judge,
    ``judged`` False: its checks') of its own candidate's answer with the people's score of
    another answer."""
    who, score = ("Judge", "the judge's score") if judged else ("Checks", "the checks' score")
    out: list[str] = []
    for suite in suites:
        labels, _ = read_task_labels(task_labels_path(Path(suite.path)))
        if labels is None:
            continue
        others: dict[str, int] = {}
        for by in labels.suites.get(suite.name, {}).values():
            for label in by.values():
                if label.target and label.target not in candidates:
                    others[label.target] = others.get(label.target, 0) + 1
        if others:
            whose = ", ".join(f"{n} of {t}" for t, n in sorted(others.items()))
            out.append(
                f"{suite.name}: the human scores in labels.yml rated other answers ({whose}) "
                f"than this eval's candidate(s) {', '.join(candidates)} give: '{who} vs "
                f"human' compares {score} of one answer with people's score of "
                "another (eval the labelled candidate again, from the cache, or judge-check "
                "these suites to compare like with like)")
    return out
