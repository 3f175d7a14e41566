"""The registry of evaluation kinds: the one place that lists them.

A kind is a package of ``eunomia.kinds`` whose ``KIND`` is an instance of its
:class:`eunomia.kinds.Kind` subclass; adding one is a new folder and a line in :data:`KINDS`.
A kind is imported when it is first asked for, so a command that needs one kind does not
load the others.
"""

from __future__ import annotations

import importlib
from pathlib import Path

from eunomia.errors import EunomiaError
from eunomia.kinds._base import Kind

KINDS: dict[str, str] = {
    "scenarios": "eunomia.kinds.scenarios",
    "tasks": "eunomia.kinds.tasks",
    "judge_check": "eunomia.kinds.judge_check",
    "pairwise": "eunomia.kinds.pairwise",
}
"""Run kind (as stored with a run) -> the package that implements it."""


def kind_named(name: str) -> Kind[object]:
    """The kind of runs stored as ``name`` (its summaries are its own business: a caller
    that knows the kind has its typed ``KIND``)."""
    module = KINDS.get(name)
    if module is None:
        raise EunomiaError(f"unknown kind of run {name!r} (this Eunomia knows "
                           f"{', '.join(KINDS)}); it may have been stored by a newer version")
    kind: Kind[object] = importlib.import_module(module).KIND
    return kind


def all_kinds() -> list[Kind[object]]:
    return [kind_named(name) for name in KINDS]


def kinds_for(path: Path) -> list[Kind[object]]:
    """The kinds whose suites ``path`` holds (a folder may hold suites of several)."""
    return [kind for kind in all_kinds() if kind.owns(path)]
