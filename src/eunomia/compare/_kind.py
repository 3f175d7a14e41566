"""What a kind tells a comparison of two of its runs (``eunomia.compare``): the facts of a
scored repeat beyond its stored row, and the protocol a kind implements for comparisons.

Light on purpose: a kind (and every command that loads one) imports these from
``eunomia.compare`` without loading the comparison itself (see its ``__init__``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from eunomia.store import CaseRow, RunInfo, RunStore


@dataclass(frozen=True, slots=True)
class CaseFacts:
    """What a kind knows of one scored repeat beyond its stored row."""

    score: float | None
    """The headline score (a scenario's rescored from its snapshot, like the exports)."""
    detected: bool | None = None
    fully_correct: bool | None = None
    missing: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Criterion -> instructions expected and not returned."""
    extra: Mapping[str, frozenset[str]] = field(default_factory=dict)
    """Criterion -> instructions returned and not expected."""
    expected_criteria: frozenset[str] = frozenset()
    """Criteria the case expects an instruction of."""
    credits_met: bool | None = None
    """Every credit expectation of the case met; None when it has none (scenarios)."""
    awarded_percent: float | None = None
    """The points the system awarded, in percent of the maximum (scenarios)."""
    tutor_percent: float | None = None
    """The tutor's points in percent of the maximum, when the case carries a grade."""


class RunFacts(Protocol):
    """One run's case facts, its suites read once."""

    def case(self, row: CaseRow) -> CaseFacts | None: ...

    def criterion_title(self, suite: str, criterion: str) -> str | None: ...


class ComparedKind(Protocol):
    """What a kind adds to the comparison of two of its runs."""

    @property
    def name(self) -> str: ...

    @property
    def compare_score(self) -> tuple[str, str]:
        """The score's label and unit, e.g. ("Score (%)", "%")."""
        ...

    @property
    def detects(self) -> bool:
        """Whether its cases have detection and full correctness (McNemar on both)."""
        ...

    def run_facts(self, store: RunStore, run: RunInfo) -> RunFacts: ...

    def definition_changes(self, suite: str, a: Any, b: Any) -> list[str] | None:
        """None when two stored definitions of ``suite`` score the same; else what changed."""
        ...
