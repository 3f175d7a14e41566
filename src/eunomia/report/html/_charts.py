"""The report's charts: matplotlib figures written as static, inline SVG (``_mpl.py``).

Detection bars per criterion (and A against B), the latency histogram, latency against
output length (also the task export's ``inference_speed.svg``) and the cost/quality front
of a matrix run; the confusion matrix is an HTML table (:func:`heat_table`).

Every function returns :class:`markupsafe.Markup`. Labels and titles are text for
matplotlib (never TeX, never markup) and escaped in the SVG, so a label such as
``<img src=x onerror=...>`` shows as text. Each bar, bin or point group is a
``<g class="bar ...">`` / ``<g class="points">`` / ``<g class="point ...">`` with a
``<title>`` tooltip, so tests (and readers hovering) find them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from markupsafe import Markup, escape

from eunomia.report.html import _mpl

if TYPE_CHECKING:
    from matplotlib.axes import Axes

Formatter = Callable[[float], str]

TONES = {"primary": "#2563eb", "good": "#16a34a", "warn": "#d97706", "bad": "#dc2626",
         "a": "#6366f1", "b": "#f59e0b", "muted": "#94a3b8"}
"""Fill of each tone (the page's CSS colours)."""
_TRACK = "#f1f5f9"
_MAX_LABEL_CHARS = 40
_ROW_PX = 26
WIDTH = 720
"""Width of a chart in CSS pixels (it shrinks with a narrow page)."""


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def short(text: str, limit: int = _MAX_LABEL_CHARS) -> str:
    """One line of at most ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _empty() -> Markup:
    return Markup('<p class="empty">No data.</p>')


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float | None
    """``None``: nothing to show (the row says n/a, no bar is drawn)."""
    tone: str = "primary"
    """Colour of the bar: primary, good, bad, warn, a, b."""
    note: str = ""
    """Extra text for the tooltip."""


def _value_axis(ax: Axes, top: float, fmt: Formatter) -> None:
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    ax.set_xlim(0, top)
    ax.xaxis.set_major_locator(MaxNLocator(5))
    ticks = fmt if fmt is pct else num
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: ticks(v)))
    ax.grid(axis="x")
    ax.set_axisbelow(True)
    ax.tick_params(axis="y", length=0)
    ax.spines["left"].set_visible(False)


def _top(values: Sequence[float | None], max_value: float | None) -> float:
    if max_value is not None:
        return max_value
    known = [v for v in values if v is not None and math.isfinite(v)]
    return max(known, default=0.0) or 1.0


_STUB = 0.006
"""The width (a share of the axis) a bar of value 0 is drawn with: seen, not mistaken for
a missing value (its exact value is written beside it)."""


def _visible(value: float, top: float) -> float:
    """``value`` within the axis, at least a visible stub."""
    return max(min(value, top), top * _STUB)


def hbar_chart(bars: Sequence[Bar], *, title: str, max_value: float | None = None,
               fmt: Formatter = pct, width: int = WIDTH) -> Markup:
    """Horizontal bars, one row per label, the value printed at the right of each row."""
    if not bars:
        return _empty()
    top = _top([b.value for b in bars], max_value)
    labels = [short(b.label) for b in bars]
    shown = ["n/a" if b.value is None else fmt(b.value) for b in bars]
    with _mpl.drawing():
        fig = _mpl.figure(width, len(bars) * _ROW_PX + 36)
        _mpl.place(fig, left=max(_mpl.text_px(t, 10) for t in labels) + 14,
                   right=max(_mpl.text_px(t, 10) for t in shown) + 18, top=6, bottom=26)
        ax = fig.add_subplot()
        marks = _mpl.Marks()
        rows = list(range(len(bars)))
        ax.barh(rows, [top] * len(bars), height=0.68, color=_TRACK)
        for y, bar, text in zip(rows, bars, shown, strict=True):
            tip = f"{bar.label}: {text}" + (f" — {bar.note}" if bar.note else "")
            if bar.value is not None:
                (patch,) = ax.barh([y], [_visible(bar.value, top)], height=0.68,
                                   color=TONES.get(bar.tone, TONES["primary"]))
                marks(patch, f"bar {bar.tone}", tip)
            ax.text(1.01, y, text, transform=ax.get_yaxis_transform(), va="center",
                    color="#94a3b8" if bar.value is None else "#334155", fontsize=10)
        ax.set_yticks(rows, labels)
        ax.set_ylim(len(bars) - 0.5, -0.5)
        _value_axis(ax, top, fmt)
        return _mpl.svg_of(fig, label=title, css="hbar", marks=marks)


def paired_hbar_chart(rows: Sequence[tuple[str, float | None, float | None]], *, title: str,
                      names: tuple[str, str] = ("A", "B"), max_value: float | None = None,
                      fmt: Formatter = pct, width: int = WIDTH) -> Markup:
    """Two bars per label (run A above run B), for comparisons; with a legend."""
    if not rows:
        return _empty()
    top = _top([v for _, a, b in rows for v in (a, b)], max_value)
    labels = [short(r[0]) for r in rows]
    shown = ["n/a" if v is None else fmt(v) for _, a, b in rows for v in (a, b)]
    with _mpl.drawing():
        fig = _mpl.figure(width, len(rows) * 2 * 15 + 62)
        left = max(_mpl.text_px(t, 10) for t in labels) + 14
        _mpl.place(fig, left=left, right=max(_mpl.text_px(t, 9) for t in shown) + 18,
                   top=30, bottom=26)
        ax = fig.add_subplot()
        marks = _mpl.Marks()
        for k, (label, *values) in enumerate(rows):
            for j, (value, tone, name) in enumerate(zip(values, ("a", "b"), names,
                                                        strict=True)):
                y = k + (j - 0.5) * 0.38
                text = shown[2 * k + j]
                if value is not None:
                    (patch,) = ax.barh([y], [_visible(value, top)], height=0.36,
                                       color=TONES[tone], label=short(name, 30)
                                       if k == 0 else None)
                    marks(patch, f"bar {tone}", f"{label}: {name} {text}")
                ax.text(1.01, y, text, transform=ax.get_yaxis_transform(), va="center",
                        fontsize=9, color="#94a3b8" if value is None else "#334155")
        ax.set_yticks(range(len(rows)), labels)
        ax.set_ylim(len(rows) - 0.5, -0.5)
        _value_axis(ax, top, fmt)
        fig.legend(loc="upper left", bbox_to_anchor=(left / width, 1.0), ncols=2,
                   borderaxespad=0.3)
        return _mpl.svg_of(fig, label=title, css="hbar paired", marks=marks)


def histogram_bins(values: Sequence[float], bins: int | None = None
                   ) -> tuple[list[float], list[int]]:
    """Equal-width bins from 0 (or the minimum when negative) to the maximum.

    Returns ``(edges, counts)`` with ``len(edges) == len(counts) + 1``. The number of bins
    follows Sturges' rule (between 1 and 30) unless given.
    """
    if not values:
        return [], []
    lo = min(0.0, min(values))
    hi = max(values)
    n = bins or max(1, min(30, math.ceil(math.log2(len(values)) + 1)))
    if hi <= lo:
        hi = lo + 1.0
    step = (hi - lo) / n
    edges = [lo + k * step for k in range(n + 1)]
    counts = [0] * n
    for v in values:
        counts[min(n - 1, int((v - lo) / step))] += 1
    return edges, counts


def num(value: float) -> str:
    """A short number for ticks and tooltips (no needless decimals)."""
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.1f}".removesuffix(".0")
    return f"{value:.2g}"


def histogram(values: Sequence[float], *, title: str, unit: str = "s",
              bins: int | None = None, width: int = WIDTH, height: int = 250,
              x_label: str = "latency") -> Markup:
    """Bars of counts per equal-width bin; empty bins draw no bar."""
    values = [v for v in values if math.isfinite(v)]
    if not values:
        return _empty()
    from matplotlib.ticker import FuncFormatter, MaxNLocator

    edges, counts = histogram_bins(values, bins)
    with _mpl.drawing():
        fig = _mpl.figure(width, height)
        ax = fig.add_subplot()
        marks = _mpl.Marks()
        step = edges[1] - edges[0]
        for k, c in enumerate(counts):
            if c:
                (patch,) = ax.bar([edges[k]], [c], width=step, align="edge",
                                  color=TONES["primary"], edgecolor="white", linewidth=1)
                marks(patch, "bar primary",
                      f"{num(edges[k])}–{num(edges[k + 1])} {unit}: {c}")
        ax.set_xlim(edges[0], edges[-1])
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: num(v)))
        ax.yaxis.set_major_locator(MaxNLocator(5, integer=True))
        ticks = [t for t in ax.get_yticks() if 0 <= t <= ax.get_ylim()[1]]
        _mpl.place(fig, left=max(_mpl.text_px(num(t), 10) for t in ticks) + 34,
                   right=_mpl.text_px(num(edges[-1]), 10) / 2 + 10, top=8, bottom=44)
        ax.set_xlabel(f"{x_label} ({unit})" if unit else x_label)
        ax.set_ylabel("requests")
        ax.grid(axis="y")
        ax.set_axisbelow(True)
        return _mpl.svg_of(fig, label=title, css="histogram", marks=marks)


def heat_table(labels: Sequence[str], counts: Sequence[Sequence[int]], *, title: str,
               row_head: str = "expected", col_head: str = "returned") -> Markup:
    """A confusion matrix as a table whose cells are shaded by count.

    The diagonal (except the ``(none)`` corner) is the right answer: shaded green; the
    rest red. Zero cells stay blank.
    """
    def e(text: object) -> str:
        return str(escape(str(text)))

    peak = max((c for row in counts for c in row), default=0) or 1
    last = len(labels) - 1
    out = [f'<table class="heat"><caption>{e(title)}</caption><thead><tr>'
           f'<th class="corner">{e(row_head)} ↓ / {e(col_head)} →</th>']
    out += [f'<th class="col" title="{e(label)}"><span>{e(label)}</span></th>'
            for label in labels]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(counts):
        if i == last and not any(row):
            continue  # nothing returned without being expected: drop the (none) row
        out.append(f'<tr><th class="row">{e(labels[i])}</th>')
        for j, c in enumerate(row):
            right = i == j and i != last
            if not c:
                out.append(f'<td class="zero{" diag" if right else ""}"></td>')
                continue
            alpha = 0.15 + 0.75 * c / peak
            colour = "22, 163, 74" if right else "220, 38, 38"
            out.append(f'<td class="{"diag" if right else "off"}" '
                       f'style="background: rgba({colour}, {alpha:.2f})" '
                       f'title="{e(labels[i])} → {e(labels[j])}: {c}">{c}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    return Markup("".join(out))
