"""What the label server shows of a judged task run: each case's task, reference and the
candidate's answer (read once from the run store), the 0-5 scores people gave them (read
anew from the ``labels.yml`` beside each suite for every page), and how those scores agree
with the judge's and with each other.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

import orjson

from eunomia.errors import EunomiaError
from eunomia.judge import Rubric
from eunomia.kinds._task_suites import NO_JUDGE, scores_kappa
from eunomia.labelling._store import read_scores
from eunomia.stats import (
    Interval,
    krippendorff_alpha,
    mean_absolute_difference,
    paired_statistic_ci,
)
from eunomia.store import RunStore
from eunomia.tasks import CaseResult
from eunomia.tasks._labels import ScoreLabel, TaskLabels, resolve_score, task_labels_path

_SCALE = re.compile(r"^\s*([0-5])\s*[-–:]\s*(.+)$", re.MULTILINE)
AGREEMENT_RESAMPLES = 1000


def answer_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class Answer:
    """One case of the run and the candidate's answer to it (its first repeat)."""

    index: int
    suite: str
    """The suite as labels.yml names it: its file's name without the extension."""
    case: str
    path: Path
    """The labels file beside the suite."""
    task: dict[str, Any]
    result: CaseResult | None
    error: str | None

    @property
    def key(self) -> str:
        return f"{self.suite}/{self.case}"

    @property
    def text(self) -> str:
        return self.result.response if self.result is not None else ""

    @property
    def sha256(self) -> str:
        return answer_sha256(self.text)

    @property
    def judge_score(self) -> float | None:
        return self.result.score if self.result is not None else None


@dataclass(frozen=True, slots=True)
class AnswerState:
    answer: Answer
    scores: dict[str, ScoreLabel]
    """Scores of this very answer, by labeller."""
    elsewhere: dict[str, ScoreLabel]
    """Scores the labellers gave another answer to this case (another run or candidate)."""
    human: float | None
    """The score the labels' policy makes of it (what eval reads as human_score)."""

    @property
    def state(self) -> str:
        values = [s.score for s in self.scores.values()]
        if len(values) >= 2 and max(values) - min(values) >= 2:
            return "disagreeing"
        if values:
            return "scored"
        return "other answer scored" if self.elsewhere else "not yet"


@dataclass(frozen=True, slots=True)
class Agreement:
    """Judge and human scores of the same answers."""

    who: str
    n: int
    qwk: Interval | None
    mad: float | None


@dataclass(slots=True)
class RunSnapshot:
    answers: list[AnswerState] = field(default_factory=list)
    labels: dict[Path, TaskLabels] = field(default_factory=dict)

    @property
    def labelled(self) -> int:
        return sum(bool(a.scores) for a in self.answers)

    def ordered(self) -> list[AnswerState]:
        return sorted(self.answers, key=lambda a: (a.state != "disagreeing", a.answer.index))

    def labellers(self) -> list[str]:
        return sorted({n for a in self.answers for n in a.scores})


def _cases(store: RunStore, run_name: str, target: str | None
           ) -> tuple[str, str, list[Answer]]:
    run = store.get_run(run_name)
    if run is None:
        raise EunomiaError(f"{run_name}: no scenario folder of that name, and no run of that "
                           f"name in {store.path} (eunomia runs lists them)")
    if run.kind != "tasks":
        raise EunomiaError(f"run {run_name} is a {run.kind} run: label a scenario by its folder "
                           "(eunomia label SCENARIO_FOLDER)")
    targets = list(run.targets)
    if target is None:
        if len(targets) != 1:
            raise EunomiaError(f"run {run_name} has {len(targets)} candidates "
                               f"({', '.join(targets)}): choose one with --target")
        target = targets[0]
    elif target not in targets:
        raise EunomiaError(f"run {run_name} has no candidate {target!r} (it has "
                           f"{', '.join(targets)})")
    answers: list[Answer] = []
    for suite in store.suites(run):
        path = Path(suite.path)
        if not path.is_file():
            raise EunomiaError(
                f"the suite file {suite.path} of run {run_name} is not here (the path is as "
                "eval was given it): run eunomia label from the folder eval ran in")
        seen: set[str] = set()
        for row in store.iter_cases(run, suite.name, target):
            if row.case_name in seen or row.request is None:
                continue  # the first repeat only; a case that could not be read has no task
            seen.add(row.case_name)
            task = orjson.loads(store.get_blob(row.request))
            result = (CaseResult.model_validate_json(store.get_blob(row.response))
                      if row.response is not None else None)
            answers.append(Answer(len(answers), path.stem, row.case_name,
                                  task_labels_path(path), task, result, row.error))
    if not answers:
        raise EunomiaError(f"run {run_name} has no answer of {target} to label")
    return run.name, target, answers


class RunBook:
    """A judged task run being labelled (its answers read once; the run is finished)."""

    def __init__(self, store_path: Path, run_name: str, target: str | None = None) -> None:
        if not store_path.is_file():
            raise EunomiaError(f"no run store at {store_path}; give --results or --store")
        store = RunStore(store_path)
        try:
            self.run, self.target, self.answers = _cases(store, run_name, target)
            info = store.require_run(run_name)
        finally:
            store.close()
        self.judge = str(info.settings.get("judge") or "")
        self.scale = _scale(info.settings.get("rubric"))
        self.read()  # a broken labels.yml stops the server before it starts

    @property
    def scorer(self) -> str:
        """What scored the answers, in words: ``the judge``, or with ``--judge none`` ``the
        checks`` (each case's score is then its checks')."""
        return "the checks" if self.judge.strip().lower() == NO_JUDGE else "the judge"

    @property
    def scorer_score(self) -> str:
        """``the judge's score`` or ``the checks' score``."""
        return f"{self.scorer}' score" if self.scorer.endswith("s") else \
            f"{self.scorer}'s score"

    @property
    def paths(self) -> list[Path]:
        return sorted({a.path for a in self.answers})

    def position(self, key: str) -> int | None:
        for a in self.answers:
            if a.key == key:
                return a.index
        return None

    def state(self, snap: RunSnapshot, key: str) -> AnswerState | None:
        """The answer of key ``key`` in ``snap``, if there is one."""
        i = self.position(key)
        return None if i is None else snap.answers[i]

    def neighbours(self, key: str) -> tuple[str | None, str | None]:
        i = self.position(key)
        if i is None:
            return None, None
        before = self.answers[i - 1].key if i > 0 else None
        after = self.answers[i + 1].key if i + 1 < len(self.answers) else None
        return before, after

    def read(self) -> RunSnapshot:
        snap = RunSnapshot(labels={p: read_scores(p) for p in self.paths})
        for a in self.answers:
            labels = snap.labels[a.path]
            given = labels.suites.get(a.suite, {}).get(a.case, {})
            mine = {n: s for n, s in sorted(given.items()) if s.answer_sha256 == a.sha256}
            other = {n: s for n, s in sorted(given.items()) if s.answer_sha256 != a.sha256}
            snap.answers.append(AnswerState(a, mine, other,
                                            resolve_score(given, labels.policy)))
        return snap

    def agreement(self, snap: RunSnapshot) -> list[Agreement]:
        """The judge (:attr:`scorer`) against each labeller (and against their mean), over the
        answers both scored; quadratic-weighted kappa with a bootstrap interval, mean absolute
        difference."""
        out: list[Agreement] = []
        judged = [a for a in snap.answers if a.answer.judge_score is not None and a.scores]
        whom = [*snap.labellers(), *(["mean of the labellers"] if len(snap.labellers()) > 1
                                     else [])]
        for who in whom:
            pairs = [(fmean(s.score for s in a.scores.values())
                      if who == "mean of the labellers" else float(a.scores[who].score),
                      float(a.answer.judge_score or 0.0))
                     for a in judged if who == "mean of the labellers" or who in a.scores]
            humans, judge = [p[0] for p in pairs], [p[1] for p in pairs]
            out.append(Agreement(who, len(pairs), paired_statistic_ci(
                humans, judge, scores_kappa, resamples=AGREEMENT_RESAMPLES),
                mean_absolute_difference(humans, judge) if pairs else None))
        return out

    def human_alpha(self, snap: RunSnapshot) -> tuple[float | None, int]:
        """Krippendorff's alpha (interval) between the labellers, over answers scored twice."""
        units: list[list[float | None]] = [[float(s.score) for s in a.scores.values()]
                                           for a in snap.answers if len(a.scores) >= 2]
        return (krippendorff_alpha(units, "interval") if units else None), len(units)


def _scale(rubric: Any) -> dict[int, str]:
    """What each score means, from the rubric's "N - meaning" lines (the run's own rubric
    when it is still there, else the bundled one)."""
    try:
        path = Path(rubric) if isinstance(rubric, str) and Path(rubric).is_file() else None
        text = Rubric.load(path).template.text
    except EunomiaError:
        return {}
    return {int(m.group(1)): m.group(2).strip() for m in _SCALE.finditer(text)}
