"""Turn an exercise's grading criteria and a diagram into Athena feedback items.

A criterion is matched to a rule check by keywords in its title; the check's outcome
label then selects the criterion's SGI whose ``gradingScale`` equals it
(case-insensitive). Criteria without a matching check or SGI get no feedback item.
"""

from __future__ import annotations

from eunomia.apollon import ApollonDiagram
from eunomia.athena import AthenaExercise, AthenaFeedback, AthenaGradingCriterion
from eunomia.example_server import rules

# First match wins, so the more specific keywords come first ("No Extraneous Classes"
# is about extras, "Class Attributes" about attributes, not about classes).
CHECKS_BY_KEYWORD: tuple[tuple[tuple[str, ...], rules.Check], ...] = (
    (("naming", "convention"), rules.check_naming),
    (("extra", "unnecessary", "additional"), rules.check_extras),
    (("multiplicit", "cardinalit"), rules.check_multiplicities),
    (("assign", "team member"), rules.check_assignment),
    (("relationship", "composition"), rules.check_relationship_type),
    (("attribute",), rules.check_attributes),
    (("class",), rules.check_classes),
)

SUPPORTED_DIAGRAM_TYPES = frozenset({"ClassDiagram"})


def check_for(title: str) -> rules.Check | None:
    """The rule check a criterion title asks for, or ``None`` if there is none."""
    text = title.casefold()
    for keywords, check in CHECKS_BY_KEYWORD:
        if any(k in text for k in keywords):
            return check
    return None


def _feedback(
    criterion: AthenaGradingCriterion,
    outcome: rules.Outcome,
    exercise_id: int,
    submission_id: int,
) -> AthenaFeedback | None:
    label = outcome.label.casefold()
    for sgi in criterion.structured_grading_instructions:
        if sgi.grading_scale.strip().casefold() == label:
            return AthenaFeedback(
                id=None,
                title=criterion.title,
                description=sgi.feedback,
                credits=sgi.credits,
                structured_grading_instruction_id=sgi.id,
                is_graded=False,
                meta={},
                exercise_id=exercise_id,
                submission_id=submission_id,
                element_ids=list(outcome.element_ids),
            )
    return None


def grade(
    exercise: AthenaExercise, submission_id: int, diagram: ApollonDiagram
) -> list[AthenaFeedback]:
    """One feedback item per criterion the rules can judge; none for other diagram types."""
    if diagram.type not in SUPPORTED_DIAGRAM_TYPES:
        return []
    view = rules.ClassDiagramView(diagram)
    items: list[AthenaFeedback] = []
    for criterion in exercise.grading_criteria:
        check = check_for(criterion.title)
        if check is None:
            continue
        item = _feedback(criterion, check(view), exercise.id, submission_id)
        if item is not None:
            items.append(item)
    return items
