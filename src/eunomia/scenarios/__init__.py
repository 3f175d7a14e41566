"""Structured-grading scenarios: the manifest format, loading, id mapping and validation, and
the trivial baselines' answers (what a system that knows nothing returns)."""

from eunomia.scenarios._baseline import (
    BASELINE_DEFAULT,
    BASELINE_TARGETS,
    BASELINES,
    baseline_feedback,
    baseline_instructions,
)
from eunomia.scenarios._discover import ScenarioSource, discover
from eunomia.scenarios._grades import (
    RECORDED_TARGETS,
    CreditExpectation,
    RecordedFeedback,
    RecordedItem,
    TutorGrade,
    parse_credit_expectation,
)
from eunomia.scenarios._loader import exercise_id_for, inside, load_scenario
from eunomia.scenarios._model import (
    Criterion,
    Exercise,
    Instruction,
    InvalidTestCase,
    Scenario,
    TestCase,
)
from eunomia.scenarios._mutations import (
    AppliedMutation,
    GeneratedCase,
    MutationRule,
    UsableRule,
    rules_lines,
    shown_by,
)
from eunomia.scenarios._snapshot import scenario_from_json, scenario_to_json

__all__ = [
    "BASELINES",
    "BASELINE_DEFAULT",
    "BASELINE_TARGETS",
    "RECORDED_TARGETS",
    "AppliedMutation",
    "CreditExpectation",
    "Criterion",
    "Exercise",
    "GeneratedCase",
    "Instruction",
    "InvalidTestCase",
    "MutationRule",
    "RecordedFeedback",
    "RecordedItem",
    "Scenario",
    "ScenarioSource",
    "TestCase",
    "TutorGrade",
    "UsableRule",
    "baseline_feedback",
    "baseline_instructions",
    "discover",
    "exercise_id_for",
    "inside",
    "load_scenario",
    "parse_credit_expectation",
    "rules_lines",
    "scenario_from_json",
    "scenario_to_json",
    "shown_by",
]
