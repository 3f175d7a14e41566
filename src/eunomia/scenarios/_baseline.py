"""Trivial baselines: what a system that knows nothing returns on every case of a scenario.

``default`` returns the scenario's ``default_expected`` instructions (a system that assumes
every diagram is perfect); ``constant`` returns, for each criterion, the instruction most
often expected across the scenario's cases (ties: the instruction listed first). Neither
looks at the submission. ``eunomia.targets.baseline`` runs them as targets; the scenario
kind compares every run with ``default``.
"""

from __future__ import annotations

from collections import Counter

from eunomia.athena import AthenaFeedback
from eunomia.errors import EunomiaError
from eunomia.scenarios._model import Scenario

BASELINES = ("default", "constant")
BASELINE_DEFAULT = "baseline:default"
BASELINE_TARGETS = frozenset(f"baseline:{k}" for k in BASELINES)
"""The targets that answer with a trivial baseline: no call, no cost."""


def baseline_instructions(scenario: Scenario, baseline: str) -> tuple[int, ...]:
    """The instruction ids the baseline ``baseline`` returns on every case of ``scenario``."""
    if baseline == "default":
        return scenario.default_expected
    if baseline == "constant":
        counts: Counter[int] = Counter(i for case in scenario.test_cases for i in case.expected)
        chosen: list[int] = []
        for criterion in scenario.criteria:
            ranked = [(counts[i.id], -k, i.id) for k, i in enumerate(criterion.instructions)]
            best = max(ranked)
            if best[0] > 0:
                chosen.append(best[2])
        return tuple(chosen)
    raise EunomiaError(f"unknown baseline {baseline!r}: choose {', '.join(BASELINES)}")


def baseline_feedback(scenario: Scenario, baseline: str) -> list[AthenaFeedback]:
    """The feedback items the baseline returns: one per instruction, with its credits."""
    known = scenario.instructions
    return [
        AthenaFeedback(
            id=n, title=known[i].textual_id, description=known[i].feedback,
            credits=known[i].credits, structured_grading_instruction_id=i,
            exercise_id=scenario.exercise.id, submission_id=0,
        )
        for n, i in enumerate(baseline_instructions(scenario, baseline), start=1)
    ]
