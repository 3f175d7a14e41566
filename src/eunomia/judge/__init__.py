"""The judge (DeepEval style): a model scores an answer 0–5 on a rubric, as ``{score, feedback}``.

>>> judge = Judge(Rubric.load(), repeats=3)
>>> verdicts = await judge.score(JudgeItem(instruction=..., response=...), caller)
"""

from eunomia.judge._judge import (
    FIELDS,
    JUDGE_VERSION,
    Judge,
    JudgeCall,
    JudgeCaller,
    JudgeItem,
    Rubric,
    UnusableAnswer,
    parse_answer,
    unusable,
)
from eunomia.judge._schema import (
    MAX_SCORE,
    SCORES,
    JudgeAnswer,
    Verdict,
    expected_score,
    judge_schema,
)

__all__ = [
    "FIELDS",
    "JUDGE_VERSION",
    "MAX_SCORE",
    "SCORES",
    "Judge",
    "JudgeAnswer",
    "JudgeCall",
    "JudgeCaller",
    "JudgeItem",
    "Rubric",
    "UnusableAnswer",
    "Verdict",
    "expected_score",
    "judge_schema",
    "parse_answer",
    "unusable",
]
