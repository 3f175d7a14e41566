"""Point charts: latency against output length, and the cost/quality front of a matrix run.

Matplotlib figures written as inline SVG like the bar charts (``_charts.py``, ``_mpl.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from markupsafe import Markup

from eunomia.report.html import _mpl
from eunomia.report.html._charts import TONES, WIDTH, num, short

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.figure import Figure

MAX_POINTS = 4000
"""Above this many points a scatter plot becomes a 2-D histogram (hexagonal bins): the
SVG stays small and quick to draw whatever the size of the run."""
PALETTE = ("#2563eb", "#d97706", "#16a34a", "#dc2626", "#7c3aed", "#0891b2", "#db2777",
           "#65a30d", "#475569", "#ea580c")
_FIT = "#b91c1c"
_ROUND_STEPS = (1, 2, 2.5, 5, 10)
"""Tick steps (times a power of ten): 0.005, 0.01... never 0.006."""


@dataclass(frozen=True, slots=True)
class Series:
    """Points of one target or model."""

    name: str
    xs: Sequence[float]
    ys: Sequence[float]


@dataclass(frozen=True, slots=True)
class Fit:
    """A fitted line ``y = intercept + slope * x`` and its legend text."""

    slope: float
    intercept: float
    label: str


def _finite(series: Series) -> tuple[list[float], list[float]]:
    pairs = [(float(x), float(y)) for x, y in zip(series.xs, series.ys, strict=True)
             if math.isfinite(x) and math.isfinite(y)]
    return [x for x, _ in pairs], [y for _, y in pairs]


def tick_decimals(ticks: Sequence[float]) -> int:
    """The fewest decimals that write every tick of an axis exactly (0.25 steps: 2), so
    that all of them are written alike — never 1.2 beside 1.25 and 1.5."""
    for decimals in range(7):
        if all(abs(t - round(t, decimals)) <= 1e-9 * max(1.0, abs(t)) for t in ticks):
            return decimals
    return 6


def tick_text(value: float, ticks: Sequence[float]) -> str:
    """A tick label with as many decimals as its axis needs (0 is written 0)."""
    if abs(value) < 1e-12:
        return "0"
    return f"{value:,.{tick_decimals(ticks)}f}"


def _even_ticks(ax: Axes) -> None:
    """Both axes' ticks written with the same decimals each (:func:`tick_text`)."""
    from matplotlib.ticker import FuncFormatter

    def formatter(axis: Axis) -> FuncFormatter:
        def label(v: float, _pos: object) -> str:
            lo, hi = sorted(axis.get_view_interval())
            ticks = [t for t in axis.get_majorticklocs() if lo - 1e-12 <= t <= hi + 1e-12]
            return tick_text(v, ticks or [v])

        return FuncFormatter(label)

    for axis in (ax.xaxis, ax.yaxis):
        axis.set_major_formatter(formatter(axis))


def _axes_from_zero(ax: Axes, xmax: float, ymax: float, integer_x: bool) -> None:
    from matplotlib.ticker import MaxNLocator

    # never a range of width 0: five answers of 0 words still get an axis 0..1
    right, top = max(xmax * 1.05, 1.0 if integer_x else 1e-9), max(ymax * 1.1, 1e-3)
    ax.set_xlim(-0.015 * right, right)  # a dot at 0 stays clear of the axis
    ax.set_ylim(0, top)
    ax.xaxis.set_major_locator(MaxNLocator(6, integer=integer_x, steps=_ROUND_STEPS))
    ax.yaxis.set_major_locator(MaxNLocator(6, steps=_ROUND_STEPS))
    _even_ticks(ax)
    ax.grid(True)
    ax.set_axisbelow(True)


def fit_segment(fit: Fit, xs: Sequence[float]) -> tuple[tuple[float, float],
                                                          tuple[float, float]] | None:
    """The fitted line over the range of the data where it is not below 0 (latency, cost:
    never negative), as its two ends; None when it is below 0 over the whole range."""
    x0, x1 = min(xs), max(xs)

    def at(x: float) -> float:
        return fit.intercept + fit.slope * x

    if at(x0) < 0 and at(x1) < 0:
        return None
    if fit.slope != 0:
        zero = -fit.intercept / fit.slope  # where the line crosses 0
        if at(x0) < 0:
            x0 = zero
        elif at(x1) < 0:
            x1 = zero
    return (x0, max(at(x0), 0.0)), (x1, max(at(x1), 0.0))


def _place(fig: Figure, ax: Axes, fmt: Callable[[float], str] | None = num, *,
           top: float = 10, right: float = 0.0) -> None:
    """Margins for the axes' tick labels and titles (see :func:`_mpl.place`); ``fmt``
    None: the labels as the axes' own formatters write them."""
    lo, hi = ax.get_ylim()
    yf = fmt or (lambda t: str(ax.yaxis.get_major_formatter()(t, None)))
    xf = fmt or (lambda t: str(ax.xaxis.get_major_formatter()(t, None)))
    ys = [yf(t) for t in ax.get_yticks() if lo <= t <= hi] or ["0"]
    x0, x1 = ax.get_xlim()
    xs = [xf(t) for t in ax.get_xticks() if x0 <= t <= x1] or ["0"]
    _mpl.place(fig, left=max(_mpl.text_px(t, 10) for t in ys) + 36,
               right=max(right, _mpl.text_px(xs[-1], 10) / 2 + 10), top=top, bottom=44)


def scatter_chart(series: Sequence[Series], *, title: str, x_label: str, y_label: str,
                  fit: Fit | None = None, integer_x: bool = True, width: int = WIDTH,
                  height: int = 340, show_title: bool = False,
                  empty: str = "no data") -> Markup:
    """One dot per point (a colour per series, with a legend for two or more) and the fitted
    line; a 2-D histogram instead when there are more than :data:`MAX_POINTS` points."""
    data = [(s.name, *_finite(s)) for s in series]
    xs_all = [x for _, xs, _ in data for x in xs]
    ys_all = [y for _, _, ys in data for y in ys]
    with _mpl.drawing():
        fig = _mpl.figure(width, height)
        ax = fig.add_subplot()
        if show_title:
            ax.set_title(short(title, 90))
        marks = _mpl.Marks()
        if not xs_all:
            _mpl.no_data(ax, empty)
            _mpl.place(fig, left=20, right=20, top=34 if show_title else 10, bottom=20)
            return _mpl.svg_of(fig, label=title, css="scatter", marks=marks)
        xmax, ymax = max(xs_all), max(ys_all)
        binned = len(xs_all) > MAX_POINTS
        if binned:
            cells = ax.hexbin(xs_all, ys_all, gridsize=(48, 24), mincnt=1, cmap="Blues",
                              linewidths=0.2, extent=(0, max(xmax, 1.0), 0, max(ymax, 1e-3)))
            marks(cells, "density", f"{len(xs_all):,} points, binned")
        else:
            for k, (name, xs, ys) in enumerate(data):
                if not xs:
                    continue
                dots = ax.scatter(xs, ys, s=22, color=PALETTE[k % len(PALETTE)], alpha=0.75,
                                  linewidths=0, label=short(name, 40), clip_on=False)
                marks(dots, "points", f"{name}: {len(xs)} point{'s' * (len(xs) != 1)}")
        ends = None if fit is None or not all(
            math.isfinite(v) for v in (fit.slope, fit.intercept)) else fit_segment(fit, xs_all)
        if fit is not None and ends is not None:
            # over the data only, and inside the plot: the axis reaches the line's ends
            (line,) = ax.plot([ends[0][0], ends[1][0]], [ends[0][1], ends[1][1]],
                              color=_FIT, linewidth=1.8, linestyle="--", label=fit.label)
            marks(line, "fit", fit.label)
            ymax = max(ymax, ends[0][1], ends[1][1])
        marks(ax.patch, "plot-area", "")
        _axes_from_zero(ax, xmax, ymax, integer_x)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        if len(data) > 1 or fit is not None:
            ax.legend(loc="upper left", fontsize=9)
        _place(fig, ax, None, top=34 if show_title else 10, right=90 if binned else 0)
        if binned:
            fig.colorbar(cells, ax=ax, label="points per cell", shrink=0.9)
        return _mpl.svg_of(fig, label=title, css="scatter", marks=marks)


@dataclass(frozen=True, slots=True)
class FrontPoint:
    """One target of a matrix run: its cost, its score and the score's interval."""

    label: str
    cost: float
    score: float
    low: float | None = None
    high: float | None = None
    front: bool = False
    """On the cost/quality Pareto front."""


def front_chart(points: Sequence[FrontPoint], *, title: str, x_label: str, y_label: str,
                cost: Callable[[float], str] = num, width: int = WIDTH,
                height: int = 360) -> Markup:
    """Score against cost, one point per target with its interval; the Pareto front
    (nothing cheaper is as good) joined by a line and drawn in colour, the rest in grey."""
    usable = [p for p in points if math.isfinite(p.cost) and math.isfinite(p.score)]
    with _mpl.drawing():
        fig = _mpl.figure(width, height)
        ax = fig.add_subplot()
        marks = _mpl.Marks()
        if not usable:
            _mpl.no_data(ax, "no target with a known cost and score")
            _mpl.place(fig, left=20, right=20, top=10, bottom=20)
            return _mpl.svg_of(fig, label=title, css="front", marks=marks)
        front = sorted((p for p in usable if p.front), key=lambda p: (p.cost, p.score))
        costs = [p.cost for p in usable]
        middle = (min(costs) + max(costs)) / 2
        if len(front) > 1:
            ax.plot([p.cost for p in front], [p.score for p in front], color=TONES["primary"],
                    linewidth=1.2, alpha=0.6, zorder=1)
        for p in sorted(usable, key=lambda p: (not p.front, p.label)):
            colour = TONES["primary"] if p.front else TONES["muted"]
            if p.low is not None and p.high is not None:
                ax.errorbar([p.cost], [p.score], yerr=[[max(0.0, p.score - p.low)],
                                                       [max(0.0, p.high - p.score)]],
                            fmt="none", ecolor=colour, elinewidth=1, capsize=3, alpha=0.7,
                            clip_on=False)
            dot = ax.scatter([p.cost], [p.score], s=48 if p.front else 34, color=colour,
                             zorder=3, marker="*" if p.front else "o", clip_on=False)
            interval = (f" [{num(p.low)}, {num(p.high)}]"
                        if p.low is not None and p.high is not None else "")
            marks(dot, "point front" if p.front else "point",
                  f"{p.label}: {num(p.score)}{interval}, cost {cost(p.cost)}"
                  + (" — on the Pareto front" if p.front else ""))
            right_half = p.cost > middle
            ax.annotate(short(p.label, 32), (p.cost, p.score), textcoords="offset points",
                        xytext=(-7 if right_half else 7, 5), fontsize=9,
                        ha="right" if right_half else "left",
                        color="#1e293b" if p.front else "#64748b")
        from matplotlib.ticker import FuncFormatter

        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: cost(v)))
        ax.margins(x=0.15, y=0.12)
        if min(costs) >= 0:  # a cost is never negative: the axis starts at 0 at the least
            low, high = ax.get_xlim()
            if low < 0:
                ax.set_xlim(0, high if max(costs) > 0 else 1e-3)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        ax.grid(True)
        ax.set_axisbelow(True)
        _place(fig, ax, cost, right=14)
        return _mpl.svg_of(fig, label=title, css="front", marks=marks)
