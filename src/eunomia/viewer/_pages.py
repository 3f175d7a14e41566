"""The pages of stored runs: a run's report, two runs compared, the list of runs.

``eunomia report`` writes them to files and ``eunomia view`` serves them; the run's kind
(``eunomia.kinds``) fills in what is particular to it.
"""

from __future__ import annotations

from eunomia import defaults
from eunomia.compare import Comparison, compare_runs
from eunomia.errors import EunomiaError
from eunomia.kinds import kind_entry, kind_named
from eunomia.report.html import (
    RunReport,
    build_run_report,
    render_comparison_page,
    render_report,
)
from eunomia.store import RunInfo, RunStore


def _info(store: RunStore, run: RunInfo | str) -> RunInfo:
    return store.require_run(run) if isinstance(run, str) else run


def run_report(store: RunStore, run: RunInfo | str, *,
               worst_cases: int = defaults.REPORT_WORST_CASES) -> RunReport:
    """Everything a run's report shows, read from the store."""
    info = _info(store, run)
    return build_run_report(store, info, kind_named(info.kind), worst_cases=worst_cases)


def score_digits(kind: str) -> int:
    """The decimals a run kind's score is shown with (1 for a kind not known here)."""
    try:
        return kind_entry(kind).score_digits
    except EunomiaError:
        return 1


def render_run(store: RunStore, run: RunInfo | str, *, links: bool = False) -> str:
    """``eunomia report RUN``: the whole page of a run. ``links``: viewer navigation."""
    return render_report(run_report(store, run), links=links)


def compare_stored(store_a: RunStore, run_a: RunInfo | str, store_b: RunStore,
                   run_b: RunInfo | str, *, alpha: float = defaults.COMPARE_ALPHA,
                   max_new_failures: int = defaults.COMPARE_MAX_NEW_FAILURES,
                   target_a: str | None = None, target_b: str | None = None,
                   effect: float | None = None) -> Comparison:
    """``eunomia compare``: run B against run A (the kind of run A compares them);
    ``effect``: the cases needed to detect it (``--effect``)."""
    info_a, info_b = _info(store_a, run_a), _info(store_b, run_b)
    return compare_runs(store_a, info_a, store_b, info_b, kind_named(info_a.kind),
                        alpha=alpha, max_new_failures=max_new_failures, target_a=target_a,
                        target_b=target_b, effect=effect)


def render_comparison(store_a: RunStore, run_a: RunInfo | str, store_b: RunStore,
                      run_b: RunInfo | str, *, links: bool = False) -> str:
    """``eunomia report A --compare B``: both runs side by side with the deltas."""
    info_a, info_b = _info(store_a, run_a), _info(store_b, run_b)
    note = None
    comparison: Comparison | None
    try:
        comparison = compare_stored(store_a, info_a, store_b, info_b)
    except EunomiaError as exc:
        comparison, note = None, f"No paired comparison: {exc}"
    return render_comparison_page(run_report(store_a, info_a), run_report(store_b, info_b),
                                  comparison, links=links, note=note)
