"""``eunomia compare`` as CI reads it: JUnit XML (a test case per compared case, failed when
it regressed, and one for the verdict) and a Markdown summary (the verdict, the headline
deltas with their intervals and p-values, the cases that got worse)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

from eunomia.exports._jsonl import TextSink
from eunomia.exports._junit import JUnitCase, JUnitWriter
from eunomia.exports._markdown import fmt, md_table, md_text
from eunomia.exports._records import Outcome
from eunomia.stats import TOO_FEW

if TYPE_CHECKING:
    from eunomia.compare import CaseChange, ChangeKind, Comparison, MetricDelta

WORST_CHANGES = 10
_BAD: tuple[ChangeKind, ...] = ("regressed", "newly_failed")
_UNTESTED: tuple[ChangeKind, ...] = ("newly_unscored", "only_in_a", "only_in_b")
"""JUnit ``skipped``: nothing to compare (unscored in B, or on one side only)."""


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.4g}"


def _side(status: str | None, score: float | None) -> str:
    if status is None:
        return "absent"
    return _num(score) if status in ("scored", "partial") else status


def change_diff(c: CaseChange) -> str:
    """What changed, one item a line: ``- criterion/instruction`` newly missing, ``+ ...``
    newly returned unexpectedly (and what got better, marked so: an expected instruction
    that A missed and B returns, one A returned unexpectedly and B no longer does)."""
    lines: list[str] = []
    if c.a_detected is not None and c.b_detected is not None and c.a_detected != c.b_detected:
        lines.append("detected now" if c.b_detected else "no longer detected")
    if c.a_credits_met is not None and c.b_credits_met is not None \
            and c.a_credits_met != c.b_credits_met:
        lines.append("! credit expectations met now" if c.b_credits_met
                     else "! credit expectations no longer met")
    for cc in c.criteria_changes:
        lines += [f"- {cc.criterion}/{i} (now missing)" for i in cc.newly_missing]
        lines += [f"+ {cc.criterion}/{i} (now returned unexpectedly)" for i in cc.newly_extra]
        lines += [f"  {cc.criterion}/{i} (missing in A, returned now)"
                  for i in cc.no_longer_missing]
        lines += [f"  {cc.criterion}/{i} (returned unexpectedly in A, no longer)"
                  for i in cc.no_longer_extra]
    return "\n".join(lines)


def change_reason(c: CaseChange) -> str:
    """One line: how the case changed, with both sides' scores."""
    head = f"{c.label}: A {_side(c.a_status, c.a_score)} -> " \
           f"B {_side(c.b_status, c.b_score)}"
    if c.delta is not None:
        head += f" ({c.delta:+.4g})"
    if c.change == "newly_failed" and c.b_error:
        head += f"; B failed: {c.b_error}"
    if c.change == "newly_unscored":
        head += f"; B answered, nothing could score it (not failed): {c.b_error or '?'}"
    if c.change == "newly_scored" and c.a_error:
        head += f"; A was unscored: {c.a_error}"
    return head


def _case(c: CaseChange, classname: str) -> JUnitCase:
    outcome: Outcome = "failed" if c.change in _BAD else \
        "skipped" if c.change in _UNTESTED else "passed"
    reason, diff = change_reason(c), change_diff(c)
    message = None if outcome == "passed" else "\n".join(p for p in (reason, diff) if p)
    output = "\n".join([
        reason, f"cost: A {_num(c.a_cost)}, B {_num(c.b_cost)}",
        f"latency_s: A {_num(c.a_latency_s)}, B {_num(c.b_latency_s)}",
        f"repeats: A {c.a_repeats}, B {c.b_repeats}", *([diff] if diff else [])])
    return JUnitCase(c.case, classname, outcome, message, "\n".join([reason, diff]).strip(),
                     output, c.b_latency_s)


def _metric_props(m: MetricDelta) -> list[tuple[str, str]]:
    return [(f"{m.key}.{k}", _num(v)) for k, v in
            (("a", m.a), ("b", m.b), ("delta", m.delta), ("ci_low", m.low),
             ("ci_high", m.high), ("p", m.p_value))]


def write_comparison_junit(c: Comparison, out: TextSink) -> None:
    """A ``<testsuite>`` per suite (and target) of the compared cases, then ``verdict``."""
    writer = JUnitWriter(out, f"eunomia compare {c.a.name} {c.b.name}")
    groups: dict[tuple[str, str], list[CaseChange]] = defaultdict(list)
    for case in c.cases:
        groups[(case.suite, case.target)].append(case)
    several = len({t for _, t in groups}) > 1
    for (suite, target), cases in groups.items():
        name = f"{suite} [{target}]" if several else suite
        writer.suite(name, [("suite", suite), ("target", target), ("run_a", c.a.name),
                            ("run_b", c.b.name),
                            *((k, str(n)) for k, n in c.counts(cases).items())])
        for case in cases:
            writer.add(_case(case, name))
    writer.suite("verdict", [("run_a", c.a.name), ("run_b", c.b.name),
                             ("alpha", f"{c.alpha:g}"), ("verdict", c.verdict.kind),
                             *(p for m in c.overall.metrics() for p in _metric_props(m))])
    details = "\n".join([c.verdict.summary, *(s.message for s in c.verdict.signals)])
    writer.add(JUnitCase(
        "regression verdict", "verdict", "failed" if c.verdict.regression else "passed",
        details if c.verdict.regression else None, details,
        "\n".join([details, *(f"warning: {w}" for w in c.warnings)])))
    writer.close()


def _value(m: MetricDelta, v: float | None, signed: bool = False) -> str:
    return m.figure(v, signed)  # as the terminal writes it


def comparison_summary(c: Comparison, report: str | None = None,
                       worst: int = WORST_CHANGES) -> str:
    """The Markdown summary of a comparison."""
    mark = {"regression": "❌", "improvement": "✅"}.get(
        c.verdict.kind, "⚠️" if c.verdict.warned else "➖")
    lines = [f"## Eunomia compare: {md_text(c.b.name)} against {md_text(c.a.name)} "
             f"({md_text(c.kind)})", "",
             f"{mark} **{md_text(c.verdict.kind.replace('_', ' '))}**: "
             f"{md_text(c.verdict.summary, 1000)}", ""]
    lines += [f"- {md_text(s.message, 1000)}" for s in c.verdict.signals]
    lines += [f"- A: {md_text(c.a.name)} ({md_text(', '.join(c.a.targets))}); "
              f"B: {md_text(c.b.name)} ({md_text(', '.join(c.b.targets))}); "
              f"{md_text(c.matching)}; alpha {c.alpha:g}", ""]
    ci = f"{100 * c.confidence:.0f}% CI"
    rows = []
    for m in c.overall.metrics():
        interval = "-" if m.low is None or m.high is None else \
            f"[{_value(m, m.low, True)}, {_value(m, m.high, True)}]"
        if m.too_few:  # no interval, p-value or verdict from a handful of cases
            interval = TOO_FEW
        star = " *" if m.significant else ""
        rows.append([md_text(m.label), _value(m, m.a), _value(m, m.b),
                     _value(m, m.delta, True) + star, interval,
                     "-" if m.p_value is None else f"{m.p_value:.3g}",
                     md_text(m.test or "-"), m.direction, str(m.n)])
    lines += md_table(["Metric", "A", "B", "Δ (B − A)", ci, "p", "Test", "", "n"], rows,
                      [False, True, True, True, True, True, False, False, True])
    lines += ["", f"\\* p < {c.alpha:g}. {c.overall.paired_cases} case(s) paired, "
              f"{c.overall.scored_both} scored on both sides.", ""]
    if c.power is not None:  # what it could have detected, as the terminal says it
        lines += ["**What this comparison could detect**", ""]
        lines += [f"- {md_text(line, 1000)}" for line in c.power.lines(c.overall.score.unit)]
        lines += [""]
    if c.tutor is not None:
        lines += [f"- {md_text(line, 1000)}" for line in c.tutor.lines()] + [""]
    lines += ["Cases: " + c.cases_text(), ""]
    lines += _worse_cases(c.cases_of(*_BAD), worst)
    lines += _worse_cases(c.cases_of("newly_unscored"), worst,
                          "Cases scored in A that nothing could score in B")
    if c.warnings:
        lines += ["**Warnings**", ""] + [f"- {md_text(w, 1000)}" for w in c.warnings] + [""]
    if report:
        lines += [f"HTML comparison: {md_text(report, 500)}", ""]
    return "\n".join(lines)


def _worse_cases(cases: Sequence[CaseChange], worst: int,
                 title: str = "Cases that got worse") -> list[str]:
    if not cases:
        return []
    ranked = sorted(cases, key=lambda x: (x.change != "newly_failed", x.delta or 0.0))
    rows = [[md_text(x.suite), md_text(x.case), md_text(x.target), x.label,
             _side(x.a_status, x.a_score), _side(x.b_status, x.b_score),
             fmt(x.delta, 2) if x.delta is not None else "-",
             md_text((change_diff(x) or x.b_error or "-").replace("\n", "; "), 300)]
            for x in ranked[:worst]]
    return [f"**{title}** ({len(cases)}"
            + (f", the {worst} worst shown" if len(cases) > worst else "") + ")", "",
            *md_table(["Suite", "Case", "Target", "Change", "A", "B", "Δ", "What changed"],
                      rows, [False, False, False, False, True, True, True, False]), ""]
