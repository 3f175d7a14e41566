"""The manifest's credit expectations, tutor grades and recorded feedback: read, resolved to
numeric ids, kept in the run's snapshot, and every bad value named by file, line and key."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.scenarios.test_loader import (
    base_manifest,
    dump,
    errors,
    line_of,
    load_ok,
    the_error,
    warnings,
    write_scenario,
)

from eunomia.scenarios import (
    CreditExpectation,
    load_scenario,
    parse_credit_expectation,
    scenario_from_json,
    scenario_to_json,
)

ROOT = Path(__file__).resolve().parents[2]
MODULE_TESTS = ROOT / "examples" / "athena" / "module_tests"


def graded_manifest(**overrides: Any) -> dict[str, Any]:
    return base_manifest(
        expected_credits={"classes_correct": "== 0.0", "relationship_correct": ">= 0.5"},
        cases={
            "perfect": {
                "tutor": {"points": 2.0, "feedback": [
                    {"title": "Fine", "description": "All there.", "credits": 2.0,
                     "instruction": "classes_correct"}]},
                "recorded": {"source": "gpt-4o via Athena", "feedback": [
                    {"title": "Classes", "description": "ok", "credits": 1.0,
                     "instruction": "classes_correct", "element": "Project"},
                    {"title": "Other", "description": "no instruction", "credits": -0.5,
                     "meta": {"grading_instruction_id": 7}}]},
            },
            "association": {
                "expected_credits": {"relationship_incorrect": 0},
                "tutor": {"percent": 25.0},
            },
        },
        **overrides,
    )


@pytest.mark.parametrize(("text", "op", "value"), [
    ("== 0.0", "==", 0.0), (">= 1.0", ">=", 1.0), ("<=2", "<=", 2.0), ("> -1", ">", -1.0),
    ("< .5", "<", 0.5), ("2", "==", 2.0), (3, "==", 3.0), (1.5, "==", 1.5)])
def test_credit_expectations_parse(text: Any, op: str, value: float) -> None:
    assert parse_credit_expectation(text) == CreditExpectation(op, value)


@pytest.mark.parametrize(("text", "why"), [
    ("about 2", "invalid credit expectation"), ("=> 1", "invalid credit expectation"),
    ("== 1e999", "finite"), (float("nan"), "finite"), (">= 20000", "between"),
    (True, "a number or a text"), ([1], "a number or a text")])
def test_bad_credit_expectations_say_why(text: Any, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        parse_credit_expectation(text)


def test_expectations_are_met_with_the_score_tolerance() -> None:
    assert CreditExpectation("==", 0.3).met(0.1 + 0.2)
    assert not CreditExpectation("==", 0.0).met(0.5)
    assert CreditExpectation(">=", 1.0).met(1.0) and not CreditExpectation(">", 1.0).met(1.0)
    assert CreditExpectation("<", 0.0).met(-0.5) and not CreditExpectation("<=", 0.0).met(0.1)


def test_a_graded_scenario_loads(tmp_path: Path) -> None:
    sc = load_ok(write_scenario(tmp_path, graded_manifest()))
    by = sc.by_textual_id
    perfect, association = sc.case_named("perfect"), sc.case_named("association")
    assert perfect is not None and association is not None
    assert perfect.expected_credits == (
        (by["classes_correct"].id, CreditExpectation("==", 0.0)),
        (by["relationship_correct"].id, CreditExpectation(">=", 0.5)))
    # a case's own expectations are added to (and replace) the scenario's
    assert dict(association.expected_credits)[by["relationship_incorrect"].id] == \
        CreditExpectation("==", 0.0)
    assert perfect.tutor is not None and perfect.tutor.points == 2.0
    assert perfect.tutor.feedback is not None
    assert perfect.tutor.feedback.items[0].instruction == by["classes_correct"].id
    assert association.tutor is not None and association.tutor.points == pytest.approx(0.5)
    assert association.tutor.percent == 25.0
    assert perfect.recorded is not None and perfect.recorded.source == "gpt-4o via Athena"
    first, second = perfect.recorded.items
    assert (first.instruction, first.element, first.credits) == (by["classes_correct"].id,
                                                                 "Project", 1.0)
    assert second.instruction is None and second.meta == {"grading_instruction_id": 7}
    assert sc.graded


def test_the_snapshot_keeps_expectations_and_grades(tmp_path: Path) -> None:
    sc = load_ok(write_scenario(tmp_path, graded_manifest()))
    back = scenario_from_json(scenario_to_json(sc))
    for a, b in zip(sc.test_cases, back.test_cases, strict=True):
        assert a.expected_credits == b.expected_credits
        assert (a.tutor is None) == (b.tutor is None)
        if a.tutor is not None and b.tutor is not None:
            assert (a.tutor.points, a.tutor.percent) == (b.tutor.points, b.tutor.percent)
        assert b.recorded is None  # the run stores what it replayed, not the records


def test_a_plain_scenario_is_unchanged(tmp_path: Path) -> None:
    sc = load_ok(write_scenario(tmp_path))
    assert all(c.expected_credits == () and c.tutor is None and c.recorded is None
               for c in sc.test_cases)
    assert not sc.graded
    assert "expected_credits" not in str(scenario_to_json(sc))


@pytest.mark.parametrize(("change", "key", "message"), [
    (lambda m: m["expected_credits"].update({"nope": "== 1"}),
     "expected_credits.nope", "unknown instruction id 'nope'"),
    (lambda m: m["expected_credits"].update({"classes_correct": ">= 1e999"}),
     "expected_credits.classes_correct", "finite"),
    (lambda m: m["expected_credits"].update({"classes_correct": "around 1"}),
     "expected_credits.classes_correct", "invalid credit expectation"),
    (lambda m: m["cases"].update({"ghost": {"tutor": {"points": 1}}}),
     "cases.ghost", "has no file test_cases/ghost.json"),
    (lambda m: m["cases"]["perfect"]["tutor"].update({"points": 3.0}),
     "cases.perfect.tutor.points", "more than the exercise's max_points + bonus_points"),
    (lambda m: m["cases"]["perfect"]["tutor"].update({"points": -1.0}),
     "cases.perfect.tutor.points", "greater than or equal to 0"),
    (lambda m: m["cases"]["perfect"]["tutor"].update({"points": float("inf")}),
     "cases.perfect.tutor.points", "finite"),
    (lambda m: m["cases"]["association"]["tutor"].update({"percent": 150.0}),
     "cases.association.tutor.percent", "more than max_points + bonus_points"),
    (lambda m: m["cases"]["perfect"]["tutor"].update({"percent": 50.0}),
     "cases.perfect.tutor", "points or as percent, not both"),
    (lambda m: m["cases"]["association"].update({"tutor": {}}),
     "cases.association.tutor", "needs points or percent"),
    (lambda m: m["cases"]["perfect"]["recorded"]["feedback"][0].update({"credits": 1e999}),
     "cases.perfect.recorded.feedback[0].credits", "finite"),
    (lambda m: m["cases"]["perfect"]["recorded"]["feedback"][0].update({"instruction": "x"}),
     "cases.perfect.recorded.feedback[0].instruction", "unknown instruction id 'x'"),
    (lambda m: m["cases"]["perfect"]["tutor"]["feedback"][0].update({"instruction": ""}),
     "cases.perfect.tutor.feedback[0].instruction", "is empty: an id is text"),
    (lambda m: m["cases"]["perfect"]["tutor"]["feedback"][0].update({"instruction": 3}),
     "cases.perfect.tutor.feedback[0].instruction", "YAML reads this id as the number 3"),
    (lambda m: m["cases"]["perfect"].update({"expected_credits": {7: "== 0.0"}}),
     "cases.perfect.expected_credits[7].[key]", "YAML reads this id as the number 7"),
    (lambda m: m["cases"].update({True: {}}),
     "cases[1].[key]", "YAML reads this id as the boolean true"),
    (lambda m: m["cases"]["perfect"]["recorded"]["feedback"][0].pop("credits"),
     "cases.perfect.recorded.feedback[0].credits", "Field required"),
    (lambda m: m["cases"]["perfect"]["recorded"].pop("feedback"),
     "cases.perfect.recorded.feedback", "Field required"),
    (lambda m: m["cases"]["association"].update({"expected_credits": {"nope": 1}}),
     "cases.association.expected_credits.nope", "unknown instruction id 'nope'"),
])
def test_every_bad_value_is_named_with_its_line(tmp_path: Path, change: Any, key: str,
                                                message: str) -> None:
    manifest = graded_manifest()
    change(manifest)
    folder = write_scenario(tmp_path, manifest)
    scenario, diags = load_scenario(folder)
    assert scenario is None  # an error in the manifest blocks the run
    found = the_error(diags, key)
    assert message in found.message
    assert found.file == folder / "manifest.yml"
    assert found.line is not None  # (which line: test_the_line_is_the_keys_own)


def test_the_line_is_the_keys_own(tmp_path: Path) -> None:
    manifest = graded_manifest()
    manifest["cases"]["association"]["tutor"]["percent"] = 150.0
    text = dump(manifest)
    folder = write_scenario(tmp_path, text)
    _, diags = load_scenario(folder)
    found = the_error(diags, "cases.association.tutor.percent")
    assert found.line == line_of(text, "percent:", start="association:\n    expected")


def test_warnings_for_unknown_keys_and_unexpected_credit_checks(tmp_path: Path) -> None:
    manifest = graded_manifest()
    manifest["cases"]["perfect"]["tuttor"] = {"points": 1}
    manifest["cases"]["perfect"]["recorded"]["feedback"][0]["weight"] = 2
    # the association case replaces relationship_correct: its scenario-wide expectation
    # on relationship_correct can only fail there
    folder = write_scenario(tmp_path, manifest)
    sc, diags = load_scenario(folder)
    assert sc is not None and not errors(diags)
    said = {(d.key, d.message.split(" ")[0]) for d in warnings(diags)}
    assert ("cases.perfect.tuttor", "unknown") in said
    assert ("cases.perfect.recorded.feedback[0].weight", "unknown") in said
    expected = [d for d in warnings(diags) if "does not expect" in d.message]
    assert [d.message.split("'")[1] for d in expected] == ["association"]


def test_tutor_feedback_without_a_grade_is_kept_with_a_warning(tmp_path: Path) -> None:
    manifest = graded_manifest()
    manifest["cases"]["perfect"]["tutor"] = {"feedback": [{"title": "t", "credits": -2}]}
    sc, diags = load_scenario(write_scenario(tmp_path, manifest))
    assert sc is not None
    case = sc.case_named("perfect")
    assert case is not None and case.tutor is None
    assert any("no tutor grade" in d.message for d in warnings(diags))


def test_athenas_own_tests_as_shipped() -> None:
    """examples/athena/module_tests: Athena's assertions, as written in test_real.py."""
    ecommerce = load_ok(MODULE_TESTS / "athena_test_ecommerce")
    hospital = load_ok(MODULE_TESTS / "athena_test_hospital")

    def shown(sc: Any) -> dict[str, str]:
        (case,) = sc.test_cases
        return {sc.instructions[i].textual_id: str(e) for i, e in case.expected_credits}

    assert shown(ecommerce) == {"1": "== 0", "2": "== 0", "3": "== 2", "4": "== 2", "5": "== 0"}
    assert shown(hospital) == {"1": "== 0", "2": ">= 1", "4": "== 0", "5": "== 0"}
    assert [i for i in hospital.test_cases[0].expected] == [1, 2, 4, 5]
    # Athena's ids are its instruction ids: numbered 1.. in order, as here
    assert [(i.id, i.textual_id) for i in ecommerce.instructions.values()] == \
        [(k, str(k)) for k in range(1, 6)]
