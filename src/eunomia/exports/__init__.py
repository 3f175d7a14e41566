"""Result files written from a run (CSV tables and JSON)."""

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
    "ScenarioExporter",
    "case_json",
    "case_row",
    "summary_json",
    "summary_rows",
]
