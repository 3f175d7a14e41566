"""Render the report data model to one self-contained HTML page (Jinja2, autoescape on).

Pages carry their CSS inline, draw their charts as inline SVG and load nothing: a
report opened from disk works offline. A Content-Security-Policy in every page forbids
scripts and any fetch, so even a text that escaped escaping could not run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from markupsafe import Markup

if TYPE_CHECKING:
    import jinja2

from eunomia import __version__
from eunomia.compare import Comparison, MetricDelta
from eunomia.files import write_text_atomic
from eunomia.report._leaderboard import extra_columns, extra_text
from eunomia.report.html._agreement import agreement_rows, group_agreement_chart
from eunomia.report.html._charts import Bar, hbar_chart, heat_table, histogram, paired_hbar_chart
from eunomia.report.html._data import list_run_listings
from eunomia.report.html._diagrams import ExampleFigure, example_figure, figures
from eunomia.report.html._model import GroupReport, Metric, RunReport
from eunomia.report.html._plots import Fit, FrontPoint, Series, front_chart, scatter_chart
from eunomia.stats import linear_fit
from eunomia.store import RunStore

CSP = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
       "base-uri 'none'; form-action 'self'")
"""No script, no fetch: the page is complete as it is."""

_TEMPLATES = Path(__file__).resolve().parent / "templates"


# --- formatting (template filters) ------------------------------------------------------------
def fmt_pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def fmt_score(value: float | None, digits: int = 1) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def fmt_num(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "–"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}f}"


def fmt_cost(value: float | None) -> str:
    if value is None:
        return "unknown"
    if value == 0:
        return "0"
    return f"{value:.4f}" if abs(value) < 100 else f"{value:,.2f}"


def fmt_seconds(value: float | None) -> str:
    if value is None:
        return "–"
    if abs(value) < 0.01:
        return f"{1000 * value:.1f} ms"
    if abs(value) < 1:
        return f"{1000 * value:.0f} ms"
    return f"{value:.2f} s"


def fmt_metric(m: Metric) -> str:
    if m.kind == "text":
        return m.text
    formatted = {
        "int": lambda v: fmt_num(v, 0), "pct": fmt_pct, "score": fmt_score,
        "score2": lambda v: "–" if v is None else f"{v:.2f}",
        "cost": fmt_cost, "seconds": fmt_seconds,
    }.get(m.kind, fmt_num)(m.value)
    return f"{formatted} ({m.text})" if m.text and m.value is not None else formatted


_UNIT_FORMAT: dict[str, Callable[[float | None], str]] = {
    "%": lambda v: "–" if v is None else f"{v:.1f}",
    "rate": fmt_pct, "$": fmt_cost, "s": fmt_seconds, "count": lambda v: fmt_num(v, 0),
    "score": lambda v: fmt_num(v, 2),
}


def fmt_unit(value: float | None, unit: str) -> str:
    return _UNIT_FORMAT.get(unit, fmt_num)(value)


def fmt_delta(value: float | None, unit: str = "") -> str:
    if value is None:
        return "–"
    sign = "+" if value > 0 else ("−" if value < 0 else "±")
    if unit == "rate":
        return f"{sign}{abs(100 * value):.1f} pp"
    if unit == "%":
        return f"{sign}{abs(value):.1f}"
    return sign + fmt_unit(abs(value), unit)


def fmt_p(value: float | None) -> str:
    if value is None:
        return "–"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _environment() -> jinja2.Environment:
    import jinja2  # when a page is first rendered: a run that writes no page does not load it

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(_TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters.update(pct=fmt_pct, score=fmt_score, num=fmt_num, cost=fmt_cost,
                       seconds=fmt_seconds, metric=fmt_metric, unit=fmt_unit, delta=fmt_delta,
                       pvalue=fmt_p)
    env.globals.update(csp=CSP, version=__version__, figures=figures,
                       agreement_rows=agreement_rows, extra_columns=extra_columns,
                       extra_text=extra_text)
    return env


_ENV: jinja2.Environment | None = None


def environment() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    return _ENV


# --- charts of a run ------------------------------------------------------------------------
@dataclass(slots=True)
class GroupCharts:
    detection: Markup | None = None
    latency: Markup | None = None
    confusion: list[Markup] = field(default_factory=list)
    example: ExampleFigure | None = None
    """The example solution, drawn once and shown beside every drawn case."""
    agreement: Markup | None = None
    """The system's points against the tutors' (cases with a tutor's grade)."""


@dataclass(slots=True)
class RunCharts:
    groups: list[GroupCharts]
    model_cost: Markup | None
    latency: Markup | None
    speed: Markup | None = None
    """Latency against output tokens."""
    front: Markup | None = None
    """Score against cost of the targets of a matrix run."""


def _tone(rate: float | None) -> str:
    if rate is None:
        return "primary"
    return "good" if rate >= 0.9 else ("warn" if rate >= 0.7 else "bad")


def group_charts(group: GroupReport, ident: str, *, latency: bool = True) -> GroupCharts:
    """``ident``: unique in the page (the example solution's drawing is referred to by it);
    ``latency``: draw the group's latency (a run of one group shows the run's only)."""
    charts = GroupCharts()
    if group.criteria:
        charts.detection = hbar_chart(
            [Bar(c.textual_id, c.detection_rate, _tone(c.detection_rate),
                 f"{c.cases - c.missed}/{c.cases} cases") for c in group.criteria],
            title=f"Detection rate per criterion: {group.key}", max_value=1.0)
    charts.confusion = [
        heat_table(m.labels, m.counts, title=f"{m.criterion} — {m.title}" if m.title
                   and m.title != m.criterion else m.criterion)
        for m in group.confusion
    ]
    if latency and group.latency.values:
        charts.latency = histogram(group.latency.values,
                                   title=f"Latency distribution: {group.key}")
    if group.agreement is not None and group.agreement.pairs:
        charts.agreement = group_agreement_chart(
            group.target, group.agreement, f"Points against the tutors': {group.key}")
    drawn = group.worst or any(f.drawing is not None for f in group.failures)
    if group.example is not None and drawn:
        charts.example = example_figure(group.example, f"eu-example-{ident}")
    return charts


def speed_chart(report: RunReport) -> Markup | None:
    """Latency against output tokens of every request made (a colour per target), with
    the least-squares line; ``None`` when no case reported its output tokens."""
    by_target: dict[str, tuple[list[float], list[float]]] = {}
    for c in report.cases:
        if c.latency_s is not None and not c.cached and c.output_tokens > 0:
            xs, ys = by_target.setdefault(c.target, ([], []))
            xs.append(float(c.output_tokens))
            ys.append(c.latency_s)
    if not by_target:
        return None
    xs = [x for v in by_target.values() for x in v[0]]
    ys = [y for v in by_target.values() for y in v[1]]
    fit = linear_fit(xs, ys) if len(set(xs)) >= 2 else None
    line = None if fit is None else Fit(
        fit.slope, fit.intercept, f"{1000 * fit.slope:.3g} s per 1,000 tokens"
        + (f", R² {fit.r2:.2f}" if fit.r2 is not None else ""))
    return scatter_chart([Series(t, *v) for t, v in sorted(by_target.items())], fit=line,
                         title="Latency vs output length", x_label="output tokens",
                         y_label="latency (s)")


def front_of(report: RunReport) -> Markup | None:
    """Score against cost of each target of a matrix run (two or more with both known)."""
    lc = report.leaderboard_columns
    points = [FrontPoint(r.target, r.total_cost, r.score.estimate,  # no bar from too few
                         r.score.estimate if r.score.too_few else r.score.low,
                         r.score.estimate if r.score.too_few else r.score.high, r.pareto)
              for r in report.leaderboard if r.total_cost is not None and r.score is not None]
    if len(points) < 2 or lc is None:
        return None
    return front_chart(points, title="Cost and quality of each " + lc.target.lower(),
                       x_label=lc.cost, y_label=lc.score, cost=fmt_cost)


def run_charts(report: RunReport, *, groups: bool = True, ident: str = "r") -> RunCharts:
    """The charts of a run's page; ``groups=False``: only the run's latency and cost (what
    a comparison shows of each side)."""
    costs = [m for m in report.model_costs if m.cost is not None]
    model_cost = hbar_chart(
        [Bar(m.model, m.cost, "primary", f"{m.calls} calls") for m in costs],
        title="Cost per model", fmt=fmt_cost) if costs else None
    latency = histogram(report.latency.values, title="Latency of every request") \
        if report.latency.values else None
    if not groups:
        return RunCharts([GroupCharts() for _ in report.groups], model_cost, latency)
    several = len(report.groups) > 1
    return RunCharts([group_charts(g, f"{ident}{k}", latency=several)
                      for k, g in enumerate(report.groups)],
                     model_cost, latency, speed_chart(report), front_of(report))


# --- pages ------------------------------------------------------------------------------------
def render_report(report: RunReport, *, links: bool = False) -> str:
    """The page of one run from its data model. ``links``: viewer navigation links."""
    return environment().get_template("run.html.j2").render(
        report=report, charts=run_charts(report), links=links)


def paired_groups(a: RunReport, b: RunReport) -> list[tuple[GroupReport, GroupReport]]:
    """Groups of A and B side by side: same suite and target, else the same suite alone."""
    pairs: list[tuple[GroupReport, GroupReport]] = []
    used: set[int] = set()
    for ga in a.groups:
        match = next((k for k, gb in enumerate(b.groups)
                      if k not in used and gb.suite == ga.suite and gb.target == ga.target),
                     None)
        if match is None:
            same_suite = [k for k, gb in enumerate(b.groups)
                          if k not in used and gb.suite == ga.suite]
            match = same_suite[0] if len(same_suite) == 1 else None
        if match is not None:
            used.add(match)
            pairs.append((ga, b.groups[match]))
    return pairs


def comparison_charts(a: RunReport, b: RunReport, names: tuple[str, str]
                      ) -> list[tuple[str, Markup]]:
    """Per paired group: the detection rate of each criterion in A and B."""
    out: list[tuple[str, Markup]] = []
    for ga, gb in paired_groups(a, b):
        if not ga.criteria:
            continue
        rates_b = {c.textual_id: c.detection_rate for c in gb.criteria}
        rows = [(c.textual_id, c.detection_rate, rates_b.get(c.textual_id))
                for c in ga.criteria]
        title = ga.suite if ga.target == gb.target else f"{ga.suite}: {ga.target} vs {gb.target}"
        out.append((title, paired_hbar_chart(
            rows, title=f"Detection rate per criterion: {title}", names=names,
            max_value=1.0)))
    return out


def simple_deltas(a: RunReport, b: RunReport) -> list[MetricDelta]:
    """Headline deltas from the two reports alone (when no full comparison is available)."""
    def md(key: str, label: str, va: float | None, vb: float | None, unit: str,
           better: bool | None) -> MetricDelta:
        delta = vb - va if va is not None and vb is not None else None
        return MetricDelta(key, label, va, vb, delta, higher_is_better=better, unit=unit)

    return [
        md("score", a.score_label, a.mean_score, b.mean_score, "score", True),
        md("failures", "Failed cases", a.failed, b.failed, "count", False),
        *([md("unscored", "Unscored cases", a.unscored, b.unscored, "count", None)]
          if a.unscored or b.unscored else []),
        md("cost", "Total cost", a.cost, b.cost, "$", False),
        md("latency", "Mean latency", a.latency.mean, b.latency.mean, "s", False),
        md("latency_p90", "Latency p90", a.latency.p90, b.latency.p90, "s", False),
    ]


@dataclass(frozen=True, slots=True)
class ScoreChange:
    suite: str
    case: str
    a: float | None
    b: float | None
    delta: float | None


def score_changes(a: RunReport, b: RunReport) -> list[ScoreChange]:
    """Cases whose mean score differs between the paired groups, biggest drop first."""
    out: list[ScoreChange] = []
    for ga, gb in paired_groups(a, b):
        for case in sorted(set(ga.case_scores) | set(gb.case_scores)):
            sa, sb = ga.case_scores.get(case), gb.case_scores.get(case)
            if sa is not None and sb is not None and abs(sa - sb) < 1e-9:
                continue
            delta = sb - sa if sa is not None and sb is not None else None
            out.append(ScoreChange(ga.suite, case, sa, sb, delta))
    out.sort(key=lambda c: (c.delta is None, c.delta or 0.0, c.suite, c.case))
    return out


def render_comparison_page(a: RunReport, b: RunReport, comparison: Comparison | None,
                           *, links: bool = False, note: str | None = None) -> str:
    names = (a.name, b.name) if a.name != b.name else (f"A: {a.name}", f"B: {b.name}")
    return environment().get_template("compare.html.j2").render(
        a=a, b=b, cmp=comparison, names=names, links=links, note=note,
        charts_a=run_charts(a, groups=False), charts_b=run_charts(b, groups=False),
        criteria_charts=comparison_charts(a, b, names),
        deltas=comparison.overall.metrics() if comparison else simple_deltas(a, b),
        fallback_changes=[] if comparison else score_changes(a, b),
    )


def render_run_list(store: RunStore, score_digits: Callable[[str], int] = lambda kind: 1
                    ) -> str:
    """The viewer's front page: every run of the store, and a form to compare two;
    ``score_digits``: the decimals of a run kind's score (as its report shows it)."""
    runs = list_run_listings(store)
    return environment().get_template("runs.html.j2").render(
        runs=runs, store_path=str(store.path), links=True, index=True, digits=score_digits)


def render_error(status: int, message: str) -> str:
    return environment().get_template("error.html.j2").render(
        status=status, message=message, links=True)


def write_report(html: str, path: Path) -> Path:
    """Write a page atomically (a reader never sees half a file)."""
    return write_text_atomic(path, html)


def template_names() -> Sequence[str]:
    return sorted(p.name for p in _TEMPLATES.glob("*.html.j2"))
