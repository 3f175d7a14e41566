"""The judge (DeepEval style): a model scores an answer 0–5 on a rubric, as ``{score, feedback}``.

>>> judge = Judge(Rubric.load(), repeats=3)
>>> verdicts = await judge.score(JudgeItem(instruction=..., response=...), caller)

The pairwise judge says which of two answers is better (``{winner, reason}``):

>>> verdict = await PairwiseJudge().decide(PairwiseItem(response_1=..., response_2=...), caller)
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
from eunomia.judge._pairwise import (
    PAIRWISE_FIELDS,
    WINNERS,
    PairVerdict,
    PairwiseAnswer,
    PairwiseItem,
    PairwiseJudge,
    PairwisePrompt,
    Winner,
    pairwise_schema,
    parse_pairwise,
    read_winner,
)
from eunomia.judge._schema import (
    MAX_SCORE,
    SCORES,
    JudgeAnswer,
    Verdict,
    expected_score,
    judge_schema,
)
from eunomia.judge._trust import LOCAL_JUDGES, judge_trust, local_judge_name

__all__ = [
    "FIELDS",
    "JUDGE_VERSION",
    "LOCAL_JUDGES",
    "MAX_SCORE",
    "PAIRWISE_FIELDS",
    "SCORES",
    "WINNERS",
    "Judge",
    "JudgeAnswer",
    "JudgeCall",
    "JudgeCaller",
    "JudgeItem",
    "PairVerdict",
    "PairwiseAnswer",
    "PairwiseItem",
    "PairwiseJudge",
    "PairwisePrompt",
    "Rubric",
    "UnusableAnswer",
    "Verdict",
    "Winner",
    "expected_score",
    "judge_schema",
    "judge_trust",
    "local_judge_name",
    "pairwise_schema",
    "parse_answer",
    "parse_pairwise",
    "read_winner",
    "unusable",
]
