"""The result files of one scenario, laid out as the Eunomia TestBench document describes.

``results/<run>/<scenario>/``
  ``tables/scenario_summary.csv``   metric/value rows (the document's metrics first)
  ``tables/test_case_results.csv``  one row per case (the document's columns, in order, then
                                    Status and Error so failed cases are never dropped, then
                                    points awarded, the tutor's and credit expectations met)
  ``tables/criteria_summary.csv``   miss rate per criterion
  ``tables/instruction_summary.csv`` miss and false-alarm rate per instruction
  ``tables/element_types.csv``      detection by element type, kind of change and operator
  ``tables/localization.csv``       whether feedback names the changed elements, per type
  ``test_cases/<case>.json``         full detail per case, written as soon as it finishes
                                    (on a background thread: see :class:`FileWriter`)
  ``scenario_results.json``          the summary in JSON, with failures and breakdowns
  ``failures.json``                  every case that was not scored, with its reason
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import orjson

from eunomia.errors import EunomiaError
from eunomia.exports import FileWriter, write_csv
from eunomia.files import write_text_atomic
from eunomia.kinds.scenarios._figures import (
    CHANGE_COLUMNS,
    LOCALIZATION_COLUMNS,
    change_cells,
    figure_rows,
    figures_json,
    localization_cells,
    mutations_text,
)
from eunomia.kinds.scenarios._points_out import (
    POINTS_COLUMNS,
    case_points_cells,
    case_points_json,
    points_json,
    points_rows,
)
from eunomia.kinds.scenarios._summary import ScenarioSummary, unknown_cost_reason
from eunomia.pricing import CostSummary, cost_disagrees
from eunomia.scenarios import Instruction, Scenario
from eunomia.scoring import CaseConsistency, CaseOutcome, ConsistencySummary, metering_json

CASE_COLUMNS = (
    "Test Case",
    "Test Case Detected Correctly",
    "Test Case Score (%)",
    "Expected Points",
    "Total Returned Points",
    "Cost",
    "Request Time (s)",
    "Wrong < Points",
    "Wrong > Points",
    "Status",
    "Error",
    "Generated",
    "Mutations",
    "Repeat",
    *POINTS_COLUMNS,  # points awarded, the tutor's, credit expectations met and not met
)
_REPEAT = CASE_COLUMNS.index("Repeat")


def _num(value: float | None, digits: int = 6) -> str:
    if value is None:
        return ""
    return f"{round(value, digits):g}" if digits else str(value)


def _ins(ins: Instruction, *, with_feedback: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": ins.id,
        "textual_id": ins.textual_id,
        "credits": ins.credits,
        "instructionDescription": ins.instruction_description,
    }
    if with_feedback:
        out["feedbackDescription"] = ins.feedback
    return out


def cost_json(cost: CostSummary) -> dict[str, Any]:
    return {
        "total_cost": cost.total_cost,
        "total_input_cost": cost.total_input_cost,
        "total_output_cost": cost.total_output_cost,
        "unknown_models": list(cost.unknown_models),
        "details": [
            {
                "llm": line.llm,
                "input_tokens": line.input_tokens,
                "cached_input_tokens": line.cached_input_tokens,
                "output_tokens": line.output_tokens,
                "input_cost": line.input_cost,
                "output_cost": line.output_cost,
                "total": line.total,
                **({"priced_as": line.priced_as} if line.priced_as else {}),
                **({"bundled_price_as_of": line.bundled_as_of} if line.bundled_as_of else {}),
            }
            for line in cost.details
        ],
    }


def case_json(scenario: Scenario, outcome: CaseOutcome) -> dict[str, Any]:
    """Everything known about one case, in the document's field names where it has them."""
    known = scenario.instructions
    s = outcome.score

    def refs(ids: Iterable[int]) -> list[dict[str, Any]]:
        return [{"id": i, "textual_id": known[i].textual_id} for i in ids]

    out: dict[str, Any] = {
        "test_case": outcome.case,
        "status": outcome.status.value,
        "error": outcome.error,
        "attempts": outcome.attempts,
        **({"attempt_log": list(outcome.attempt_log)} if len(outcome.attempt_log) > 1 else {}),
        "repeat": outcome.repeat,
        "target": outcome.target,
        "cached": outcome.cached,
        "request_time_s": outcome.request_time_s,
    }
    if s is not None and not s.labelled:
        out |= {  # an unlabelled scenario: nothing was expected, so no correctness field
            "returned_score": s.returned_score,
            "returned_instructions": refs(s.returned),
            "unmapped_instruction_ids": list(s.unrecognized),
            "unreferenced_feedback_count": s.unreferenced_feedback,
            "duplicate_instructions": refs(s.duplicates),
        }
    elif s is not None:
        out |= {
            "expected_score": s.expected_score,
            "returned_score": s.returned_score,
            "test_case_detected_correctly": s.detected_correctly,
            "test_case_score_percent": s.score_percent,
            "fully_correct": s.fully_correct,
            "score_match": s.score_match,
            "wrong_less_points": s.wrong_less,
            "wrong_more_points": s.wrong_more,
            "expected_instructions": refs(s.expected),
            "returned_instructions": refs(s.returned),
            "diff_instructions": refs(s.diff_instructions),
            "missing_instructions": refs(s.missing),
            "extra_instructions": refs(s.extra),
            "unmapped_instruction_ids": list(s.unrecognized),
            "unreferenced_feedback_count": s.unreferenced_feedback,
            "duplicate_instructions": refs(s.duplicates),
        }
    out["cost"] = cost_json(outcome.cost)
    if (why := unknown_cost_reason(outcome)) is not None:
        out["cost"]["unknown_because"] = why
    if outcome.reported_cost is not None:  # the system's own figure, beside ours
        out["cost"]["reported_by_system"] = outcome.reported_cost
        out["cost"]["disagrees_with_reported"] = cost_disagrees(outcome.reported_cost,
                                                                outcome.cost.total_cost)
    if outcome.metered is not None:  # the calls metered on the wire, and the system's count
        out["cost"]["metered"] = metering_json(outcome.metered, outcome.reported_tokens)
    if s is not None and s.labelled:
        out["criteria_results"] = [
            {
                "criterion_id": c.criterion_id,
                "criterion_textual_id": c.criterion_textual_id,
                "mismatch_pairs": [
                    {"expected": _ins(p.expected), "received": _ins(p.received, with_feedback=True)}
                    for p in c.mismatch_pairs
                ],
                "missing_instructions": [_ins(i) for i in c.missing_instructions],
                "extra_instructions": [_ins(i, with_feedback=True) for i in c.extra_instructions],
            }
            for c in s.criteria_results
        ]
    out |= case_points_json(scenario, outcome)  # points both ways, credits, tutor's grade
    out["feedback"] = [item.model_dump(mode="json") for item in outcome.feedback]
    return out


def table_row(scenario: Scenario, outcome: CaseOutcome) -> list[str]:
    s = outcome.score
    judged = s if s is not None and s.labelled else None  # unlabelled: no correctness
    return [
        outcome.case,
        ("Yes" if judged.detected_correctly else "No") if judged else "",
        _num(judged.score_percent, 4) if judged else "",
        _num(judged.expected_score, 4) if judged else "",
        _num(s.returned_score, 4) if s else "",
        _num(outcome.cost.total_cost),  # "" when unknown, as the summary counts it
        _num(outcome.request_time_s, 3),
        str(judged.wrong_less) if judged else "",
        str(judged.wrong_more) if judged else "",
        outcome.status.value,
        outcome.error or "",
        *mutations_text(scenario, outcome.case),  # generated by `eunomia mutate`, and how
        str(outcome.repeat),
        *case_points_cells(scenario, outcome),
    ]


NOT_MEASURED = "not measured (unlabelled)"


def summary_rows(summary: ScenarioSummary) -> list[tuple[str, str]]:
    """The document's metrics, in its order, then Eunomia's additions."""
    labelled = summary.labelled

    def correct(value: str) -> str:
        return value if labelled else NOT_MEASURED

    return [
        ("Total Cases", str(summary.total)),
        ("Fully Correct Cases", correct(str(summary.fully_correct))),
        ("Score Matched Count", correct(str(summary.score_matched))),
        ("Average Test Case Score", correct(_num(summary.average_score_percent, 4))),
        ("Correctly Detected Test Cases / Total Cases",
         correct(f"{summary.detected}/{summary.total}")),
        ("Total Cost", _num(summary.total_cost)),
        ("Average Cost", _num(summary.average_cost)),
        ("Average Request Time (s)", _num(summary.average_request_time_s, 3)),
        ("Scored Cases", str(summary.scored)),
        ("Failed Cases", str(summary.failed)),
        ("Cases With Unknown Cost", str(summary.cost_unknown)),
        ("Input Tokens", str(summary.input_tokens)),
        ("Output Tokens", str(summary.output_tokens)),
        ("Feedback Items", str(summary.feedback_items)),
        ("Feedback Items Naming An Instruction", str(summary.sgi_items)),
        ("Cases Answered From The Cache", str(summary.cached)),
        *figure_rows(summary),  # the score's interval (or too few), the MDE
        *points_rows(summary),  # points both ways, credits, agreement with tutors
    ]


def summary_json(summary: ScenarioSummary, meta: dict[str, Any],
                 warnings: list[str] | None = None) -> dict[str, Any]:
    sc = summary.scenario
    labelled = summary.labelled
    return {
        **meta,
        "scenario": sc.name,
        "warnings": list(warnings or []),
        "labelled": labelled,
        "total_cases": summary.total,
        "scored_cases": summary.scored,
        "failed_cases": summary.failed,
        "fully_correct_cases": summary.fully_correct if labelled else None,
        "score_matched_count": summary.score_matched if labelled else None,
        "average_test_case_score": summary.average_score_percent,
        "correctly_detected_cases": summary.detected if labelled else None,
        "feedback_items": summary.feedback_items,
        "feedback_items_naming_an_instruction": summary.sgi_items,
        "cases_answered_from_the_cache": summary.cached,
        "total_cost": summary.total_cost,
        "average_cost": summary.average_cost,
        "cases_with_unknown_cost": summary.cost_unknown,
        "unknown_cost_models": sorted(summary.unknown_models),
        "average_request_time_s": summary.average_request_time_s,
        "input_tokens": summary.input_tokens,
        "output_tokens": summary.output_tokens,
        "failures": [
            {"test_case": f.case, "status": f.status.value, "reason": f.reason,
             "attempts": f.attempts,
             **({"attempt_log": list(f.attempt_log)} if len(f.attempt_log) > 1 else {})}
            for f in summary.failures
        ],
        "criteria": [
            {
                "criterion_id": c.id,
                "criterion_textual_id": c.textual_id,
                "title": c.title,
                "cases": summary.criteria[c.id].cases,
                "missed": summary.criteria[c.id].missed,
                "miss_rate": summary.criteria[c.id].miss_rate,
            }
            for c in sc.criteria
        ],
        "instructions": [
            {
                "instruction_id": i.id,
                "textual_id": i.textual_id,
                "criterion_textual_id": sc.criteria[i.criterion_id - 1].textual_id,
                "expected": st.expected,
                "missed": st.missed,
                "miss_rate": st.miss_rate,
                "returned_unexpected": st.returned_unexpected,
            }
            for i in sc.instructions.values()
            for st in (summary.instructions[i.id],)
        ],
        "diagnostics": [str(d) for d in sc.diagnostics],
        **figures_json(summary),  # interval, MDE, by element type, localization
        **points_json(summary),  # points both ways, credits, agreement with tutors
    }


CONSISTENCY_COLUMNS = (
    "Test Case", "Scored Repeats", "Failed Repeats", "Consistent", "Flip Rate",
    "Score Mean (%)", "Score Stdev", "Score Min (%)", "Score Max (%)", "Detected Share",
    "Unstable Instructions",
)


def _unstable(sc: Scenario, c: CaseConsistency) -> str:
    """Instructions returned in some repeats but not all, with their share."""
    return "; ".join(f"{sc.instructions[i].textual_id} {100 * share:.0f}%"
                     for i, share in c.instruction_share.items() if share < 1.0)


def consistency_rows(sc: Scenario, consistency: ConsistencySummary) -> list[list[str]]:
    return [
        [c.case, str(c.repeats), str(c.failed_repeats), "Yes" if c.consistent else "No",
         _num(c.flip_rate, 4), _num(c.score_mean, 4), _num(c.score_stdev, 4),
         _num(c.score_min, 4), _num(c.score_max, 4), _num(c.detected_share, 4),
         _unstable(sc, c)]
        for c in consistency.cases
    ]


def consistency_json(sc: Scenario, consistency: ConsistencySummary) -> dict[str, Any]:
    return {
        "fleiss_kappa": consistency.fleiss_kappa,
        "percent_agreement": consistency.percent_agreement,
        "mean_flip_rate": consistency.mean_flip_rate,
        "consistent_cases": consistency.consistent_cases,
        "cases": [
            {
                "test_case": c.case, "scored_repeats": c.repeats,
                "failed_repeats": c.failed_repeats, "consistent": c.consistent,
                "flip_rate": c.flip_rate, "score_mean": c.score_mean,
                "score_stdev": c.score_stdev, "score_min": c.score_min,
                "score_max": c.score_max, "detected_share": c.detected_share,
                "instruction_share": {sc.instructions[i].textual_id: share
                                      for i, share in c.instruction_share.items()},
                "criterion_labels": {sc.criteria[cid - 1].textual_id: list(labels)
                                     for cid, labels in c.criterion_labels.items()},
            }
            for c in consistency.cases
        ],
    }


class ScenarioExporter:
    """Writes a scenario's result files: each case as it finishes, the tables at the end."""

    def __init__(self, folder: Path, scenario: Scenario) -> None:
        self.folder = folder
        self.scenario = scenario
        self.cases_dir = folder / "test_cases"
        self.tables_dir = folder / "tables"
        self._rows: list[list[str]] = []
        self._files = FileWriter()
        try:
            self.cases_dir.mkdir(parents=True, exist_ok=True)
            self.tables_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EunomiaError(
                f"cannot create the results folder {folder}: {exc.strerror or exc}"
            ) from None

    def write_case(self, outcome: CaseOutcome) -> None:
        self._rows.append(table_row(self.scenario, outcome))
        name = outcome.case if not outcome.repeat else f"{outcome.case}__r{outcome.repeat}"
        self._files.write(self.cases_dir / f"{name}.json", orjson.dumps(
            case_json(self.scenario, outcome), option=orjson.OPT_INDENT_2))

    def finish(self, summary: ScenarioSummary, meta: dict[str, Any],
               consistency: ConsistencySummary | None = None,
               warnings: list[str] | None = None) -> list[Path]:
        """Wait for the case files, then write the tables and JSON files; returns them all."""
        self._files.close()
        sc = self.scenario
        t = self.tables_dir
        done: list[Path] = []

        def write(path: Path, how: Callable[[Path], object]) -> None:
            try:
                how(path)
            except OSError as exc:
                raise EunomiaError(f"cannot write {path}: {exc.strerror or exc}") from None
            done.append(path)

        if consistency is not None:
            write(t / "consistency.csv", lambda p: write_csv(
                p, CONSISTENCY_COLUMNS, consistency_rows(sc, consistency)))
        write(t / "scenario_summary.csv",
              lambda p: write_csv(p, ("Metric", "Value"), summary_rows(summary)))
        rows = sorted(self._rows, key=lambda r: (r[0], int(r[_REPEAT])))
        write(t / "test_case_results.csv", lambda p: write_csv(p, CASE_COLUMNS, rows))
        write(t / "criteria_summary.csv", lambda p: write_csv(
            p, ("Criterion", "Title", "Cases", "Missed", "Miss Rate (%)"),
            ([c.textual_id, c.title, str(st.cases), str(st.missed),
              _num(None if st.miss_rate is None else 100 * st.miss_rate, 2)]
             for c in sc.criteria for st in (summary.criteria[c.id],))))
        write(t / "instruction_summary.csv", lambda p: write_csv(
            p, ("Instruction", "Criterion", "Expected", "Missed", "Miss Rate (%)",
                "Returned Unexpectedly"),
            ([i.textual_id, sc.criteria[i.criterion_id - 1].textual_id, str(st.expected),
              str(st.missed), _num(None if st.miss_rate is None else 100 * st.miss_rate, 2),
              str(st.returned_unexpected)]
             for i in sc.instructions.values() for st in (summary.instructions[i.id],))))
        if sc.labelled:  # detection by what the cases change, and localization
            write(t / "element_types.csv", lambda p: write_csv(
                p, CHANGE_COLUMNS, (change_cells(r) for r in summary.by_change)))
            write(t / "localization.csv", lambda p: write_csv(
                p, LOCALIZATION_COLUMNS, (localization_cells(r) for r in summary.localized)))
        data = summary_json(summary, meta, warnings)
        if consistency is not None:
            data["consistency"] = consistency_json(sc, consistency)
        write(self.folder / "scenario_results.json", lambda p: write_text_atomic(
            p, json.dumps(data, indent=2, ensure_ascii=False)))
        write(self.folder / "failures.json", lambda p: write_text_atomic(
            p, json.dumps(data["failures"], indent=2, ensure_ascii=False)))
        return done
