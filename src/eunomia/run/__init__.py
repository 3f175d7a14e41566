"""The evaluation engine: one run loop for every kind of evaluation.

:func:`run_evaluation` runs a kind's :class:`eunomia.kinds.Plan`; :func:`export_run`
writes a stored run's files again; :func:`write_outputs` its CI-native outputs (JSON Lines,
JUnit XML, a Markdown summary); :class:`RunRequest` is the run options every command shares
(checked, merged with a matrix file or a resumed run). The engine knows nothing of SGIs or
judges: what is kind-specific comes from :mod:`eunomia.kinds`.
"""

from eunomia.limits import LIMITS, check_positive, check_run_name
from eunomia.run._engine import RunArgs, RunReport, run_evaluation
from eunomia.run._export import export_run, write_run_file
from eunomia.run._export_place import csv_folder, format_file
from eunomia.run._open import open_run
from eunomia.run._outputs import (
    STEP_SUMMARY_ENV,
    CiOutputs,
    Format,
    ci_outputs,
    export_format,
    write_comparison_outputs,
    write_outputs,
    write_report_outputs,
)
from eunomia.run._request import (
    RunRequest,
    RunResult,
    default_run_name,
    run_result,
    run_to_resume,
    stored_selection,
)

__all__ = [
    "LIMITS",
    "STEP_SUMMARY_ENV",
    "CiOutputs",
    "Format",
    "RunArgs",
    "RunReport",
    "RunRequest",
    "RunResult",
    "check_positive",
    "check_run_name",
    "ci_outputs",
    "csv_folder",
    "default_run_name",
    "export_format",
    "export_run",
    "format_file",
    "open_run",
    "run_evaluation",
    "run_result",
    "run_to_resume",
    "stored_selection",
    "write_comparison_outputs",
    "write_outputs",
    "write_report_outputs",
    "write_run_file",
]
