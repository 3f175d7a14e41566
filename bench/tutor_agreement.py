"""Agreement with the tutors pooled over a run's scenarios, per target (the terminal and
``scenario_results.json`` give it per scenario; a leaderboard column is not there yet).

    python bench/tutor_agreement.py results/tutors [--chart agreement.svg]

Reads every ``scenario_results.json`` under the run's folder, pools each target's graded
cases (in percent of each exercise's maximum) and prints one Markdown table: cases, Pearson
and Spearman with both intervals, mean absolute difference and bias with their bootstrap
intervals. With several targets, each pair is compared on the cases both answered: the mean
difference of their absolute errors (percent of max) with its paired-bootstrap interval and p.
``--chart`` also writes the scatter plot of the report (one colour per target).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from eunomia.report.html import agreement_chart, agreement_series
from eunomia.scoring import (
    AgreementPair,
    TutorAgreement,
    agreement,
    correlation_text,
    interval_text,
)
from eunomia.stats import paired_bootstrap


def pooled(run: Path) -> dict[str, TutorAgreement]:
    by_target: dict[str, list[AgreementPair]] = {}
    graded: dict[str, int] = {}
    for path in sorted(run.rglob("scenario_results.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        found = data.get("tutor_agreement")
        if not found:
            continue
        target = data["target"]
        graded[target] = graded.get(target, 0) + found["graded_cases"]
        by_target.setdefault(target, []).extend(
            AgreementPair(data["scenario"], p["test_case"], p["tutor_points"],
                          p["system_points"], p["max_points"], p["repeats"])
            for p in found["pairs"])
    return {t: agreement(pairs, graded[t]) for t, pairs in by_target.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", type=Path, help="a run's results folder (results/<run>)")
    parser.add_argument("--chart", type=Path, help="also write the scatter plot (SVG) here")
    args = parser.parse_args(argv)
    found = pooled(args.run)
    if not found:
        print(f"no scenario_results.json with tutor grades under {args.run}", file=sys.stderr)
        return 1
    print("| target | cases | Pearson r | Spearman rho | MAD (% of max) | bias (% of max) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for target, a in sorted(found.items()):
        print(f"| {target} | {a.n} of {a.graded} | {correlation_text(a.pearson)} | "
              f"{correlation_text(a.spearman)} | {interval_text(a.mad_percent)} | "
              f"{interval_text(a.bias_percent, True)} |")
    targets = sorted(found)
    for i, a in enumerate(targets):
        for b in targets[i + 1:]:
            errors = {}
            for t in (a, b):
                errors[t] = {(p.scenario, p.case): abs(p.system_percent - p.tutor_percent)
                             for p in found[t].pairs}
            both = sorted(set(errors[a]) & set(errors[b]))
            delta = paired_bootstrap([errors[a][k] for k in both], [errors[b][k] for k in both])
            if delta is not None:
                print(f"\nabsolute error (% of max), {b} minus {a}, on {delta.n} cases: "
                      f"{delta.mean_delta:+.1f} [{delta.low:+.1f}, {delta.high:+.1f}] "
                      f"(paired bootstrap), p={delta.p_value:.3g}")
    if args.chart is not None:
        svg = agreement_chart([agreement_series(t, a) for t, a in sorted(found.items())],
                              title=f"Agreement with the tutors: {args.run.name}")
        args.chart.write_text(str(svg), encoding="utf-8")
        print(f"\nchart: {args.chart}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
