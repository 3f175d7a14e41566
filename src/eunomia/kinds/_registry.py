"""The registry of evaluation kinds: the one place that lists them.

A kind is a package of ``eunomia.kinds`` whose ``KIND`` is an instance of its
:class:`eunomia.kinds.Kind` subclass; adding one is a new folder and a line in :data:`KINDS`.
A kind is imported when it is first asked for, so a command that needs one kind does not
load the others; what a list of stored runs says of each (:class:`KindEntry`) is here, so
that ``eunomia runs`` loads no kind at all.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from eunomia.errors import EunomiaError

if TYPE_CHECKING:
    from eunomia.kinds._base import Kind


@dataclass(frozen=True)
class KindEntry:
    """A kind as the registry knows it, without importing it (its ``Kind`` reads its command
    and score digits from here)."""

    package: str
    """The package that implements it (its ``KIND``)."""
    command: str
    """The ``eunomia`` command that runs it (``run``, ``eval``...)."""
    score_digits: int
    """The digits of its mean score in tables."""


KINDS: dict[str, KindEntry] = {
    "scenarios": KindEntry("eunomia.kinds.scenarios", "run", 1),
    "tasks": KindEntry("eunomia.kinds.tasks", "eval", 2),
    "judge_check": KindEntry("eunomia.kinds.judge_check", "judge-check", 3),
    "pairwise": KindEntry("eunomia.kinds.pairwise", "eval --pairwise", 2),
}
"""Run kind (as stored with a run) -> what implements it."""


def kind_entry(name: str) -> KindEntry:
    """The registry's entry of runs stored as ``name``."""
    entry = KINDS.get(name)
    if entry is None:
        raise EunomiaError(f"unknown kind of run {name!r} (this Eunomia knows "
                           f"{', '.join(KINDS)}); it may have been stored by a newer version")
    return entry


def kind_named(name: str) -> Kind[object]:
    """The kind of runs stored as ``name`` (its summaries are its own business: a caller
    that knows the kind has its typed ``KIND``)."""
    kind: Kind[object] = importlib.import_module(kind_entry(name).package).KIND
    return kind


def all_kinds() -> list[Kind[object]]:
    return [kind_named(name) for name in KINDS]


def kinds_for(path: Path) -> list[Kind[object]]:
    """The kinds whose suites ``path`` holds (a folder may hold suites of several)."""
    return [kind for kind in all_kinds() if kind.owns(path)]
