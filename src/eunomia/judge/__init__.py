"""The judge (DeepEval style): a model scores an answer 0–5 on a rubric, as ``{score, feedback}``.

>>> judge = Judge(Rubric.load(), repeats=3)
>>> verdicts = await judge.score(JudgeItem(instruction=..., response=...), caller)

The pairwise judge says which of two answers is better (``{winner, reason}``):

>>> verdict = await PairwiseJudge().decide(PairwiseItem(response_1=..., response_2=...), caller)
"""

from eunomia.judge._floor import (
    CONTENT_FREE,
    FACT_KINDS,
    GOOD,
    KIND_WORDS,
    CaseScores,
    FloorComparison,
    FloorVerdict,
    KindFigures,
    blind_verdict,
    compare_to_floor,
    form_verdict,
    kind_figures,
    lenient_verdict,
    pooled_auc,
)
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
from eunomia.judge._trust import (
    LIKELIHOOD_JUDGES,
    LOCAL_JUDGES,
    judge_trust,
    local_judge_name,
)

__all__ = [
    "CONTENT_FREE",
    "FACT_KINDS",
    "FIELDS",
    "GOOD",
    "JUDGE_VERSION",
    "KIND_WORDS",
    "LIKELIHOOD_JUDGES",
    "LOCAL_JUDGES",
    "MAX_SCORE",
    "PAIRWISE_FIELDS",
    "SCORES",
    "WINNERS",
    "CaseScores",
    "FloorComparison",
    "FloorVerdict",
    "Judge",
    "JudgeAnswer",
    "JudgeCall",
    "JudgeCaller",
    "JudgeItem",
    "KindFigures",
    "PairVerdict",
    "PairwiseAnswer",
    "PairwiseItem",
    "PairwiseJudge",
    "PairwisePrompt",
    "Rubric",
    "UnusableAnswer",
    "Verdict",
    "Winner",
    "blind_verdict",
    "compare_to_floor",
    "expected_score",
    "form_verdict",
    "judge_schema",
    "judge_trust",
    "kind_figures",
    "lenient_verdict",
    "local_judge_name",
    "pairwise_schema",
    "parse_answer",
    "parse_pairwise",
    "pooled_auc",
    "read_winner",
    "unusable",
]
