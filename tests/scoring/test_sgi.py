"""Scoring of one test case against hand-computed values for every metric.

Scenarios are built through the loader from manifests written in tmp_path, so the
numeric instruction ids are the real ones the loader assigns.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
import yaml

from eunomia.athena import AthenaFeedback
from eunomia.errors import Severity
from eunomia.scenarios import Scenario, TestCase, load_scenario
from eunomia.scoring import CaseScore, score_case

DIAGRAM = {"version": "3.0.0", "type": "ClassDiagram", "elements": {}, "relationships": {}}


def load_from_manifest(
    root: Path, manifest: Mapping[str, Any], cases: Sequence[str], name: str = "demo"
) -> Scenario:
    folder = root / name
    (folder / "test_cases").mkdir(parents=True)
    (folder / "manifest.yml").write_text(
        yaml.safe_dump(dict(manifest), sort_keys=False), encoding="utf-8"
    )
    for case in cases:
        (folder / "test_cases" / f"{case}.json").write_text(json.dumps(DIAGRAM), "utf-8")
    scenario, diags = load_scenario(folder)
    assert scenario is not None, [str(d) for d in diags]
    assert [d for d in diags if d.severity is Severity.ERROR] == []
    return scenario


def criterion(cid: str, *instructions: tuple[str, float]) -> dict[str, Any]:
    return {
        "id": cid,
        "title": cid.title(),
        "instructions": [
            {"id": iid, "credits": credits, "instruction_description": f"{iid} desc"}
            for iid, credits in instructions
        ],
    }


# ids assigned by the loader, in manifest order:
#   classes:      1 classes_correct (1)      2 classes_incorrect (0)
#   relationship: 3 relationship_correct (1) 4 relationship_incorrect (0)
#   attributes:   5 attributes_correct (2)   6 attributes_partial (1)   7 attributes_incorrect (0)
#   naming:       8 naming_correct (1)       9 naming_incorrect (0)
#   penalty:     10 no_penalty (0)          11 penalty (-1)
SMALL = {
    "exercise": {"title": "Project management", "max_points": 5, "course_id": 1},
    "criteria": [
        criterion("classes", ("classes_correct", 1.0), ("classes_incorrect", 0.0)),
        criterion("relationship", ("relationship_correct", 1.0), ("relationship_incorrect", 0.0)),
        criterion(
            "attributes",
            ("attributes_correct", 2.0), ("attributes_partial", 1.0), ("attributes_incorrect", 0.0),
        ),
        criterion("naming", ("naming_correct", 1.0), ("naming_incorrect", 0.0)),
        criterion("penalty", ("no_penalty", 0.0), ("penalty", -1.0)),
    ],
    "default_expected": [
        "classes_correct", "relationship_correct", "attributes_correct", "naming_correct",
        "no_penalty",
    ],
    "test_case_diffs": {
        "relationship_correct": {"assoc": "relationship_incorrect"},
        "naming_correct": {"assoc": "naming_incorrect"},
        "attributes_correct": {"partial_attrs": "attributes_partial"},
        "no_penalty": {"penalized": "penalty"},
    },
}


@pytest.fixture
def small(tmp_path: Path) -> Scenario:
    scenario = load_from_manifest(
        tmp_path, SMALL, ["perfect", "assoc", "partial_attrs", "penalized"]
    )
    # guard the id table the hand computations below rely on
    assert {i.textual_id: (i.id, i.credits) for i in scenario.instructions.values()} == {
        "classes_correct": (1, 1.0), "classes_incorrect": (2, 0.0),
        "relationship_correct": (3, 1.0), "relationship_incorrect": (4, 0.0),
        "attributes_correct": (5, 2.0), "attributes_partial": (6, 1.0),
        "attributes_incorrect": (7, 0.0),
        "naming_correct": (8, 1.0), "naming_incorrect": (9, 0.0),
        "no_penalty": (10, 0.0), "penalty": (11, -1.0),
    }
    return scenario


def case(scenario: Scenario, name: str) -> TestCase:
    return next(c for c in scenario.test_cases if c.name == name)


def feedback(*sgis: int | None) -> list[AthenaFeedback]:
    return [
        AthenaFeedback(id=n, structured_grading_instruction_id=sgi, credits=0.0)
        for n, sgi in enumerate(sgis)
    ]


def score(scenario: Scenario, name: str, *sgis: int | None) -> CaseScore:
    return score_case(scenario, case(scenario, name), feedback(*sgis))


# --- expectations the scores rely on -------------------------------------------------------


def test_expectations_of_the_small_scenario(small: Scenario) -> None:
    assert case(small, "perfect").expected == (1, 3, 5, 8, 10)
    assert case(small, "assoc").expected == (1, 4, 5, 9, 10)
    assert case(small, "assoc").diff_instructions == frozenset({4, 9})
    assert case(small, "partial_attrs").expected == (1, 3, 6, 8, 10)
    assert case(small, "penalized").expected == (1, 3, 5, 8, 11)


# --- every metric on one mixed answer ---------------------------------------------------------


def test_mixed_answer_every_metric(small: Scenario) -> None:
    # 5 twice (duplicate), 99 twice (unrecognized), two items without SGI id,
    # 3 instead of the diff instruction 4, 10 not returned.
    s = score(small, "assoc", 1, 3, 5, 5, 99, None, None, 9, 99)
    assert s.expected == (1, 4, 5, 9, 10)
    assert s.returned == (1, 3, 5, 9)
    assert s.missing == (4, 10)
    assert s.extra == (3,)
    assert s.unrecognized == (99,)
    assert s.unreferenced_feedback == 2
    assert s.duplicates == (5,)
    assert s.diff_instructions == (4, 9)
    assert s.expected_score == pytest.approx(1 + 0 + 2 + 0 + 0)
    assert s.returned_score == pytest.approx(1 + 1 + 2 + 0)  # 5 counted once
    assert s.fully_correct is False
    assert s.score_match is False
    assert s.detected_correctly is False  # diff instruction 4 missed
    # weights: 1→1, 4→2, 5→1, 9→2, 10→1 = 7; got 1, 5, 9 = 4
    assert s.score_percent == pytest.approx(100 * 4 / 7)
    # criterion 2: 4 (0 cr) expected, 3 (1 cr) received → Wrong >;
    # criterion 5: 10 (0 cr) missing, unpaired → a 0-point difference, not counted
    assert (s.wrong_less, s.wrong_more) == (0, 1)
    by_id = {r.criterion_id: r for r in s.criteria_results}
    assert sorted(by_id) == [2, 5]
    rel = by_id[2]
    assert rel.criterion_textual_id == "relationship"
    assert [(p.expected.id, p.received.id) for p in rel.mismatch_pairs] == [(4, 3)]
    assert rel.missing_instructions == () and rel.extra_instructions == ()
    pen = by_id[5]
    assert pen.criterion_textual_id == "penalty"
    assert pen.mismatch_pairs == ()
    assert [i.textual_id for i in pen.missing_instructions] == ["no_penalty"]
    assert pen.extra_instructions == ()


def test_returned_keeps_the_order_first_returned(small: Scenario) -> None:
    s = score(small, "perfect", 10, 8, 5, 3, 1, 8)
    assert s.returned == (10, 8, 5, 3, 1)
    assert s.missing == () and s.extra == ()
    assert s.duplicates == (8,)
    assert s.fully_correct is True  # duplicates do not spoil a fully correct answer


# --- fully correct / score match / detected ------------------------------------------------


def test_perfect_answer(small: Scenario) -> None:
    s = score(small, "assoc", 1, 4, 5, 9, 10)
    assert s.fully_correct is True
    assert s.score_match is True
    assert s.detected_correctly is True
    assert s.score_percent == pytest.approx(100.0)
    assert s.expected_score == pytest.approx(3.0) and s.returned_score == pytest.approx(3.0)
    assert (s.wrong_less, s.wrong_more) == (0, 0)
    assert s.criteria_results == ()


def test_unrecognized_id_spoils_fully_correct_only(small: Scenario) -> None:
    s = score(small, "perfect", 1, 3, 5, 8, 10, 12345)
    assert s.unrecognized == (12345,)
    assert s.fully_correct is False
    assert s.score_match is True
    assert s.detected_correctly is True
    assert s.score_percent == pytest.approx(100.0)


def test_unreferenced_feedback_does_not_spoil_fully_correct(small: Scenario) -> None:
    s = score(small, "perfect", None, 1, 3, 5, 8, 10)
    assert s.unreferenced_feedback == 1
    assert s.fully_correct is True


def test_score_match_without_being_fully_correct(small: Scenario) -> None:
    # 1 (1 cr) missing, 6 (1 cr) extra in another criterion: same total 5
    s = score(small, "perfect", 3, 5, 8, 10, 6)
    assert s.expected_score == pytest.approx(5.0)
    assert s.returned_score == pytest.approx(5.0)
    assert s.score_match is True
    assert s.fully_correct is False
    assert s.missing == (1,) and s.extra == (6,)
    # no diffs: detected needs every expected instruction
    assert s.detected_correctly is False
    assert s.score_percent == pytest.approx(80.0)
    # unpaired missing 1 (1 cr) → Wrong <; unpaired extra 6 (1 cr) → Wrong >
    assert (s.wrong_less, s.wrong_more) == (1, 1)
    by_id = {r.criterion_id: r for r in s.criteria_results}
    assert [i.id for i in by_id[1].missing_instructions] == [1]
    assert [i.id for i in by_id[3].extra_instructions] == [6]
    assert by_id[1].mismatch_pairs == () and by_id[3].mismatch_pairs == ()


def test_score_match_tolerates_float_noise(tmp_path: Path) -> None:
    manifest = {
        "exercise": {"title": "T", "max_points": 1},
        "criteria": [
            criterion("a", ("a_ok", 0.1), ("a_other", 0.3)),
            criterion("b", ("b_ok", 0.2), ("b_none", 0.0)),
        ],
        "default_expected": ["a_other"],
    }
    scenario = load_from_manifest(tmp_path, manifest, ["only"])
    s = score(scenario, "only", 1, 3)  # 0.1 + 0.2 != 0.3 in floating point
    assert s.returned_score != 0.3
    assert s.score_match is True
    assert s.fully_correct is False


def test_detected_without_diffs_allows_extras(small: Scenario) -> None:
    s = score(small, "perfect", 1, 3, 5, 8, 10, 11)
    assert s.detected_correctly is True
    assert s.fully_correct is False
    assert s.extra == (11,)
    assert s.score_percent == pytest.approx(100.0)
    assert s.returned_score == pytest.approx(4.0)
    # unpaired extra with -1 credit: received less than expected → Wrong <
    assert (s.wrong_less, s.wrong_more) == (1, 0)


def test_detected_with_diffs_needs_only_the_diff_instructions(small: Scenario) -> None:
    s = score(small, "assoc", 4, 9)
    assert s.detected_correctly is True
    assert s.fully_correct is False
    assert s.missing == (1, 5, 10)
    # weights: 1→1, 4→2, 5→1, 9→2, 10→1 = 7; got 4, 9 = 4
    assert s.score_percent == pytest.approx(100 * 4 / 7)


def test_detected_with_diffs_fails_when_one_diff_instruction_is_missed(small: Scenario) -> None:
    s = score(small, "assoc", 1, 4, 5, 10)
    assert s.detected_correctly is False
    assert s.score_percent == pytest.approx(100 * 5 / 7)


def test_no_feedback_at_all(small: Scenario) -> None:
    s = score(small, "assoc")
    assert s.returned == ()
    assert s.missing == (1, 4, 5, 9, 10)
    assert s.returned_score == 0.0
    assert s.score_percent == 0.0
    assert s.detected_correctly is False
    # 1 (1 cr) and 5 (2 cr) lost points → Wrong < twice; 4, 9, 10 are 0-credit
    assert (s.wrong_less, s.wrong_more) == (2, 0)


# --- the document's example ------------------------------------------------------------------

BPMN_CRITERIA = [
    "participants", "events", "activities", "gateway", "message_flows",
    "lanes", "naming_format", "sequence", "connectivity", "extras",
]


@pytest.fixture
def bpmn_like(tmp_path: Path) -> Scenario:
    manifest = {
        "exercise": {"title": "BPMN", "max_points": 10},
        "criteria": [
            criterion(c, (f"{c}_correct", 1.0), (f"{c}_incorrect", 0.0)) for c in BPMN_CRITERIA
        ],
        "default_expected": [f"{c}_correct" for c in BPMN_CRITERIA],
        "test_case_diffs": {
            "activities_correct": {"unlabelled_activity": "activities_incorrect"},
            "naming_format_correct": {"unlabelled_activity": "naming_format_incorrect"},
        },
    }
    return load_from_manifest(tmp_path, manifest, ["unlabelled_activity"])


def test_document_example_unlabelled_activity(bpmn_like: Scenario) -> None:
    by = bpmn_like.by_textual_id
    assert by["naming_format_correct"].id == 13
    assert by["naming_format_incorrect"].id == 14
    tc = case(bpmn_like, "unlabelled_activity")
    assert len(tc.expected) == 10 and len(tc.diff_instructions) == 2
    # the model finds the unlabelled activity but misses the naming problem
    answer = [by["naming_format_correct"].id if i == by["naming_format_incorrect"].id else i
              for i in tc.expected]
    s = score_case(bpmn_like, tc, feedback(*answer))
    assert s.expected_score == pytest.approx(8.0)
    assert s.returned_score == pytest.approx(9.0)
    assert s.detected_correctly is False
    assert s.score_percent == pytest.approx(83.33333333333334)
    assert s.score_percent == pytest.approx(100 * 10 / 12)
    assert (s.wrong_less, s.wrong_more) == (0, 1)
    (result,) = s.criteria_results
    assert (result.criterion_id, result.criterion_textual_id) == (7, "naming_format")
    (pair,) = result.mismatch_pairs
    assert (pair.expected.id, pair.expected.textual_id, pair.expected.credits) == (
        14, "naming_format_incorrect", 0.0,
    )
    assert (pair.received.id, pair.received.textual_id, pair.received.credits) == (
        13, "naming_format_correct", 1.0,
    )
    assert result.missing_instructions == () and result.extra_instructions == ()


# --- Wrong < / Wrong > pairing within a criterion -----------------------------------------


def test_pair_received_fewer_points_is_wrong_less(small: Scenario) -> None:
    # expected attributes_partial (1), got attributes_incorrect (0)
    s = score(small, "partial_attrs", 1, 3, 7, 8, 10)
    assert (s.wrong_less, s.wrong_more) == (1, 0)
    (r,) = s.criteria_results
    assert r.criterion_id == 3
    assert [(p.expected.id, p.received.id) for p in r.mismatch_pairs] == [(6, 7)]
    assert s.score_match is False


def test_pairing_sorts_by_credits_highest_first(small: Scenario) -> None:
    # expected 6 (1); got 7 (0) and 5 (2): 6 pairs with 5 (highest), 7 stays extra
    s = score(small, "partial_attrs", 1, 3, 7, 5, 8, 10)
    (r,) = s.criteria_results
    assert [(p.expected.id, p.received.id) for p in r.mismatch_pairs] == [(6, 5)]
    assert [i.id for i in r.extra_instructions] == [7]
    assert r.missing_instructions == ()
    # pair 1 → 2 is Wrong >; the unpaired 0-credit extra is not counted
    assert (s.wrong_less, s.wrong_more) == (0, 1)


def test_pair_with_a_negative_credit_instruction(small: Scenario) -> None:
    # expected no_penalty (0), got penalty (-1)
    s = score(small, "perfect", 1, 3, 5, 8, 11)
    (r,) = s.criteria_results
    assert [(p.expected.id, p.received.id) for p in r.mismatch_pairs] == [(10, 11)]
    assert (s.wrong_less, s.wrong_more) == (1, 0)
    assert s.returned_score == pytest.approx(4.0)


def test_unpaired_missing_negative_credit_is_wrong_more(small: Scenario) -> None:
    # expected penalty (-1) not returned: received 0 instead of -1 → Wrong >
    s = score(small, "penalized", 1, 3, 5, 8)
    assert s.expected_score == pytest.approx(4.0)
    assert s.returned_score == pytest.approx(5.0)
    assert s.missing == (11,)
    assert s.detected_correctly is False
    assert s.score_percent == pytest.approx(100 * 4 / 6)
    assert (s.wrong_less, s.wrong_more) == (0, 1)
    (r,) = s.criteria_results
    assert [i.id for i in r.missing_instructions] == [11]


def test_zero_credit_swap_counts_in_neither_direction(small: Scenario) -> None:
    # expected relationship_incorrect (0) and naming_incorrect (0); got classes_incorrect
    # (0) extra; all differences are 0 points
    s = score(small, "assoc", 1, 2, 5, 10)
    assert (s.wrong_less, s.wrong_more) == (0, 0)
    assert s.score_match is True
    assert s.fully_correct is False
    by_id = {r.criterion_id: r for r in s.criteria_results}
    assert sorted(by_id) == [1, 2, 4]
    assert [i.id for i in by_id[1].extra_instructions] == [2]
    assert [i.id for i in by_id[2].missing_instructions] == [4]
    assert [i.id for i in by_id[4].missing_instructions] == [9]


def test_several_unpaired_in_one_criterion(tmp_path: Path) -> None:
    # one criterion expecting two instructions; neither returned, three extras returned
    manifest = {
        "exercise": {"title": "T", "max_points": 3},
        "criteria": [
            criterion("c", ("c_a", 2.0), ("c_b", 1.0), ("c_x", 3.0), ("c_y", 0.5), ("c_z", 0.0)),
        ],
        "default_expected": ["c_a", "c_b"],
    }
    scenario = load_from_manifest(tmp_path, manifest, ["only"])
    s = score(scenario, "only", 5, 4, 3)  # c_z (0), c_y (0.5), c_x (3)
    (r,) = s.criteria_results
    # missing sorted [c_a 2, c_b 1]; extra sorted [c_x 3, c_y 0.5, c_z 0]
    assert [(p.expected.textual_id, p.received.textual_id) for p in r.mismatch_pairs] == [
        ("c_a", "c_x"), ("c_b", "c_y"),
    ]
    assert [i.textual_id for i in r.extra_instructions] == ["c_z"]
    # c_a→c_x: +1 (>), c_b→c_y: -0.5 (<), c_z unpaired 0: not counted
    assert (s.wrong_less, s.wrong_more) == (1, 1)
    assert s.expected_score == pytest.approx(3.0)
    assert s.returned_score == pytest.approx(3.5)


def test_empty_default_expected_scores_100(tmp_path: Path) -> None:
    manifest = {
        "exercise": {"title": "T", "max_points": 1},
        "criteria": [criterion("c", ("c_a", 1.0))],
        "default_expected": [],
    }
    scenario = load_from_manifest(tmp_path, manifest, ["only"])
    s = score(scenario, "only")
    assert s.score_percent == 100.0
    assert s.fully_correct is True
    assert s.detected_correctly is True
