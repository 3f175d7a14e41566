"""What the label server shows of a scenario: its cases with their labels' state, the progress,
and how much the labellers agree per criterion.

The scenario is loaded once, as its manifest alone says (every case, whatever its labels);
the labels are read from ``labels.yml`` anew for every page, so two servers, a hand edit and
a save in another tab all show.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from eunomia import defaults
from eunomia.errors import EunomiaError, Severity
from eunomia.labelling._store import read_scenario_labels
from eunomia.scenarios import Criterion, Scenario, TestCase, load_scenario
from eunomia.scenarios._labels import (
    CANNOT_TELL,
    MAJORITY,
    CaseLabel,
    Resolution,
    ScenarioLabels,
    labels_path,
    resolve_case,
)
from eunomia.stats import RaterAgreement, rater_agreement

AGREEMENT_RESAMPLES = 1000
"""Bootstrap resamples of the agreement intervals on the index page."""


@dataclass(frozen=True, slots=True)
class CaseState:
    """One case as the index shows it."""

    index: int
    """Its position among the scenario's cases (0-based)."""
    name: str
    labels: dict[str, CaseLabel]
    """Every labeller's label (complete or not)."""
    resolution: Resolution
    manifest: tuple[int, ...] | None
    """What the manifest expects of it (None when the manifest expects nothing)."""

    @property
    def labellers(self) -> tuple[str, ...]:
        return self.resolution.labellers

    @property
    def drafts(self) -> tuple[str, ...]:
        return tuple(sorted(n for n in self.labels if n not in self.resolution.labellers))

    @property
    def disagreeing(self) -> bool:
        return bool(self.resolution.disagree)

    @property
    def state(self) -> str:
        """``disagreeing``, ``labelled``, ``started`` or ``not yet``."""
        if self.disagreeing:
            return "disagreeing"
        if self.labellers:
            return "labelled"
        return "started" if self.labels else "not yet"

    def cannot_tell(self) -> list[str]:
        """Labellers who could not tell some criterion."""
        return sorted(n for n, lab in self.labels.items() if CANNOT_TELL in lab.choices.values())


@dataclass(frozen=True, slots=True)
class CriterionAgreement:
    criterion: Criterion
    agreement: RaterAgreement | None
    labelled: int
    """Cases with at least one complete label that chose an instruction for it."""


@dataclass(slots=True)
class Snapshot:
    """The labels as read for one page."""

    labels: ScenarioLabels
    cases: list[CaseState] = field(default_factory=list)

    @property
    def labelled(self) -> int:
        return sum(bool(c.labellers) for c in self.cases)

    @property
    def resolved(self) -> int:
        return sum(c.resolution.expected is not None for c in self.cases)

    def ordered(self) -> list[CaseState]:
        """Disagreeing cases first, then the others in the scenario's order."""
        return sorted(self.cases, key=lambda c: (not c.disagreeing, c.index))

    def labellers(self) -> list[str]:
        return sorted({n for c in self.cases for n in c.labels})


class Book:
    """A scenario folder being labelled."""

    def __init__(self, folder: Path) -> None:
        scenario, problems = load_scenario(folder, labels=False)
        if scenario is None:
            shown = "\n".join(f"  {p}" for p in problems if p.severity is Severity.ERROR)
            raise EunomiaError(f"cannot label {folder}: the scenario has errors\n{shown}")
        if not scenario.criteria:
            raise EunomiaError(
                f"cannot label {folder}: its manifest has no criteria, so there is no "
                "instruction to choose; add criteria (with their instructions) to "
                f"{folder / defaults.MANIFEST_FILE}")
        if not scenario.test_cases:
            raise EunomiaError(f"cannot label {folder}: it has no usable test case")
        self.folder = folder
        self.scenario: Scenario = scenario
        self.path = labels_path(folder)
        self.read()  # a broken labels.yml stops the server before it starts

    @property
    def cases(self) -> list[TestCase]:
        return self.scenario.test_cases

    def position(self, name: str) -> int | None:
        for i, case in enumerate(self.cases):
            if case.name == name:
                return i
        return None

    def state(self, snap: Snapshot, name: str) -> CaseState | None:
        """The case named ``name`` in ``snap``, if there is one."""
        i = self.position(name)
        return None if i is None else snap.cases[i]

    def read(self) -> Snapshot:
        labels = read_scenario_labels(self.path)
        snap = Snapshot(labels)
        criteria = self.scenario.criteria
        for i, case in enumerate(self.cases):
            by = dict(sorted(labels.cases.get(case.name, {}).items()))
            snap.cases.append(CaseState(
                i, case.name, by, resolve_case(by, criteria, labels.policy),
                case.expected if self.scenario.labelled else None))
        return snap

    def agreement(self, snap: Snapshot) -> list[CriterionAgreement]:
        """Per criterion, the labellers' agreement over the cases (complete labels only;
        "cannot tell" is no rating)."""
        out: list[CriterionAgreement] = []
        criteria = self.scenario.criteria
        for c in criteria:
            items: list[dict[str, Hashable]] = []
            for case in snap.cases:
                rated: dict[str, Hashable] = {
                    n: lab.choices[c.textual_id] for n, lab in case.labels.items()
                    if n in case.labellers and lab.choices[c.textual_id] != CANNOT_TELL}
                if rated:
                    items.append(rated)
            out.append(CriterionAgreement(
                c, rater_agreement(items, resamples=AGREEMENT_RESAMPLES), len(items)))
        return out

    def policy_text(self, labels: ScenarioLabels) -> str:
        policy = labels.policy
        if policy == (MAJORITY,):
            return "the majority of the labellers (a tie leaves the case unresolved)"
        return "the first with a complete label of " + ", ".join(policy)

    def neighbours(self, name: str) -> tuple[str | None, str | None]:
        i = self.position(name)
        if i is None:
            return None, None
        before = self.cases[i - 1].name if i > 0 else None
        after = self.cases[i + 1].name if i + 1 < len(self.cases) else None
        return before, after

    def instruction_names(self, ids: Sequence[int]) -> list[str]:
        return [self.scenario.instructions[i].textual_id for i in ids]
