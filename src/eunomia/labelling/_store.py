"""Saving labels into the suite's own ``labels.yml``: whole or not at all, one save at a time,
and never over a label saved since the form was opened.

Every save runs under a lock on the labels file's folder (``flock``, so two ``eunomia label``
servers on the same scenario wait for each other too), reads the file as it is on disk, checks
the revision the form was made from against the revision saved now, and writes the whole
file anew through a temporary file (:func:`eunomia.files.write_text_atomic`). The label it
replaces goes to ``history``. A stale save is refused and returns the label saved since.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from eunomia.errors import Diagnostic, EunomiaError, has_errors
from eunomia.files import write_text_atomic
from eunomia.scenarios._labels import (
    CaseLabel,
    HistoryLabel,
    ScenarioLabels,
    labels_yaml,
    read_labels,
)
from eunomia.store import now
from eunomia.tasks._labels import (
    HistoryScore,
    ScoreLabel,
    TaskLabels,
    read_task_labels,
    task_labels_yaml,
)

if sys.platform != "win32":
    import fcntl

HEADER = ("# Labels given with `eunomia label` (see README.md, 'Labelling in the browser').\n"
          "# Edited by hand, keep the keys; a running label server re-reads the file at\n"
          "# every page and save, and rewrites it whole (comments other than these are lost).\n")

_THREAD_LOCK = threading.Lock()

L = TypeVar("L")
M = TypeVar("M", ScenarioLabels, TaskLabels)


@dataclass(frozen=True, slots=True)
class Saved(Generic[L]):
    """The outcome of a save: ``saved`` false when the form was stale."""

    saved: bool
    label: L | None
    """The label in the file now: the one just saved, or the newer one that refused it."""


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the lock of ``folder``'s labels: one save at a time across threads and
    processes (``flock`` on the folder; threads only where there is no ``flock``)."""
    with _THREAD_LOCK:
        if sys.platform == "win32":  # pragma: no cover - no flock: this process only
            yield
            return
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError as exc:
            raise EunomiaError(f"cannot open {folder}: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the lock


def _usable(path: Path, labels: M | None, problems: list[Diagnostic]) -> M:
    if labels is None or has_errors(problems):
        shown = "; ".join(str(p) for p in problems[:3])
        raise EunomiaError(f"{path} cannot be read ({shown}); fix it, then save again")
    return labels


def read_scenario_labels(path: Path) -> ScenarioLabels:
    """The scenario's labels, or an error naming the file and what is wrong with it."""
    labels, _, problems = read_labels(path)
    return _usable(path, labels, problems)


def read_scores(path: Path) -> TaskLabels:
    """The human scores of a folder of task suites, or an error naming the file."""
    labels, problems = read_task_labels(path)
    return _usable(path, labels, problems)


def _update(path: Path, read: Callable[[Path], M], dump: Callable[[M, str], str],
            change: Callable[[M], bool]) -> None:
    """Apply ``change`` to the labels on disk, under the lock; write when it says so."""
    with folder_lock(path.parent):
        labels = read(path)
        if change(labels):
            write_text_atomic(path, dump(labels, HEADER))


def save_case_label(path: Path, case: str, labeller: str, choices: dict[str, str], note: str,
                    base_revision: int) -> Saved[CaseLabel]:
    """Save ``labeller``'s label of ``case`` if the label on disk still has
    ``base_revision`` (0: none yet); else refuse, returning the label saved since."""
    outcome: list[Saved[CaseLabel]] = []

    def change(labels: ScenarioLabels) -> bool:
        current = labels.cases.get(case, {}).get(labeller)
        revision = current.revision if current is not None else 0
        if revision != base_revision:
            outcome.append(Saved(False, current))
            return False
        label = CaseLabel(choices=choices, note=note, at=now(), revision=revision + 1)
        if current is not None:
            labels.history.append(HistoryLabel(**current.model_dump(), case=case,
                                               labeller=labeller, replaced_at=label.at))
        labels.cases.setdefault(case, {})[labeller] = label
        outcome.append(Saved(True, label))
        return True

    _update(path, read_scenario_labels, labels_yaml, change)
    return outcome[0]


def set_expected(path: Path, expected: str | list[str]) -> None:
    """Set whose labels count as expected (``majority``, a name, or names in order)."""

    def change(labels: ScenarioLabels) -> bool:
        if labels.expected == expected:
            return False
        labels.expected = expected
        return True

    _update(path, read_scenario_labels, labels_yaml, change)


@dataclass(frozen=True, slots=True)
class Rated:
    """What a human score was given to."""

    run: str
    target: str
    answer_sha256: str


def save_score(path: Path, suite: str, case: str, labeller: str, score: int, note: str,
               base_revision: int, rated: Rated) -> Saved[ScoreLabel]:
    """:func:`save_case_label` for a human score of a task case's answer."""
    outcome: list[Saved[ScoreLabel]] = []

    def change(labels: TaskLabels) -> bool:
        current = labels.suites.get(suite, {}).get(case, {}).get(labeller)
        revision = current.revision if current is not None else 0
        if revision != base_revision:
            outcome.append(Saved(False, current))
            return False
        label = ScoreLabel(score=score, note=note, at=now(), revision=revision + 1,
                           run=rated.run, target=rated.target,
                           answer_sha256=rated.answer_sha256)
        if current is not None:
            labels.history.append(HistoryScore(**current.model_dump(), suite=suite, case=case,
                                               labeller=labeller, replaced_at=label.at))
        labels.suites.setdefault(suite, {}).setdefault(case, {})[labeller] = label
        outcome.append(Saved(True, label))
        return True

    _update(path, read_scores, task_labels_yaml, change)
    return outcome[0]
