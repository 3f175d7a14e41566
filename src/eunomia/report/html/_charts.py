"""Server-side charts as inline SVG (no JavaScript, no library, nothing fetched).

Every function returns :class:`markupsafe.Markup`; every text that goes into it (labels,
titles, tooltips) is escaped here, so a label such as ``<img src=x onerror=...>`` is
shown as text. Each bar is one ``<rect class="bar">`` so tests can count them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from markupsafe import Markup, escape

Formatter = Callable[[float], str]

_CHAR_W = 6.6
"""Approximate width of one character of the 12px label font."""
_ROW_H = 24
_BAR_H = 16
_MAX_LABEL_CHARS = 40


def pct(value: float) -> str:
    return f"{100 * value:.1f}%"


def _e(text: object) -> str:
    return str(escape(str(text)))


def _short(text: str, limit: int = _MAX_LABEL_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


@dataclass(frozen=True, slots=True)
class Bar:
    label: str
    value: float | None
    """``None``: nothing to show (the row says n/a, no bar is drawn)."""
    tone: str = "primary"
    """CSS class of the bar: primary, good, bad, warn, a, b."""
    note: str = ""
    """Extra text for the tooltip."""


def _svg_open(width: float, height: float, label: str, css: str) -> str:
    return (f'<svg class="chart {css}" xmlns="http://www.w3.org/2000/svg" role="img" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" width="{width:.0f}" '
            f'height="{height:.0f}" aria-label="{_e(label)}"><title>{_e(label)}</title>')


def hbar_chart(bars: Sequence[Bar], *, title: str, max_value: float | None = None,
               fmt: Formatter = pct, width: int = 640) -> Markup:
    """Horizontal bars, one row per label, the value printed at the end of each bar."""
    if not bars:
        return Markup('<p class="empty">No data.</p>')
    top = max_value if max_value is not None else max((b.value or 0.0) for b in bars) or 1.0
    label_w = min(_MAX_LABEL_CHARS, max(len(b.label) for b in bars)) * _CHAR_W + 12
    value_w = 64
    plot_w = max(120.0, width - label_w - value_w)
    height = len(bars) * _ROW_H + 8
    parts = [_svg_open(label_w + plot_w + value_w, height, title, "hbar")]
    for k, bar in enumerate(bars):
        y = 4 + k * _ROW_H
        mid = y + _ROW_H / 2 + 4
        parts.append(f'<g class="row"><title>{_e(bar.label)}: '
                     f'{_e("n/a" if bar.value is None else fmt(bar.value))}'
                     f'{_e(" — " + bar.note) if bar.note else ""}</title>')
        parts.append(f'<text class="label" x="{label_w - 8:.1f}" y="{mid:.1f}" '
                     f'text-anchor="end">{_e(_short(bar.label))}</text>')
        parts.append(f'<rect class="track" x="{label_w:.1f}" y="{y + 4:.1f}" '
                     f'width="{plot_w:.1f}" height="{_BAR_H}" rx="3"/>')
        if bar.value is None:
            parts.append(f'<text class="value muted" x="{label_w + 6:.1f}" '
                         f'y="{mid:.1f}">n/a</text>')
        else:
            w = max(2.0, plot_w * min(max(bar.value, 0.0), top) / top) if top else 2.0
            parts.append(f'<rect class="bar {_e(bar.tone)}" x="{label_w:.1f}" y="{y + 4:.1f}" '
                         f'width="{w:.1f}" height="{_BAR_H}" rx="3"/>')
            parts.append(f'<text class="value" x="{label_w + plot_w + 6:.1f}" '
                         f'y="{mid:.1f}">{_e(fmt(bar.value))}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))


def paired_hbar_chart(rows: Sequence[tuple[str, float | None, float | None]], *, title: str,
                      names: tuple[str, str] = ("A", "B"), max_value: float | None = None,
                      fmt: Formatter = pct, width: int = 640) -> Markup:
    """Two bars per label (run A above run B), for comparisons; with a legend."""
    if not rows:
        return Markup('<p class="empty">No data.</p>')
    values = [v for _, a, b in rows for v in (a, b) if v is not None]
    top = max_value if max_value is not None else (max(values) if values else 1.0) or 1.0
    label_w = min(_MAX_LABEL_CHARS, max(len(r[0]) for r in rows)) * _CHAR_W + 12
    value_w = 64
    plot_w = max(120.0, width - label_w - value_w)
    row_h = 2 * 12 + 12
    legend_h = 22
    height = legend_h + len(rows) * row_h + 4
    parts = [_svg_open(label_w + plot_w + value_w, height, title, "hbar paired")]
    for k, (name, css) in enumerate(zip(names, ("a", "b"), strict=True)):
        x = label_w + k * 150
        parts.append(f'<rect class="legend {css}" x="{x:.1f}" y="4" width="12" height="12" '
                     f'rx="2"/><text class="label" x="{x + 18:.1f}" y="14">'
                     f'{_e(_short(name, 20))}</text>')
    for k, (label, a, b) in enumerate(rows):
        y = legend_h + k * row_h
        parts.append(f'<g class="row"><title>{_e(label)}: {_e(names[0])} '
                     f'{_e("n/a" if a is None else fmt(a))}, {_e(names[1])} '
                     f'{_e("n/a" if b is None else fmt(b))}</title>')
        parts.append(f'<text class="label" x="{label_w - 8:.1f}" y="{y + 17:.1f}" '
                     f'text-anchor="end">{_e(_short(label))}</text>')
        for j, (value, css) in enumerate(((a, "a"), (b, "b"))):
            by = y + 4 + j * 13
            if value is None:
                parts.append(f'<text class="value muted" x="{label_w + 6:.1f}" '
                             f'y="{by + 10:.1f}">n/a</text>')
                continue
            w = max(2.0, plot_w * min(max(value, 0.0), top) / top)
            parts.append(f'<rect class="bar {css}" x="{label_w:.1f}" y="{by:.1f}" '
                         f'width="{w:.1f}" height="11" rx="2"/>')
            parts.append(f'<text class="value small" x="{label_w + w + 4:.1f}" '
                         f'y="{by + 9.5:.1f}">{_e(fmt(value))}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return Markup("".join(parts))


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


def histogram(values: Sequence[float], *, title: str, unit: str = "s",
              bins: int | None = None, width: int = 640, height: int = 220) -> Markup:
    """Vertical bars of counts per equal-width bin; empty bins draw no bar."""
    if not values:
        return Markup('<p class="empty">No data.</p>')
    edges, counts = histogram_bins(values, bins)
    left, bottom, top_pad, right = 40, 26, 10, 12
    plot_w, plot_h = width - left - right, height - bottom - top_pad
    peak = max(counts)
    n = len(counts)
    bw = plot_w / n
    parts = [_svg_open(width, height, title, "histogram")]
    for t in _ticks(peak):
        y = top_pad + plot_h - plot_h * t / peak
        parts.append(f'<line class="grid" x1="{left}" x2="{left + plot_w}" y1="{y:.1f}" '
                     f'y2="{y:.1f}"/><text class="tick" x="{left - 6}" y="{y + 4:.1f}" '
                     f'text-anchor="end">{t}</text>')
    for k, c in enumerate(counts):
        if not c:
            continue
        h = plot_h * c / peak
        x = left + k * bw
        parts.append(f'<rect class="bar primary" x="{x + 1:.1f}" y="{top_pad + plot_h - h:.1f}" '
                     f'width="{max(1.0, bw - 2):.1f}" height="{h:.1f}"><title>'
                     f'{_e(_num(edges[k]))}–{_e(_num(edges[k + 1]))} {_e(unit)}: {c}'
                     f'</title></rect>')
    base = top_pad + plot_h
    parts.append(f'<line class="axis" x1="{left}" x2="{left + plot_w}" y1="{base}" '
                 f'y2="{base}"/>')
    step = max(1, math.ceil(n / 8))
    marks = list(range(0, n + 1, step))
    if marks[-1] != n:
        marks[-1] = n  # the last edge is always labelled
    for k in marks:
        x = left + k * bw
        anchor = "start" if k == 0 else ("end" if k == n else "middle")
        text = _num(edges[k]) + (f" {unit}" if k == n else "")
        parts.append(f'<text class="tick" x="{x:.1f}" y="{base + 16}" '
                     f'text-anchor="{anchor}">{_e(text)}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _ticks(peak: int) -> list[int]:
    step = max(1, math.ceil(peak / 4))
    return list(range(step, peak + 1, step))


def _num(value: float) -> str:
    if value == 0:
        return "0"
    if abs(value) >= 100:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.1f}"
    return f"{value:.2g}"


def heat_table(labels: Sequence[str], counts: Sequence[Sequence[int]], *, title: str,
               row_head: str = "expected", col_head: str = "returned") -> Markup:
    """A confusion matrix as a table whose cells are shaded by count.

    The diagonal (except the ``(none)`` corner) is the right answer: shaded green; the
    rest red. Zero cells stay blank.
    """
    peak = max((c for row in counts for c in row), default=0) or 1
    last = len(labels) - 1
    out = [f'<table class="heat"><caption>{_e(title)}</caption><thead><tr>'
           f'<th class="corner">{_e(row_head)} ↓ / {_e(col_head)} →</th>']
    out += [f'<th class="col" title="{_e(label)}"><span>{_e(label)}</span></th>'
            for label in labels]
    out.append("</tr></thead><tbody>")
    for i, row in enumerate(counts):
        if i == last and not any(row):
            continue  # nothing returned without being expected: drop the (none) row
        out.append(f'<tr><th class="row">{_e(labels[i])}</th>')
        for j, c in enumerate(row):
            right = i == j and i != last
            if not c:
                out.append(f'<td class="zero{" diag" if right else ""}"></td>')
                continue
            alpha = 0.15 + 0.75 * c / peak
            colour = "22, 163, 74" if right else "220, 38, 38"
            out.append(f'<td class="{"diag" if right else "off"}" '
                       f'style="background: rgba({colour}, {alpha:.2f})" '
                       f'title="{_e(labels[i])} → {_e(labels[j])}: {c}">{c}</td>')
        out.append("</tr>")
    out.append("</tbody></table>")
    return Markup("".join(out))
