"""Orchestration of a run: cases through the scheduler to the target, scored and priced."""

from eunomia.runner._scenario import OutcomeSink, RunOptions, run_scenario
from eunomia.runner._session import (
    CaseSelection,
    LoadedScenario,
    RunReport,
    load_all,
    run_scenarios,
)

__all__ = [
    "CaseSelection",
    "LoadedScenario",
    "OutcomeSink",
    "RunOptions",
    "RunReport",
    "load_all",
    "run_scenario",
    "run_scenarios",
]
