"""Result files written from a run (CSV tables and JSON)."""

from eunomia.exports._from_store import (
    ExportedScenario,
    ScenarioExport,
    export_run,
    iter_outcomes,
    outcome_from_row,
    scenario_leaderboard,
    target_slug,
    write_run_file,
)
from eunomia.exports._scenario_files import (
    CASE_COLUMNS,
    ScenarioExporter,
    case_json,
    case_row,
    summary_json,
    summary_rows,
)

__all__ = [
    "CASE_COLUMNS",
    "ExportedScenario",
    "ScenarioExport",
    "ScenarioExporter",
    "case_json",
    "case_row",
    "export_run",
    "iter_outcomes",
    "outcome_from_row",
    "scenario_leaderboard",
    "summary_json",
    "summary_rows",
    "target_slug",
    "write_run_file",
]
