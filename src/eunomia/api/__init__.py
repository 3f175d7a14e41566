"""Eunomia from Python: every kind of evaluation, as objects or as the command line runs it.

Loaded suites and resolved systems, typed results (``report.summary`` is the kind's own):

>>> loaded, problems = load_scenarios(discover([Path("examples/scenarios")])[0])
>>> report = await run_scenarios(loaded, build_target("example", TargetConfig()),
...                              run_name="demo", results_dir=Path("results"),
...                              options=RunOptions())        # RunReport[ScenarioSummary]

- :func:`run_scenarios` (``eunomia run``): :class:`RunReport` of ``ScenarioSummary``;
- :func:`run_tasks` (``eunomia eval``): of ``TasksSummary``;
- :func:`judge_check` (``eunomia judge-check``): of ``JudgeCheckSummary``;
- :func:`pairwise` (``eunomia eval --pairwise``): of ``PairwiseSummary``.

Or what a command does, from paths and specs, with a matrix file, ``--resume`` and the CI
outputs: :func:`run_command`, :func:`eval_command`, :func:`judge_check_command` and
:func:`pairwise_command` take the kind's request (:class:`ScenarioRequest`...) and the run
options every command shares (:class:`RunRequest`); each returns a :class:`RunResult` (the
report, the CI files written, what makes the exit code 1). The ``eunomia`` commands are thin
adapters over these. Every one goes through the one engine
(:func:`eunomia.run.run_evaluation`) with its kind's plan.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eunomia.lazy import lazy_names

if TYPE_CHECKING:
    from eunomia.api._judge_check import (
        EVAL_SUFFIX,
        JudgeCheckOutcome,
        JudgeCheckRequest,
        check_before_eval,
        judge_check,
        judge_check_command,
        judge_check_for_eval,
    )
    from eunomia.api._pairwise import PairwiseRequest, pairwise, pairwise_command
    from eunomia.api._scenarios import ScenarioRequest, run_command, run_scenarios
    from eunomia.api._tasks import TaskRequest, eval_command, parse_weights, run_tasks
    from eunomia.kinds import Selection
    from eunomia.kinds._task_suites import NO_JUDGE
    from eunomia.kinds.judge_check import JudgeCheckSummary
    from eunomia.kinds.pairwise import PairwiseSummary
    from eunomia.kinds.scenarios import LoadedScenario, ScenarioSummary, load_scenarios
    from eunomia.kinds.tasks import TasksSummary
    from eunomia.run import RunReport, RunRequest, RunResult
    from eunomia.scheduler import RunOptions

    CaseSelection = Selection
    TaskSelection = Selection
    TaskRunReport = RunReport
    load_all = load_scenarios

# lazy: a command loads the kind it runs, not the other three (``eunomia eval`` would
# otherwise load the SGI scenarios, Apollon and Athena)
__getattr__ = lazy_names(__name__, {
    "_judge_check": ("EVAL_SUFFIX", "JudgeCheckOutcome", "JudgeCheckRequest",
                     "check_before_eval", "judge_check", "judge_check_command",
                     "judge_check_for_eval"),
    "_pairwise": ("PairwiseRequest", "pairwise", "pairwise_command"),
    "_scenarios": ("ScenarioRequest", "run_command", "run_scenarios"),
    "_tasks": ("TaskRequest", "eval_command", "parse_weights", "run_tasks"),
    "eunomia.kinds": ("Selection",),
    "eunomia.kinds._task_suites": ("NO_JUDGE",),
    "eunomia.kinds.judge_check": ("JudgeCheckSummary",),
    "eunomia.kinds.pairwise": ("PairwiseSummary",),
    "eunomia.kinds.scenarios": ("LoadedScenario", "ScenarioSummary", "load_scenarios"),
    "eunomia.kinds.tasks": ("TasksSummary",),
    "eunomia.run": ("RunReport", "RunRequest", "RunResult"),
    "eunomia.scheduler": ("RunOptions",),
}, aliases={"CaseSelection": "Selection", "TaskSelection": "Selection",
            "TaskRunReport": "RunReport", "load_all": "load_scenarios"})

__all__ = [
    "EVAL_SUFFIX",
    "NO_JUDGE",
    "CaseSelection",
    "JudgeCheckOutcome",
    "JudgeCheckRequest",
    "JudgeCheckSummary",
    "LoadedScenario",
    "PairwiseRequest",
    "PairwiseSummary",
    "RunOptions",
    "RunReport",
    "RunRequest",
    "RunResult",
    "ScenarioRequest",
    "ScenarioSummary",
    "Selection",
    "TaskRequest",
    "TaskRunReport",
    "TaskSelection",
    "TasksSummary",
    "check_before_eval",
    "eval_command",
    "judge_check",
    "judge_check_command",
    "judge_check_for_eval",
    "load_all",
    "load_scenarios",
    "pairwise",
    "pairwise_command",
    "parse_weights",
    "run_command",
    "run_scenarios",
    "run_tasks",
]
