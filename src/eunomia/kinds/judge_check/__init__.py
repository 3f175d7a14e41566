"""The judge-check kind (``eunomia judge-check``): can a judge tell good answers from bad?

For each case of some task suites, a judge scores controlled answers built from the case's
reference (:mod:`._answers`), prompted exactly as ``eval`` prompts it for that case; the
AUC of its scores (good against bad, with a bootstrap interval over cases) says whether they
are evidence. :class:`JudgeCheckPlan` is what to run (suites x judges); the kind itself
(:data:`KIND`) exports, prints and ranks the results.
"""

from eunomia.kinds.judge_check._answers import (
    ANSWER_KINDS,
    BAD_KINDS,
    REFUSAL,
    AnswerKind,
    answers,
    padded,
    selected_count,
    truncated,
)
from eunomia.kinds.judge_check._files import export_judge_check, judge_summary, stored_verdicts
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
from eunomia.kinds.judge_check._work import CheckedAnswer

KIND = JUDGE_CHECK

__all__ = [
    "ANSWER_KINDS",
    "BAD_KINDS",
    "KIND",
    "REFUSAL",
    "WEAK_AUC",
    "AnswerKind",
    "CheckedAnswer",
    "CheckedJudge",
    "GroupCheck",
    "JudgeCheckKind",
    "JudgeCheckPlan",
    "JudgeCheckSummary",
    "JudgeVerdict",
    "answers",
    "export_judge_check",
    "judge_summary",
    "judge_verdict",
    "padded",
    "print_judge_check",
    "print_verdicts",
    "selected_count",
    "stored_verdicts",
    "truncated",
]
