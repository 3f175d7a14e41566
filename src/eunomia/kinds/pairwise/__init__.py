"""The pairwise kind (``eunomia eval --model A --model B --pairwise``): two candidates
answer the same task cases exactly as ``eval`` asks them (same calls, same cache), and a
judge says which answer is better, each pair shown in both orders so that a preference for
a position cancels out. :class:`PairwisePlan` is what to run; the kind itself
(:data:`KIND`) exports, prints and ranks the results: B's win, tie and loss rates against A
with 95% Wilson intervals, per kind of task and overall, and the judge's position bias.
"""

from eunomia.kinds.pairwise._files import export_pairwise, pairwise_summary, stored_pairs
from eunomia.kinds.pairwise._kind import PAIRWISE, PairwiseKind
from eunomia.kinds.pairwise._plan import PairwisePlan, pair_name
from eunomia.kinds.pairwise._result import (
    OUTCOMES,
    Answer,
    OrderVerdict,
    Outcome,
    PairResult,
    Side,
    outcome_of,
)
from eunomia.kinds.pairwise._summary import (
    PairwiseSummary,
    Position,
    Rates,
    SideFigures,
    wilson,
)
from eunomia.kinds.pairwise._terminal import PAIRWISE_COLUMNS, pair_rows, print_pairwise
from eunomia.kinds.pairwise._work import PairJob, pair_item, transcript

KIND = PAIRWISE

__all__ = [
    "KIND",
    "OUTCOMES",
    "PAIRWISE_COLUMNS",
    "Answer",
    "OrderVerdict",
    "Outcome",
    "PairJob",
    "PairResult",
    "PairwiseKind",
    "PairwisePlan",
    "PairwiseSummary",
    "Position",
    "Rates",
    "Side",
    "SideFigures",
    "export_pairwise",
    "outcome_of",
    "pair_item",
    "pair_name",
    "pair_rows",
    "pairwise_summary",
    "print_pairwise",
    "stored_pairs",
    "transcript",
    "wilson",
]
