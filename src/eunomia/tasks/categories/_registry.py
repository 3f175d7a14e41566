"""The registry of task categories: category names and file names → the category that runs
them.

A category is one small module that calls :func:`register` with its runner and the name of
its judging-guidance prompt file (in ``eunomia/tasks/prompts``). A case keeps its category's
name as ``kind`` (``LoadedCase.kind``, ``CaseResult.kind``: the name stored and written in
the result files).
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

from eunomia.errors import EunomiaError
from eunomia.tasks._context import CaseContext
from eunomia.tasks._model import LoadedCase, TaskCase
from eunomia.tasks._result import CaseResult

PROMPTS_DIR = Path(__file__).resolve().parents[1] / "prompts"

CategoryRunner = Callable[[LoadedCase, CaseContext], Awaitable[CaseResult]]
Requirement = Callable[[TaskCase], str | None]
"""Returns why a case cannot be run by this category, or None."""


def normalize(name: str) -> str:
    """``"Common Sense Reasoning"``, ``common-sense_reasoning`` → ``common_sense_reasoning``."""
    return re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_")


@dataclass(frozen=True, slots=True)
class TaskCategory:
    name: str
    """Normalized name, e.g. ``summarization``."""
    title: str
    runner: CategoryRunner
    prompt_file: str
    """Judging guidance for this category, a file in :data:`PROMPTS_DIR`."""
    requires: Requirement
    categories: tuple[str, ...] = ()
    """Other category names meaning this category (matched normalized)."""

    def guidance(self) -> str:
        path = PROMPTS_DIR / self.prompt_file
        try:
            return path.read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise EunomiaError(f"cannot read the prompt of task category {self.name}: "
                               f"{exc}") from None


_CATEGORIES: dict[str, TaskCategory] = {}
_NAMES: dict[str, str] = {}


def register(category: TaskCategory) -> TaskCategory:
    if category.name in _CATEGORIES:
        raise ValueError(f"task category {category.name!r} registered twice")
    _CATEGORIES[category.name] = category
    for name in (category.name, category.title, *category.categories):
        _NAMES[normalize(name)] = category.name
    return category


def categories() -> list[TaskCategory]:
    return list(_CATEGORIES.values())


def category_named(name: str) -> TaskCategory:
    return _CATEGORIES[_NAMES.get(normalize(name), name)]


def category_for(category: str | None) -> TaskCategory | None:
    if not category:
        return None
    found = _NAMES.get(normalize(category))
    return _CATEGORIES[found] if found else None


def category_for_file(path: Path) -> TaskCategory | None:
    """The category a file name names (``summarization_ecommerce_tests.yaml``), longest
    match."""
    stem = normalize(path.stem)
    best: tuple[int, str] | None = None
    for name, category in _NAMES.items():
        if re.search(rf"(^|_){re.escape(name)}(_|$)", stem) and (
                best is None or len(name) > best[0]):
            best = (len(name), category)
    return _CATEGORIES[best[1]] if best else None
