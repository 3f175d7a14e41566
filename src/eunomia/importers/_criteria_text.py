"""Grading criteria from grading instructions written as a numbered list of points to give.

Athena's playground exercise 6 ("Obtaining a loan") has no grading criteria: its grading
instructions are free text of the form ``Evaluate the following 10 criteria: 1. Give 1 point
if all elements ... are present, 0 otherwise. 2. Give 1 point if ...``. Tutors who label its
submissions need criteria to choose from, so each numbered item becomes a criterion with two
instructions: *met* (the item's points) and *not met* (0). Asked for with ``eunomia import
athena ... --criteria-from-grading-instructions``; the importer never does it by itself (a
module given criteria grades against them instead of making up its own).
"""

from __future__ import annotations

import re

from eunomia.errors import EunomiaError
from eunomia.importers._athena_export import AthenaExport, ExportCriterion, ExportInstruction

_NUMBERED = re.compile(r"(?:^|\s)(\d+)\.\s+(?=Give\b)")
_GIVE = re.compile(r"^Give (\d+(?:\.\d+)?) points? if (.+?),? 0 otherwise\.?$", re.DOTALL)


def criteria_from_text(text: str) -> list[ExportCriterion]:
    """One criterion per "N. Give P point(s) if CONDITION, 0 otherwise." item of ``text``,
    with its instructions met (P credits, id 2N-1) and not met (0 credits, id 2N); an error
    naming the item when an item is not of that form, or when there is none."""
    parts = _NUMBERED.split(text)
    out: list[ExportCriterion] = []
    for number, item in zip(parts[1::2], parts[2::2], strict=True):
        found = _GIVE.match(" ".join(item.split()))
        if found is None:
            raise EunomiaError(f"grading instruction {number} is not 'Give P point(s) if ..., "
                               f"0 otherwise.': {item.strip()[:80]!r}")
        n, points = int(number), float(found.group(1))
        condition = re.sub(r"^if\s+", "", found.group(2))  # "Give 1 point if if the ..."
        title = condition[:1].upper() + condition[1:]
        out.append(ExportCriterion(id=n, title=title, structured_grading_instructions=[
            ExportInstruction(id=2 * n - 1, credits=points, grading_scale="Met",
                              instruction_description=f"{title}.",
                              feedback=f"Criterion {n} met: {condition}."),
            ExportInstruction(id=2 * n, credits=0.0, grading_scale="Not met",
                              instruction_description=f"Not met: {condition} does not hold.",
                              feedback=f"Criterion {n} not met: it is not the case that "
                                       f"{condition}."),
        ]))
    if not out:
        raise EunomiaError("the grading instructions are not a numbered list of 'Give P "
                           "point(s) if ..., 0 otherwise.' items, so no criterion can be made "
                           "of them")
    return out


def with_text_criteria(export: AthenaExport) -> AthenaExport:
    """``export`` with the criteria of its grading instructions. Its feedback items' instruction
    ids name instructions of no criterion made here: they are kept in each item's ``meta``, as
    for an export without criteria."""
    submissions = [s.model_copy(update={"feedbacks": [
        f.model_copy(update={"grading_instruction_id": None, "meta": {
            **f.meta, "grading_instruction_id": f.grading_instruction_id}})
        if f.grading_instruction_id is not None else f for f in s.feedbacks]})
        for s in export.submissions]
    return export.model_copy(update={
        "grading_criteria": criteria_from_text(export.grading_instructions),
        "submissions": submissions})
