"""The judge-check kind (``eunomia judge-check``): can a judge tell good answers from bad?

For each case of some task suites, a judge scores controlled answers built from the case's
reference (``eunomia.kinds._task_suites``), prompted exactly as ``eval`` prompts it for that
case; the AUC of its scores (good against bad, with a bootstrap interval over cases) says
whether they are evidence. :class:`JudgeCheckPlan` is what to run (suites x judges); the
kind itself (:data:`KIND`) exports, prints and ranks the results. ``eval --judge-check``
keeps the check of its judge as a link in the eval run's settings (:class:`StoredCheck`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from eunomia.kinds._task_suites import (
    BAD_CONTROLS,
    CONTROLS,
    REFUSAL,
    Control,
    HumanAnswers,
    answers,
    human_answers,
    padded,
    selected_count,
    truncated,
)
from eunomia.kinds.judge_check._for_eval import (
    SETTING,
    VERDICT_COLUMNS,
    StoredCheck,
    StoredVerdict,
    check_json,
    check_messages,
    stored_check,
    verdict_rows,
)
from eunomia.lazy import lazy_names

if TYPE_CHECKING:
    from eunomia.kinds.judge_check._files import (
        export_judge_check,
        judge_summary,
        stored_verdicts,
    )
    from eunomia.kinds.judge_check._kind import JUDGE_CHECK, JudgeCheckKind
    from eunomia.kinds.judge_check._plan import CheckedJudge, JudgeCheckPlan
    from eunomia.kinds.judge_check._summary import (
        WEAK_AUC,
        GroupCheck,
        JudgeCheckSummary,
        JudgeVerdict,
        judge_verdict,
    )
    from eunomia.kinds.judge_check._terminal import print_judge_check, print_verdicts
    from eunomia.kinds.judge_check._work import AnswerJob, CheckedAnswer

    KIND = JUDGE_CHECK

# lazy: what an eval run keeps of its judge's check (_for_eval) is light; the kind itself
# loads when a judge-check runs or its runs are read
__getattr__ = lazy_names(__name__, {
    "_files": ("export_judge_check", "judge_summary", "stored_verdicts"),
    "_kind": ("JUDGE_CHECK", "JudgeCheckKind"),
    "_plan": ("CheckedJudge", "JudgeCheckPlan"),
    "_summary": ("WEAK_AUC", "GroupCheck", "JudgeCheckSummary", "JudgeVerdict",
                 "judge_verdict"),
    "_terminal": ("print_judge_check", "print_verdicts"),
    "_work": ("AnswerJob", "CheckedAnswer"),
}, aliases={"KIND": "JUDGE_CHECK"})



__all__ = [
    "BAD_CONTROLS",
    "CONTROLS",
    "KIND",
    "REFUSAL",
    "SETTING",
    "VERDICT_COLUMNS",
    "WEAK_AUC",
    "AnswerJob",
    "CheckedAnswer",
    "CheckedJudge",
    "Control",
    "GroupCheck",
    "HumanAnswers",
    "JudgeCheckKind",
    "JudgeCheckPlan",
    "JudgeCheckSummary",
    "JudgeVerdict",
    "StoredCheck",
    "StoredVerdict",
    "answers",
    "check_json",
    "check_messages",
    "export_judge_check",
    "human_answers",
    "judge_summary",
    "judge_verdict",
    "padded",
    "print_judge_check",
    "print_verdicts",
    "selected_count",
    "stored_check",
    "stored_verdicts",
    "truncated",
    "verdict_rows",
]
