"""What the kinds over task suites share (``tasks``, ``judge_check``, ``pairwise``): not a kind.

- ``_calls.py``: :class:`ModelCaller` (a model in one role: cached, retried, rate-limited,
  here or on workers) and :func:`call_record` (what a case keeps of a call);
- ``_prompts.py``: each suite's own rubric, each category's guidance read once;
- ``_models.py``: :class:`Candidate`, :func:`price_table`, the providers of a turn;
- ``_baselines.py``: the trivial candidates (``baseline:reference``, ``baseline:empty``);
- ``_controls.py``: the controlled answers of a judge check, built from the references;
- ``_cases.py``: the selected cases, the rows of unusable ones, what calls add up to;
- ``_plan.py``: :class:`SuitePlan` and :class:`SuiteTargetRun`, the bases of their plans;
- ``_suite_files.py``: which files hold task suites, and their validation;
- ``_human.py``: the judge against human scores (kappa with an interval), and the answers
  people scored (``eunomia label RUN``) read back for a judge check.

The task-suite *format* (YAML, loading, categories, checks, snapshots) is :mod:`eunomia.tasks`.
"""

from eunomia.kinds._task_suites._baselines import (
    NOT_APPLICABLE,
    BaselineAnswer,
    baseline_note,
    baseline_of,
    selected_answers,
)
from eunomia.kinds._task_suites._calls import (
    ModelCaller,
    ModelContext,
    Validate,
    call_record,
    chat_attempt,
)
from eunomia.kinds._task_suites._cases import (
    call_cost,
    calls_cost,
    calls_latency,
    invalid_cases,
    selected_entries,
    token_counts,
)
from eunomia.kinds._task_suites._controls import (
    BAD_CONTROLS,
    CONTROLS,
    EASY_CONTROLS,
    FLOOR_CONTROLS,
    REFUSAL,
    SEPARATOR,
    Control,
    answers,
    checkable,
    padded,
    row_name,
    selected,
    selected_count,
    split_row_name,
    truncated,
    unchecked,
)
from eunomia.kinds._task_suites._human import (
    HumanAgreement,
    HumanAnswer,
    HumanAnswers,
    human_agreement,
    human_answers,
    scored_other_answers,
    scores_kappa,
)
from eunomia.kinds._task_suites._models import (
    NO_JUDGE,
    Candidate,
    Providers,
    model_caller,
    price_table,
    serial_concurrency,
)
from eunomia.kinds._task_suites._plan import SuitePlan, SuiteTargetRun, finished
from eunomia.kinds._task_suites._prompts import Guidance, suite_rubrics
from eunomia.kinds._task_suites._suite_files import holds_suites, validate_suites

__all__ = [
    "BAD_CONTROLS",
    "CONTROLS",
    "EASY_CONTROLS",
    "FLOOR_CONTROLS",
    "NOT_APPLICABLE",
    "NO_JUDGE",
    "REFUSAL",
    "SEPARATOR",
    "BaselineAnswer",
    "Candidate",
    "Control",
    "Guidance",
    "HumanAgreement",
    "HumanAnswer",
    "HumanAnswers",
    "ModelCaller",
    "ModelContext",
    "Providers",
    "SuitePlan",
    "SuiteTargetRun",
    "Validate",
    "answers",
    "baseline_note",
    "baseline_of",
    "call_cost",
    "call_record",
    "calls_cost",
    "calls_latency",
    "chat_attempt",
    "checkable",
    "finished",
    "holds_suites",
    "human_agreement",
    "human_answers",
    "invalid_cases",
    "model_caller",
    "padded",
    "price_table",
    "row_name",
    "scored_other_answers",
    "scores_kappa",
    "selected",
    "selected_answers",
    "selected_count",
    "selected_entries",
    "serial_concurrency",
    "split_row_name",
    "suite_rubrics",
    "token_counts",
    "truncated",
    "unchecked",
    "validate_suites",
]
