"""The structured-grading (SGI) scenario kind (``eunomia run``).

:class:`ScenarioPlan` is what to run (loaded scenarios x targets); the kind itself
(:data:`KIND`) validates scenario folders and exports, prints and ranks their results.
"""

from eunomia.kinds.scenarios._kind import SCENARIOS, ScenarioKind
from eunomia.kinds.scenarios._load import load_scenarios
from eunomia.kinds.scenarios._plan import ScenarioPlan
from eunomia.kinds.scenarios._points_out import (
    agreement_pairs,
    case_points_json,
    points_json,
    points_rows,
    tutor_agreement,
)
from eunomia.kinds.scenarios._records import iter_outcomes, outcome_from_row, stored_scenario
from eunomia.kinds.scenarios._summary import (
    CriterionStats,
    Failure,
    InstructionStats,
    ScenarioSummary,
)
from eunomia.kinds.scenarios._terminal import leaderboard, scenario_row
from eunomia.kinds.scenarios._work import LoadedScenario, selected_cases, selected_invalid

KIND = SCENARIOS

__all__ = [
    "KIND",
    "CriterionStats",
    "Failure",
    "InstructionStats",
    "LoadedScenario",
    "ScenarioKind",
    "ScenarioPlan",
    "ScenarioSummary",
    "agreement_pairs",
    "case_points_json",
    "iter_outcomes",
    "leaderboard",
    "load_scenarios",
    "outcome_from_row",
    "points_json",
    "points_rows",
    "scenario_row",
    "selected_cases",
    "selected_invalid",
    "stored_scenario",
    "tutor_agreement",
]
