"""A stored task case as summaries and exports read it: the record of one case (one
repeat) and what they need of the case itself (its groups, difficulty, human score)."""

from __future__ import annotations

from dataclasses import dataclass

from eunomia.tasks._model import LoadedCase
from eunomia.tasks._result import CaseResult, CaseStatus
from eunomia.tasks.categories import category_for


def _category(case: LoadedCase) -> str:
    """The category, spelled as its kind's title when it names one (case-insensitive)."""
    kind = category_for(case.category)
    return kind.title if kind is not None else case.category


@dataclass(frozen=True, slots=True)
class CaseMeta:
    """What summaries and tables need of a case; cases alike share one (see :meth:`of`)."""

    kind: str
    category: str
    """As the case gives it (or its kind's name)."""
    group_category: str
    """The category spelled as its kind's title when it names one: the grouping value."""
    sub_categories: tuple[str, ...]
    difficulty: str
    human_score: float | None

    @classmethod
    def of(cls, case: LoadedCase, shared: dict[CaseMeta, CaseMeta] | None = None) -> CaseMeta:
        meta = cls(case.kind, case.category, _category(case), tuple(case.case.sub_categories),
                   case.difficulty, case.case.human_score)
        return meta if shared is None else shared.setdefault(meta, meta)


@dataclass(slots=True)
class CaseRecord:
    """One stored case (one repeat), rebuilt for summaries and exports."""

    suite: str
    case_name: str
    repeat: int
    status: CaseStatus
    case: LoadedCase | None
    result: CaseResult | None
    error: str | None = None
    cost: float | None = None
    cached: bool = False
    attempts: int = 0
    meta: CaseMeta | None = None
    """What is needed of the case when ``case`` itself is not at hand (exports from the
    store look it up by name); otherwise taken from ``case``."""

    @property
    def score(self) -> float | None:
        return self.result.score if self.result is not None and self.status == "scored" \
            else None

    @property
    def info(self) -> CaseMeta | None:
        if self.meta is not None:
            return self.meta
        return CaseMeta.of(self.case) if self.case is not None else None

    @property
    def failure(self) -> tuple[str, str, int, str, str] | None:
        """(suite, case, repeat, status, reason) when the case was not scored."""
        if self.status == "scored":
            return None
        reason = self.error or (self.result.feedback if self.result is not None else "") \
            or self.status
        return self.suite, self.case_name, self.repeat, self.status, reason
