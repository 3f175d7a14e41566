"""Matplotlib figures as static SVG to inline in a page: no script, no style, no fetch.

Matplotlib is imported here only, on the first chart drawn (``eunomia --help`` and every
command that draws no chart never load it), and without pyplot or ``matplotlib.use``:
figures are plain :class:`~matplotlib.figure.Figure` objects printed by the SVG canvas.
The few settings the SVG writer reads from ``rcParams`` (text kept as text, a fixed hash
salt for reproducible ids, no math parsing of labels) are set only for the time of one
drawing, under a lock, and restored after it: other users of matplotlib in the process
see nothing.

:func:`svg_of` cleans what matplotlib writes into one ``<svg class="chart ...">`` element:

* no XML prolog, metadata, ``<style>`` (its rules would apply to the whole page) or
  script; an ``href`` or ``url()`` that is not a reference inside the chart is dropped;
* ids prefixed with a hash of the chart, so two charts on a page never share one, and the
  ids nobody references removed;
* the groups of the artists given a ``gid`` (``mark(artist, css, tooltip)``) become
  ``<g class="...">`` with a ``<title>`` (a tooltip, and a handle for tests);
* fonts: the generic ``sans-serif`` family, set once on the chart (text stays text);
* the same data always gives the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from markupsafe import Markup, escape

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

FONT = "sans-serif"
_RC: dict[str, Any] = {
    "svg.fonttype": "none",  # text stays text, drawn in the page's font
    "svg.hashsalt": "eunomia",  # reproducible clip-path and marker ids
    "text.parse_math": False,  # a label with "$" is not TeX
    "text.usetex": False,
    "font.family": "sans-serif",
    "font.size": 11.0,
    "axes.titlesize": 12.0,
    "axes.titleweight": "bold",
    "axes.titlelocation": "left",
    "axes.labelsize": 11.0,
    "axes.labelcolor": "#334155",
    "axes.edgecolor": "#94a3b8",
    "axes.linewidth": 0.8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "xtick.color": "#475569",
    "ytick.color": "#475569",
    "xtick.labelsize": 10.0,
    "ytick.labelsize": 10.0,
    "grid.color": "#e2e8f0",
    "grid.linewidth": 0.8,
    "legend.frameon": False,
    "legend.fontsize": 10.0,
    "path.simplify": True,
}
_LOCK = threading.RLock()
_PT = 72.0
"""SVG user units per inch as matplotlib writes them: a figure ``w`` inches wide is
``72 * w`` units, shown as as many CSS pixels."""

_ROOT = re.compile(r"<svg\b[^>]*>")
_VIEWBOX = re.compile(r'viewBox="([^"]+)"')
_DROP = re.compile(r"<\?xml[^>]*>|<!DOCTYPE[^>]*>|<metadata>.*?</metadata>|"
                   r"<style\b[^>]*>.*?</style>|<script\b.*?</script>|<script\b[^>]*/>|"
                   r"<foreignObject\b.*?</foreignObject>", re.S | re.I)
_EMPTY_DEFS = re.compile(r"<defs>\s*</defs>")
_ID = re.compile(r'\sid="([^"]*)"')
_REF = re.compile(r'(?:url\(#|href="#)([^)"]+)')
_EXTERNAL = re.compile(r'\s(?:xlink:)?href="(?!#|data:image/png;base64,)[^"]*"|url\((?!#)[^)]*\)',
                       re.I)
"""A reference to anything outside the chart (an embedded PNG, as a colour bar's, stays)."""
_DIGITS = re.compile(r"(\d\.\d\d)\d+")
_NO_ROTATION = re.compile(r'\stransform="rotate\(-?0 [^)]*\)"')
_FONT_FAMILY = re.compile(r"font-family:[^;\"]*;?\s*")
_SPACE = re.compile(r"\s*\n\s*")
_GAP = re.compile(r">\s+<")
_TAG = re.compile(r"<[^>]+>")
_TIP = re.compile(r'^(<g class="[^"]*") data-tip="([^"]*)">$')


def _matplotlib() -> Any:
    import matplotlib

    return matplotlib


@contextmanager
def drawing() -> Iterator[None]:
    """Matplotlib's settings for one chart, restored afterwards; one drawing at a time."""
    with _LOCK, _matplotlib().rc_context(_RC):
        yield


def figure(width_px: float, height_px: float) -> Figure:
    """An empty figure of that size in CSS pixels (call inside :func:`drawing`)."""
    from matplotlib.figure import Figure

    return Figure(figsize=(width_px / _PT, height_px / _PT), dpi=_PT, facecolor="white")


def text_px(text: str, size: float) -> float:
    """The width of a label, estimated in DejaVu Sans (about 0.62 em a character; the widest
    common sans-serif, so the page's font fits in it)."""
    return 0.62 * size * len(text)


def place(fig: Figure, *, left: float, right: float, top: float, bottom: float) -> None:
    """The axes' margins in pixels. Estimated from the labels rather than measured by a
    layout engine: that would draw every text twice more and take twice as long."""
    width, height = (float(v) * _PT for v in fig.get_size_inches())
    left, right = min(left, 0.6 * width), min(right, 0.3 * width)
    top, bottom = min(top, 0.4 * height), min(bottom, 0.4 * height)
    fig.subplots_adjust(left=left / width, right=1 - right / width, bottom=bottom / height,
                        top=1 - top / height)


class Marks:
    """The artists that become classed, titled groups in the SVG."""

    def __init__(self) -> None:
        self.groups: dict[str, tuple[str, str]] = {}

    def __call__(self, artist: Any, css: str, tooltip: str) -> None:
        gid = f"eu-mark-{len(self.groups)}"
        artist.set_gid(gid)
        self.groups[gid] = (css, tooltip)


def svg_of(fig: Figure, *, label: str, css: str, marks: Marks | None = None) -> Markup:
    """The figure as one clean inline ``<svg>`` (call inside :func:`drawing`)."""
    buf = io.StringIO()
    # the figure's own canvas prints with matplotlib's SVG backend; no global backend is set
    fig.savefig(buf, format="svg", metadata={"Date": None, "Creator": None})
    return Markup(clean(buf.getvalue(), label=label, css=css,
                        marks=marks.groups if marks else {}))


def clean(svg: str, *, label: str, css: str, marks: dict[str, tuple[str, str]]) -> str:
    """Matplotlib's SVG document as an element safe to inline (see the module's notes)."""
    root = _ROOT.search(svg)
    if root is None:
        raise ValueError("not an SVG document")
    viewbox = _VIEWBOX.search(root.group(0))
    box = viewbox.group(1) if viewbox else "0 0 640 320"
    body = svg[root.end():svg.rindex("</svg>")]
    body = _EMPTY_DEFS.sub("", _DROP.sub("", body))
    prefix = "c" + hashlib.sha256(body.encode("utf-8")).hexdigest()[:8]
    referenced = set(_REF.findall(body))

    def ident(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in marks:
            classes, tooltip = marks[name]
            tip = f' data-tip="{escape(tooltip)}"' if tooltip else ""  # none: a class only
            return f' class="{escape(classes)}"{tip}'
        return f' id="{prefix}-{name}"' if name in referenced else ""

    def tag(m: re.Match[str]) -> str:
        # attributes only: text content is escaped by matplotlib and stays as it is
        t = _FONT_FAMILY.sub("", _EXTERNAL.sub("", m.group(0)))
        t = _NO_ROTATION.sub("", _DIGITS.sub(r"\1", t))
        t = _REF.sub(lambda r: r.group(0)[: -len(r.group(1))] + f"{prefix}-{r.group(1)}", t)
        t = _ID.sub(ident, t)
        # a marked group's tooltip as its first child (SVG shows no title attribute)
        return _TIP.sub(lambda g: f"{g.group(1)}><title>{g.group(2)}</title>", t)

    body = _flatten(_GAP.sub("><", _SPACE.sub(" ", _TAG.sub(tag, body))).strip())
    _, _, width, height = (box.split() + ["0"] * 4)[:4]
    text = escape(label)
    return (f'<svg xmlns="http://www.w3.org/2000/svg" '
            f'xmlns:xlink="http://www.w3.org/1999/xlink" class="chart {escape(css)}" '
            f'viewBox="{box}" width="{width}" height="{height}" role="img" '
            f'aria-label="{text}" font-family="{FONT}" stroke-linejoin="round" '
            f'stroke-linecap="butt"><title>{text}</title>{body}</svg>')


def _flatten(body: str) -> str:
    """``<g>...</g>`` without attributes (matplotlib's groups of unnamed artists) unwrapped."""
    out: list[str] = []
    keep: list[bool] = []
    last = 0
    for m in _TAG.finditer(body):
        out.append(body[last:m.start()])
        last = m.end()
        tag = m.group(0)
        if tag == "<g>":
            keep.append(False)
            continue
        if tag.startswith("<g ") and not tag.endswith("/>"):
            keep.append(True)
        elif tag == "</g>" and keep and not keep.pop():
            continue
        out.append(tag)
    out.append(body[last:])
    return "".join(out)


def no_data(ax: Axes, message: str) -> None:
    ax.text(0.5, 0.5, message, transform=ax.transAxes, ha="center", va="center",
            color="#64748b")
    ax.set_xticks([])
    ax.set_yticks([])
