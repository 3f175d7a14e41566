"""Systematic problems of a scenario run, said loudly: a figure that measures nothing must
never pass as a result (a system that names no instruction scores 0 %, not "a bad system")."""

from __future__ import annotations

import math
from collections import Counter

from eunomia.kinds.scenarios._summary import ScenarioSummary

MOST_ALIKE = 0.9
"""Warn when one answer (set of instructions) covers at least this share of the cases."""
FEW = 3
"""Fewer scored cases than this say nothing about a pattern."""


def run_warnings(summary: ScenarioSummary) -> list[str]:
    """What is wrong with the whole run of one scenario on one target, in words."""
    out: list[str] = []
    s = summary
    if not s.labelled:
        out.append("unlabelled scenario (no default_expected): correctness is not measured; "
                   "consistency across --repeat, feedback, cost, latency and failures are "
                   "still measured")
    if s.total and s.failed == s.total:
        reasons = Counter(f.reason for f in s.failures)
        reason, count = reasons.most_common(1)[0]
        if count == s.total:
            out.append(f"every case failed with the same error: {reason}")
    if s.scored and s.feedback_items and not s.sgi_items:
        out.append(f"the system returned {s.feedback_items} feedback item(s) and no structured "
                   "grading instruction ids: SGI scores measure nothing")
    elif s.scored and not s.feedback_items:
        out.append("the system returned no feedback at all on any case")
    if s.scored >= FEW and s.sgi_items:
        answer, count = s.answers.most_common(1)[0]
        if count >= MOST_ALIKE * s.scored:
            what = f"{len(answer)} instruction(s)" if answer else "no instruction"
            out.append(f"the system returned the same answer ({what}) on {count} of "
                       f"{s.scored} cases: its answers hardly depend on the submission")
    if s.cost_disagreements:
        theirs, ours = math.fsum(s.reported_costs), math.fsum(s.reported_cost_computed)
        out.append(f"the system's own cost figure differs from Eunomia's on "
                   f"{s.cost_disagreements} of {len(s.reported_costs)} case(s) (its total "
                   f"{theirs:.6g}, Eunomia's {ours:.6g}): Eunomia's is recomputed from the token "
                   "counts and llm_cost.yml; both are in the case files")
    out.extend(s.metering_warnings())
    out.extend(f"cost: {note}" for note in sorted(s.price_notes))
    if s.unrecognized_ids and s.cases_with_unrecognized * 2 >= s.scored:
        out.append(f"{s.unrecognized_ids} returned SGI id(s) on {s.cases_with_unrecognized} "
                   f"case(s) are not instructions of this scenario")
    return out
