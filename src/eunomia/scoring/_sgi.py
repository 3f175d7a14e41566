"""Deterministic scoring of one test case: expected vs returned SGI ids.

Definitions (the Eunomia TestBench document, made precise):

* returned instructions: distinct SGI ids of the feedback items that name an
  instruction of the scenario, in the order first returned;
* unrecognized: SGI ids not in the scenario; unreferenced feedback: items with no SGI id;
* missing = expected - returned; extra = returned - expected;
* expected score: credits of the expected instructions; returned score: credits of
  the returned (recognized) instructions, each counted once;
* fully correct: returned == expected as sets and nothing unrecognized;
* score match: the two scores are equal;
* detected correctly: every diff instruction (the case's point) was returned; for a
  case without diffs, every expected instruction was returned;
* case score %: weighted recall of the expected instructions, diff instructions
  weighing 2 and the others 1;
* within each criterion, missing and extra instructions are paired (both sorted by
  credits, highest first); a pair whose received credits are lower counts as
  "Wrong <", higher as "Wrong >". An unpaired missing instruction counts as if 0
  credits were received, an unpaired extra one as if 0 were expected.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from eunomia import defaults
from eunomia.athena import AthenaFeedback
from eunomia.scenarios import Instruction, Scenario, TestCase
from eunomia.scoring._credits import CasePoints, case_points


@dataclass(frozen=True, slots=True)
class MismatchPair:
    expected: Instruction
    received: Instruction


@dataclass(frozen=True, slots=True)
class CriterionResult:
    criterion_id: int
    criterion_textual_id: str
    mismatch_pairs: tuple[MismatchPair, ...]
    missing_instructions: tuple[Instruction, ...]
    """Expected, not returned and not paired with a returned one."""
    extra_instructions: tuple[Instruction, ...]
    """Returned, not expected and not paired with an expected one."""


@dataclass(frozen=True, slots=True)
class CaseScore:
    expected: tuple[int, ...]
    returned: tuple[int, ...]
    missing: tuple[int, ...]
    extra: tuple[int, ...]
    unrecognized: tuple[int, ...]
    unreferenced_feedback: int
    duplicates: tuple[int, ...]
    diff_instructions: tuple[int, ...]
    expected_score: float
    returned_score: float
    fully_correct: bool
    score_match: bool
    detected_correctly: bool
    score_percent: float
    wrong_less: int
    wrong_more: int
    criteria_results: tuple[CriterionResult, ...] = field(default=())
    labelled: bool = True
    """False for a case of an unlabelled scenario: nothing was expected, so the correctness
    fields (missing, extra, expected score, fully correct, detected, score %) mean nothing
    and every output leaves them out; returned, unrecognized and unreferenced still hold."""
    points: CasePoints | None = None
    """The points awarded, the credit expectations checked and the items whose credits
    differ from their instruction's (:mod:`eunomia.scoring._credits`)."""


def _sign(x: float) -> int:
    tol = defaults.SCORE_TOLERANCE
    return 0 if abs(x) <= tol else (1 if x > 0 else -1)


def score_case(
    scenario: Scenario, case: TestCase, feedback: Sequence[AthenaFeedback]
) -> CaseScore:
    known = scenario.instructions
    returned: list[int] = []
    seen: set[int] = set()
    duplicates: list[int] = []
    unrecognized: list[int] = []
    unreferenced = 0
    for item in feedback:
        sgi = item.structured_grading_instruction_id
        if sgi is None:
            unreferenced += 1
        elif sgi not in known:
            if sgi not in unrecognized:
                unrecognized.append(sgi)
        elif sgi in seen:
            if sgi not in duplicates:
                duplicates.append(sgi)
        else:
            seen.add(sgi)
            returned.append(sgi)

    if not scenario.labelled:
        return CaseScore(
            expected=(), returned=tuple(returned), missing=(), extra=(),
            unrecognized=tuple(unrecognized), unreferenced_feedback=unreferenced,
            duplicates=tuple(duplicates), diff_instructions=(), expected_score=0.0,
            returned_score=sum(known[i].credits for i in returned), fully_correct=False,
            score_match=False, detected_correctly=False, score_percent=0.0, wrong_less=0,
            wrong_more=0, labelled=False, points=case_points(scenario, case, feedback))
    expected = case.expected
    expected_set = set(expected)
    missing = tuple(i for i in expected if i not in seen)
    extra = tuple(i for i in returned if i not in expected_set)

    expected_score = sum(known[i].credits for i in expected)
    returned_score = sum(known[i].credits for i in returned)

    diff = case.diff_instructions
    detected = all(i in seen for i in diff) if diff else not missing
    w_diff, w_other = defaults.DIFF_INSTRUCTION_WEIGHT, defaults.DEFAULT_INSTRUCTION_WEIGHT
    total_weight = sum(w_diff if i in diff else w_other for i in expected)
    got_weight = sum(w_diff if i in diff else w_other for i in expected if i in seen)
    percent = 100.0 * got_weight / total_weight if total_weight else 100.0

    criteria_results, wrong_less, wrong_more = _by_criterion(scenario, missing, extra)
    return CaseScore(
        expected=expected,
        returned=tuple(returned),
        missing=missing,
        extra=extra,
        unrecognized=tuple(unrecognized),
        unreferenced_feedback=unreferenced,
        duplicates=tuple(duplicates),
        diff_instructions=tuple(sorted(diff)),
        expected_score=expected_score,
        returned_score=returned_score,
        fully_correct=not missing and not extra and not unrecognized,
        score_match=_sign(expected_score - returned_score) == 0,
        detected_correctly=detected,
        score_percent=percent,
        wrong_less=wrong_less,
        wrong_more=wrong_more,
        criteria_results=criteria_results,
        points=case_points(scenario, case, feedback),
    )


def _by_criterion(
    scenario: Scenario, missing: tuple[int, ...], extra: tuple[int, ...]
) -> tuple[tuple[CriterionResult, ...], int, int]:
    known = scenario.instructions
    by_criterion: dict[int, tuple[list[Instruction], list[Instruction]]] = {}
    for i in missing:
        by_criterion.setdefault(known[i].criterion_id, ([], []))[0].append(known[i])
    for i in extra:
        by_criterion.setdefault(known[i].criterion_id, ([], []))[1].append(known[i])

    results: list[CriterionResult] = []
    less = more = 0
    for cid in sorted(by_criterion):
        miss, ext = by_criterion[cid]
        miss.sort(key=lambda ins: (-ins.credits, ins.id))
        ext.sort(key=lambda ins: (-ins.credits, ins.id))
        n = min(len(miss), len(ext))
        pairs = tuple(MismatchPair(miss[k], ext[k]) for k in range(n))
        deltas = [p.received.credits - p.expected.credits for p in pairs]
        deltas += [-m.credits for m in miss[n:]]
        deltas += [e.credits for e in ext[n:]]
        for d in deltas:
            s = _sign(d)
            less += s < 0
            more += s > 0
        criterion = scenario.criteria[cid - 1]
        results.append(
            CriterionResult(cid, criterion.textual_id, pairs, tuple(miss[n:]), tuple(ext[n:]))
        )
    return tuple(results), less, more
