"""Orchestration of a run: cases through the scheduler to the target, scored and priced."""

from eunomia.runner._scenario import CaseJob, OutcomeSink, RunOptions, cache_key, run_scenario
from eunomia.runner._session import (
    CaseSelection,
    LoadedScenario,
    RunReport,
    load_all,
    open_run,
    run_scenarios,
)

__all__ = [
    "CaseJob",
    "CaseSelection",
    "LoadedScenario",
    "OutcomeSink",
    "RunOptions",
    "RunReport",
    "cache_key",
    "load_all",
    "open_run",
    "run_scenario",
    "run_scenarios",
]
