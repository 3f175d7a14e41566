"""A scenario as stored with a run (everything but the submission texts), and back.

Exports are regenerated from the store with the scenario as it was at run time,
even if the files on disk have changed since.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from eunomia.errors import Diagnostic, Severity
from eunomia.scenarios import _model as model  # its parts, rebuilt below
from eunomia.scenarios._grades import CreditExpectation, TutorGrade
from eunomia.scenarios._model import Scenario, TestCase


def _grades_json(t: TestCase) -> dict[str, Any]:
    """A case's credit expectations and tutor grade, when it has them (the recorded feedback
    is not kept: the run stores the answers it replayed)."""
    out: dict[str, Any] = {}
    if t.expected_credits:
        out["expected_credits"] = [[i, e.op, e.value] for i, e in t.expected_credits]
    if t.tutor is not None:
        out["tutor"] = {"points": t.tutor.points, "percent": t.tutor.percent}
    return out


def _grades_of(t: dict[str, Any]) -> tuple[tuple[tuple[int, CreditExpectation], ...],
                                            TutorGrade | None]:
    credits = tuple((int(i), CreditExpectation(str(op), float(v)))
                    for i, op, v in t.get("expected_credits", ()))
    tutor = t.get("tutor")
    return credits, (None if tutor is None else TutorGrade(float(tutor["points"]),
                                                           tutor.get("percent")))


def scenario_to_json(sc: Scenario) -> dict[str, Any]:
    ex = sc.exercise
    return {
        "name": sc.name,
        "folder": str(sc.folder),
        "server_url": sc.server_url,
        "exercise": {
            "id": ex.id, "title": ex.title, "type": ex.type, "max_points": ex.max_points,
            "bonus_points": ex.bonus_points, "grading_instructions": ex.grading_instructions,
            "problem_statement": ex.problem_statement, "example_solution": ex.example_solution,
            "meta": ex.meta,
        },
        "criteria": [
            {
                "id": c.id, "textual_id": c.textual_id, "title": c.title,
                "instructions": [
                    {"id": i.id, "textual_id": i.textual_id, "credits": i.credits,
                     "grading_scale": i.grading_scale,
                     "instruction_description": i.instruction_description,
                     "feedback": i.feedback}
                    for i in c.instructions
                ],
            }
            for c in sc.criteria
        ],
        "default_expected": list(sc.default_expected),
        "labelled": sc.labelled,
        "test_cases": [
            {"name": t.name, "path": str(t.path), "submission_id": t.submission_id,
             "expected": list(t.expected), "diff_instructions": sorted(t.diff_instructions),
             "diagram_type": t.diagram_type, **_grades_json(t),
             **({"mutations": [list(m) for m in t.mutations]} if t.mutations else {})}
            for t in sc.test_cases
        ],
        "invalid_cases": [
            {"name": b.name, "path": str(b.path), "reason": b.reason} for b in sc.invalid_cases
        ],
        "diagnostics": [str(d) for d in sc.diagnostics],
        # the same, restorable: exports from the store must equal the live ones
        "diagnostic_records": [
            {"severity": d.severity.value, "file": None if d.file is None else str(d.file),
             "message": d.message, "key": d.key, "line": d.line, "column": d.column}
            for d in sc.diagnostics
        ],
    }


def scenario_from_json(data: dict[str, Any]) -> Scenario:
    criteria = tuple(
        model.Criterion(
            c["id"], c["textual_id"], c["title"],
            tuple(
                model.Instruction(i["id"], i["textual_id"], c["id"], i["credits"],
                                  i["grading_scale"], i["instruction_description"],
                                  i["feedback"])
                for i in c["instructions"]
            ),
        )
        for c in data["criteria"]
    )
    ex = data["exercise"]
    return Scenario(
        name=data["name"],
        folder=Path(data["folder"]),
        server_url=data["server_url"],
        exercise=model.Exercise(ex["id"], ex["title"], ex["type"], ex["max_points"],
                          ex["bonus_points"], ex["grading_instructions"],
                          ex["problem_statement"], ex["example_solution"], ex["meta"]),
        criteria=criteria,
        default_expected=tuple(data["default_expected"]),
        labelled=bool(data.get("labelled", True)),
        test_cases=[
            TestCase(t["name"], Path(t["path"]), t["submission_id"], "", tuple(t["expected"]),
                     frozenset(t["diff_instructions"]), t["diagram_type"], *_grades_of(t),
                     mutations=tuple((op, text) for op, text in t.get("mutations", ())))
            for t in data["test_cases"]
        ],
        invalid_cases=[model.InvalidTestCase(b["name"], Path(b["path"]), b["reason"])
                       for b in data["invalid_cases"]],
        diagnostics=[
            Diagnostic(Severity(r["severity"]), None if r["file"] is None else Path(r["file"]),
                       r["message"], r["key"], r["line"], r["column"])
            for r in data.get("diagnostic_records", [])
        ],
    )
