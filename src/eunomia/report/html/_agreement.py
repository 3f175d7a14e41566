"""The scatter plot of agreement with tutors: each graded case at (tutor's points, system's
points), in percent of the exercise's maximum, with the diagonal where they agree.

Matplotlib drawn as inline SVG like the other charts (``_mpl.py``): each case is a
``<g class="point">`` with a tooltip (case, tutor, system), each target's cases one colour.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from markupsafe import Markup

from eunomia.report.html import _mpl
from eunomia.report.html._charts import TONES, short
from eunomia.report.html._plots import PALETTE
from eunomia.scoring import TutorAgreement
from eunomia.stats import TOO_FEW, Correlation, Interval, enough, too_few_text

_TOOLTIPS_MAX = 400
"""Above this many cases, one tooltip per series instead of one per case."""


@dataclass(frozen=True, slots=True)
class AgreementPoint:
    """One graded case: its label and the tutor's and the system's points, in percent."""

    label: str
    tutor: float
    system: float


@dataclass(frozen=True, slots=True)
class AgreementSeries:
    """The cases of one target (or one scenario), and the line saying how they agree."""

    name: str
    points: Sequence[AgreementPoint]
    summary: str = ""
    """E.g. ``Pearson r 0.62 [0.21, 0.88], n=12``: shown in the legend."""


def agreement_series(name: str, found: TutorAgreement) -> AgreementSeries:
    """One target's graded cases (over one scenario or several) as a series of the chart,
    its legend saying Pearson's r with its interval."""
    r = found.pearson
    if r.estimate is None:
        summary = f"Pearson r undefined, n={found.n}"
    elif not enough(r.n):
        summary = f"Pearson r {r.estimate:.2f} ({TOO_FEW}), n={found.n}"
    elif r.low is None or r.high is None:
        summary = f"Pearson r {r.estimate:.2f}, n={found.n}"
    else:
        summary = f"Pearson r {r.estimate:.2f} [{r.low:.2f}, {r.high:.2f}], n={found.n}"
    return AgreementSeries(
        name, [AgreementPoint(f"{p.scenario}/{p.case}", p.tutor_percent, p.system_percent)
               for p in found.pairs], summary)


def agreement_chart(series: Sequence[AgreementSeries], *, title: str,
                    width: int = 560) -> Markup:
    """System's points against the tutors' (both in percent of the maximum), one colour
    per series, the diagonal ``system = tutor`` dashed."""
    data = [(s, [p for p in s.points if math.isfinite(p.tutor) and math.isfinite(p.system)])
            for s in series]
    total = sum(len(points) for _, points in data)
    legend = 1 + sum(bool(points) for _, points in data)
    square = width - 76
    height = square + 60 + 18 * legend  # a square plot, the legend below it
    with _mpl.drawing():
        fig = _mpl.figure(width, height)
        ax = fig.add_subplot()
        marks = _mpl.Marks()
        if not total:
            _mpl.no_data(ax, "no graded case with an answer")
            _mpl.place(fig, left=20, right=20, top=10, bottom=20)
            return _mpl.svg_of(fig, label=title, css="agreement", marks=marks)
        top = max(100.0, *(max(p.tutor, p.system) for _, ps in data for p in ps))
        (diagonal,) = ax.plot([0, top], [0, top], color=TONES["muted"], linewidth=1.2,
                              linestyle="--", label="system = tutor")
        marks(diagonal, "diagonal", "where the system's points equal the tutor's")
        for k, (s, points) in enumerate(data):
            if not points:
                continue
            colour = PALETTE[k % len(PALETTE)]
            name = short(s.name, 40) + (f" — {s.summary}" if s.summary else "")
            if total > _TOOLTIPS_MAX:
                dots = ax.scatter([p.tutor for p in points], [p.system for p in points], s=24,
                                  color=colour, alpha=0.7, linewidths=0, label=name,
                                  clip_on=False)
                marks(dots, "points", f"{s.name}: {len(points)} cases")
                continue
            for j, p in enumerate(points):
                dot = ax.scatter([p.tutor], [p.system], s=30, color=colour, alpha=0.8,
                                 linewidths=0, label=name if j == 0 else None, clip_on=False)
                marks(dot, "point", f"{s.name} / {p.label}: tutor {p.tutor:.1f}%, system "
                                    f"{p.system:.1f}%")
        ax.set_xlim(-0.02 * top, top * 1.02)
        ax.set_ylim(-0.02 * top, top * 1.02)
        ax.set_aspect("equal", adjustable="box")
        ax.set_xlabel("tutor's points (% of max)")
        ax.set_ylabel("system's points (% of max)")
        ax.grid(True)
        ax.set_axisbelow(True)
        ax.legend(loc="upper left", bbox_to_anchor=(0.0, -0.09), fontsize=9)
        _mpl.place(fig, left=60, right=16, top=10, bottom=50 + 18 * legend)
        return _mpl.svg_of(fig, label=title, css="agreement", marks=marks)


# --- the report's section: the figures beside the chart ------------------------------------
@dataclass(frozen=True, slots=True)
class AgreementRow:
    """One figure of the agreement section: its estimate and how far it can be trusted."""

    measure: str
    estimate: str
    interval: str
    """The 95% interval(s), or why there is none; below the minimum of cases it starts with
    "too few cases to tell" (the wide intervals follow, to say how little is known)."""
    too_few: bool = False


def _correlation_row(name: str, c: Correlation) -> AgreementRow:
    if c.estimate is None:
        why = "fewer than 3 cases" if c.n < 3 else "one side has no spread"
        return AgreementRow(name, "–", f"undefined: {why} (n={c.n})", not enough(c.n))
    bounds = []
    if c.low is not None and c.high is not None:
        bounds.append(f"[{c.low:.2f}, {c.high:.2f}] bootstrap")
    if c.fisher_low is not None and c.fisher_high is not None:
        bounds.append(f"[{c.fisher_low:.2f}, {c.fisher_high:.2f}] Fisher z")
    text = ", ".join(bounds) or "no interval"
    if not enough(c.n):
        text = f"{too_few_text(c.n)}; {text}"
    return AgreementRow(name, f"{c.estimate:.3f}", f"{text} (n={c.n})", not enough(c.n))


def _mean_row(name: str, i: Interval | None, unit: str, signed: bool = False) -> AgreementRow:
    if i is None:
        return AgreementRow(name, "–", "no interval below 2 cases", True)
    fmt = "{:+.2f}" if signed else "{:.2f}"
    text = f"[{fmt.format(i.low)}, {fmt.format(i.high)}]{unit} bootstrap"
    if i.too_few:
        text = f"{too_few_text(i.n)}; {text}"
    return AgreementRow(name, fmt.format(i.estimate) + unit, f"{text} (n={i.n})", i.too_few)


def agreement_rows(found: TutorAgreement) -> list[AgreementRow]:
    """The section's table: both correlations, the mean absolute difference and the bias,
    each with its interval; "too few cases to tell" below ``MIN_CASES_FOR_INTERVAL``."""
    return [
        _correlation_row("Pearson r", found.pearson),
        _correlation_row("Spearman rho", found.spearman),
        _mean_row("Mean absolute difference (points)", found.mad_points, ""),
        _mean_row("Mean absolute difference (% of max points)", found.mad_percent, "%"),
        _mean_row("Bias, system − tutor (points)", found.bias_points, "", True),
        _mean_row("Bias, system − tutor (% of max points)", found.bias_percent, "%", True),
    ]


def group_agreement_chart(target: str, found: TutorAgreement, title: str) -> Markup:
    """The scatter plot of one group (one scenario on one target)."""
    return agreement_chart([agreement_series(target, found)], title=title)
