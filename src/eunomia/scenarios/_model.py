"""A loaded scenario: exercise, criteria with numeric ids, test cases with expectations."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eunomia.athena import (
    AthenaExercise,
    AthenaGradingCriterion,
    AthenaGradingInstruction,
)
from eunomia.errors import Diagnostic
from eunomia.scenarios._grades import CreditExpectation, RecordedFeedback, TutorGrade


@dataclass(frozen=True, slots=True)
class Instruction:
    """One structured grading instruction (SGI)."""

    id: int
    textual_id: str
    criterion_id: int
    credits: float
    grading_scale: str
    instruction_description: str
    feedback: str


@dataclass(frozen=True, slots=True)
class Criterion:
    id: int
    textual_id: str
    title: str
    instructions: tuple[Instruction, ...]


@dataclass(frozen=True, slots=True)
class Exercise:
    id: int
    title: str
    type: str
    max_points: float
    bonus_points: float
    grading_instructions: str
    problem_statement: str
    example_solution: str | None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TestCase:
    """One student submission and the instructions it should receive."""

    name: str
    path: Path
    submission_id: int
    submission: str
    """The Apollon diagram as the JSON text sent to the target."""
    expected: tuple[int, ...]
    """Expected instruction ids: ``default_expected`` with this case's diffs applied."""
    diff_instructions: frozenset[int]
    """The replacement instructions this case is about (weight 2 in the case score)."""
    diagram_type: str = ""
    expected_credits: tuple[tuple[int, CreditExpectation], ...] = ()
    """``(instruction id, expectation)``: what the credits given under it must satisfy."""
    tutor: TutorGrade | None = None
    """The tutor's grade of this submission, when the scenario records one."""
    recorded: RecordedFeedback | None = None
    """Feedback a system gave this submission elsewhere (``--target recorded`` replays it)."""
    mutations: tuple[tuple[str, str], ...] = ()
    """A generated case's mutations of the example solution: (operator, what it changed),
    from the manifest's ``generated_cases``; empty for a hand-made case."""

    __test__ = False  # not a pytest class

    @property
    def generated(self) -> bool:
        """Made by ``eunomia mutate``."""
        return bool(self.mutations)


@dataclass(frozen=True, slots=True)
class InvalidTestCase:
    """A test case file that could not be used; it is reported as failed, never dropped."""

    name: str
    path: Path
    reason: str


@dataclass(slots=True)
class Scenario:
    name: str
    folder: Path
    server_url: str
    exercise: Exercise
    criteria: tuple[Criterion, ...]
    default_expected: tuple[int, ...]
    test_cases: list[TestCase]
    labelled: bool = True
    """False when the manifest gives no ``default_expected``: the cases have no expected
    instructions, so correctness is not measured (consistency, feedback, cost, latency and
    failures are)."""
    invalid_cases: list[InvalidTestCase] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    left_out: list[TestCase] = field(default_factory=list)
    """Cases without labels in a scenario labelled only in ``labels.yml``: not run (their
    ``expected`` is empty); ``eunomia show`` still draws them."""
    labels_note: str = ""
    """How many cases its ``labels.yml`` labels ("12 of 39 cases labelled in labels.yml
    (anna 12)"); empty without one."""
    instructions: dict[int, Instruction] = field(default_factory=dict)
    """All instructions by numeric id."""
    mutation_rules: dict[str, list[Any]] = field(default_factory=dict)
    """The usable mutation rules ``{instruction: [scenarios.UsableRule]}`` (``eunomia
    mutate``); not stored with runs."""
    by_textual_id: dict[str, Instruction] = field(default_factory=dict)
    _by_name: dict[str, TestCase] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.instructions:
            self.instructions = {i.id: i for c in self.criteria for i in c.instructions}
        if not self.by_textual_id:
            self.by_textual_id = {i.textual_id: i for i in self.instructions.values()}

    def case_named(self, name: str) -> TestCase | None:
        """The test case with this name (an index built on first use)."""
        index = self._by_name
        if index is None or len(index) != len(self.test_cases):
            index = self._by_name = {c.name: c for c in self.test_cases}
        return index.get(name)

    @property
    def graded(self) -> bool:
        """Whether some case carries a tutor's grade (agreement with tutors is measured)."""
        return any(c.tutor is not None for c in self.test_cases)

    def criterion_of(self, instruction_id: int) -> Criterion:
        return self.criteria[self.instructions[instruction_id].criterion_id - 1]

    def athena_exercise(self) -> AthenaExercise:
        """The exercise as Athena expects it, with gradingCriteria and numeric SGI ids."""
        ex = self.exercise
        return AthenaExercise(
            id=ex.id,
            title=ex.title,
            type=ex.type,
            max_points=ex.max_points,
            bonus_points=ex.bonus_points,
            grading_instructions=ex.grading_instructions,
            problem_statement=ex.problem_statement,
            example_solution=ex.example_solution,
            meta=ex.meta,
            grading_criteria=[
                AthenaGradingCriterion(
                    id=c.id,
                    title=c.title,
                    structured_grading_instructions=[
                        AthenaGradingInstruction(
                            id=i.id,
                            credits=i.credits,
                            grading_scale=i.grading_scale,
                            instruction_description=i.instruction_description,
                            feedback=i.feedback,
                        )
                        for i in c.instructions
                    ],
                )
                for c in self.criteria
            ],
        )
