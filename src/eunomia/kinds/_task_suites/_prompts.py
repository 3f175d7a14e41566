"""What every kind that runs over task suites (tasks, judge checks, pairwise) needs of them
per target: each suite's own rubric, and each category's guidance read once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from eunomia.judge import Rubric
from eunomia.tasks import TaskCategory, TaskSuite


def suite_rubrics(suites: Sequence[TaskSuite]) -> dict[str, Rubric]:
    """The suites that name a rubric of their own, by suite name."""
    return {s.name: Rubric.from_text(s.rubric, Path(s.rubric_path or s.path))
            for s in suites if s.rubric}


class Guidance:
    """Each category's guidance prompt, read from its file once per target run."""

    def __init__(self) -> None:
        self._read: dict[str, str] = {}

    def __call__(self, category: TaskCategory) -> str:
        found = self._read.get(category.name)
        if found is None:
            found = self._read[category.name] = category.guidance()
        return found
