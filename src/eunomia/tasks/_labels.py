"""``labels.yml`` in a folder of task suites: the 0-5 scores people gave candidates' answers.

Written by ``eunomia label RUN`` (``eunomia.labelling``), read here: the loader gives each case
a labeller scored its ``human_score`` (:func:`human_scores`), which ``eval`` compares with the
judge (quadratic-weighted kappa, mean absolute difference)::

    kind: tasks
    human_score: mean          # or a labeller's name, or a list of names (the first who scored)
    suites:
      summarization:           # the suite file's name without .yaml
        sum-01:
          anna: {score: 4, note: "", at: "...", revision: 1,
                 run: run_20261127_0801, target: "local", answer_sha256: "..."}
    history: [{suite, case, labeller, score, ..., replaced_at}, ...]

Each score records the answer it was given to (the run, the candidate and the answer's
SHA-256): a case's ``human_score`` rates that answer, and ``eval`` compares it with the
judge's score of the answer of the run at hand, which is the same answer when the run asked
the same candidate with the cache on.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from statistics import fmean
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator

from eunomia import defaults
from eunomia.errors import Diagnostic, Severity
from eunomia.yamlfile import YamlFileError, diag_at, read_yaml, validate_document

MEAN = "mean"


def _text(value: Any) -> Any:
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


class ScoreLabel(BaseModel):
    """One labeller's score of one case's answer."""

    model_config = ConfigDict(extra="forbid")

    score: int = Field(ge=0, le=5)
    note: str = ""
    at: str
    revision: int = Field(ge=1)
    run: str = ""
    target: str = ""
    answer_sha256: str = ""
    """SHA-256 of the answer's text (UTF-8) the score was given to."""

    @field_validator("note", mode="before")
    @classmethod
    def _note(cls, value: Any) -> Any:
        return "" if value is None else value


class HistoryScore(ScoreLabel):
    suite: str
    case: str
    labeller: str
    replaced_at: str


class TaskLabels(BaseModel):
    """The whole ``labels.yml`` of a folder of task suites."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["tasks"] = "tasks"
    human_score: str | list[str] = MEAN
    """Which scores make a case's ``human_score``: ``mean`` of its labellers', a labeller's,
    or the first of several labellers who scored it."""
    suites: dict[str, dict[str, dict[str, ScoreLabel]]] = Field(default_factory=dict)
    history: list[HistoryScore] = Field(default_factory=list)

    @field_validator("suites", mode="before")
    @classmethod
    def _names(cls, value: Any) -> Any:
        if not isinstance(value, dict):
            return {} if value is None else value
        return {_text(s): ({_text(c): ({_text(n): v for n, v in by.items()}
                                       if isinstance(by, dict) else by)
                            for c, by in cases.items()} if isinstance(cases, dict) else cases)
                for s, cases in value.items()}

    @field_validator("history", mode="before")
    @classmethod
    def _none(cls, value: Any) -> Any:
        return [] if value is None else value

    @property
    def policy(self) -> tuple[str, ...]:
        return (self.human_score,) if isinstance(self.human_score, str) \
            else tuple(self.human_score)


def task_labels_path(suite_file: Path) -> Path:
    return suite_file.parent / defaults.LABELS_FILE


def read_task_labels(path: Path) -> tuple[TaskLabels | None, list[Diagnostic]]:
    """The scores in ``path`` (absent, or a scenario's labels file: none, no diagnostic)."""
    if not path.is_file():
        return TaskLabels(), []
    try:
        doc = read_yaml(path)
    except YamlFileError as exc:
        return None, [exc.diagnostic]
    if doc.data is None or (isinstance(doc.data, dict) and doc.data.get("kind") == "scenario"):
        return TaskLabels(), []
    labels, problems = validate_document(doc, TaskLabels)
    return labels, problems


def task_labels_yaml(labels: TaskLabels, header: str = "") -> str:
    body = yaml.safe_dump(labels.model_dump(mode="json"), sort_keys=False, allow_unicode=True,
                          width=100)
    return header + body


def resolve_score(by_labeller: dict[str, ScoreLabel], policy: Sequence[str]) -> float | None:
    """The human score of one case under ``policy`` (None: nobody the policy names)."""
    if not by_labeller:
        return None
    if tuple(policy) == (MEAN,):
        return fmean(s.score for s in by_labeller.values())
    first = next((n for n in policy if n in by_labeller), None)
    return None if first is None else float(by_labeller[first].score)


def human_scores(suite_file: Path, suite: str) -> tuple[dict[str, float], list[Diagnostic]]:
    """Case name → human score of ``suite`` from the labels beside ``suite_file``."""
    path = task_labels_path(suite_file)
    labels, problems = read_task_labels(path)
    if labels is None:
        return {}, problems
    out: dict[str, float] = {}
    for case, by in labels.suites.get(suite, {}).items():
        value = resolve_score(by, labels.policy)
        if value is not None:
            out[case] = value
    if labels.suites.get(suite) and not out:
        problems.append(Diagnostic(Severity.WARNING, path, f"no score of suite {suite!r} is "
                                   f"by {', '.join(labels.policy)} (key human_score)"))
    return out, problems


def unknown_cases(suite_file: Path, suite: str, names: set[str]) -> list[Diagnostic]:
    """Scores of cases the suite does not have (a warning each)."""
    path = task_labels_path(suite_file)
    labels, _ = read_task_labels(path)
    if labels is None or not path.is_file():
        return []
    doc = read_yaml(path)
    return [diag_at(doc, ("suites", suite, case), f"suite {suite!r} has no case {case!r}; its "
                    "scores are ignored", Severity.WARNING)
            for case in labels.suites.get(suite, {}) if case not in names]
