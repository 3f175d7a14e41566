"""Structured-grading scenarios: the manifest format, loading, id mapping and validation."""

from eunomia.scenarios._discover import ScenarioSource, discover
from eunomia.scenarios._loader import exercise_id_for, inside, load_scenario
from eunomia.scenarios._model import (
    Criterion,
    Exercise,
    Instruction,
    InvalidTestCase,
    Scenario,
    TestCase,
)
from eunomia.scenarios._snapshot import scenario_from_json, scenario_to_json

__all__ = [
    "Criterion",
    "Exercise",
    "Instruction",
    "InvalidTestCase",
    "Scenario",
    "ScenarioSource",
    "TestCase",
    "discover",
    "exercise_id_for",
    "inside",
    "load_scenario",
    "scenario_from_json",
    "scenario_to_json",
]
