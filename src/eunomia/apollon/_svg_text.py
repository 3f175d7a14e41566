"""Text and number helpers for the SVG rendering: escaping, width estimates, wrapping.

Widths are estimated from DejaVu Sans advance widths (the widest common sans-serif
fallback), so text that fits by the estimate also fits in Helvetica, Arial or
Liberation Sans.  Nothing here measures with a real font: the output must not depend
on the machine.
"""

from __future__ import annotations

import math
import re
import unicodedata
from functools import lru_cache
from xml.sax.saxutils import escape

ELLIPSIS = "…"
MAX_CHARS = 2000
FONT_FAMILY = "Helvetica, Arial, 'Liberation Sans', 'DejaVu Sans', sans-serif"

# Advance widths in em of DejaVu Sans for printable ASCII (rounded up a little).
_ASCII = (
    " .32!.40\".46#.84$.64%.95&.78'.28(.39).39*.50+.84,.32-.37..32/.34"
    "0.641.642.643.644.645.646.647.648.649.64:.34;.34<.84=.84>.84?.54@1.0"
    "A.69B.69C.70D.77E.64F.58G.78H.76I.30J.30K.66L.56M.87N.75O.79P.61Q.79"
    "R.70S.64T.62U.74V.69W.99X.69Y.62Z.69[.39\\.34].39^.84_.50`.50"
    "a.62b.64c.55d.64e.62f.36g.64h.64i.28j.28k.58l.28m.98n.64o.62p.64q.64"
    "r.42s.53t.40u.64v.60w.82x.60y.60z.53{.64|.34}.64~.84"
)
_WIDTHS: dict[str, float] = {
    match.group(1): float(match.group(2))
    for match in re.finditer(r"(.)(1\.0|\.\d\d)", _ASCII)
}
_BOLD = 1.1
# Characters XML 1.0 does not allow (and lone surrogates): replaced, never emitted.
_INVALID_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def clean(text: str) -> str:
    """Text safe to put into XML: invalid characters replaced by U+FFFD."""
    return _INVALID_XML.sub("\ufffd", text)


def esc(text: str) -> str:
    """Escaped character data."""
    return escape(clean(text))


def attr(text: str) -> str:
    """Escaped attribute value (to go between double quotes)."""
    return escape(clean(text), {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


@lru_cache(maxsize=65536)
def num(value: float) -> str:
    """A coordinate with at most two decimals, no trailing zeros, never ``-0``."""
    value = float(value)
    if value.is_integer():
        return str(int(value))
    if not math.isfinite(value):
        return "0"
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def char_width(char: str) -> float:
    known = _WIDTHS.get(char)
    if known is not None:
        return known
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 1.0
    if unicodedata.combining(char):
        return 0.0
    return 0.8


@lru_cache(maxsize=8192)
def _ems(text: str) -> float:
    return sum(char_width(char) for char in text)


def text_width(text: str, size: float, bold: bool = False) -> float:
    """Estimated advance width in pixels of ``text`` at font size ``size``."""
    width = _ems(text) * size
    return width * _BOLD if bold else width


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces, at most MAX_CHARS long."""
    return " ".join(cap(text).split())


def cap(text: str) -> str:
    """No drawing shows more than this: longer (hostile) text is cut before measuring."""
    return text if len(text) <= MAX_CHARS else text[:MAX_CHARS] + ELLIPSIS


def fit(text: str, width: float, size: float, bold: bool = False) -> str:
    """``text`` on one line, cut with an ellipsis so that it fits in ``width``."""
    text = one_line(cap(text))
    if text_width(text, size, bold) <= width:
        return text
    budget = width / size / (_BOLD if bold else 1.0) - char_width(ELLIPSIS)
    used = 0.0
    for index, char in enumerate(text):
        used += char_width(char)
        if used > budget:
            return text[:index].rstrip() + ELLIPSIS if index else ""
    return text  # pragma: no cover - the width check above returned already


def _split_word(word: str, width: float, size: float, bold: bool) -> list[str]:
    """A word longer than the line, broken at characters."""
    parts: list[str] = []
    current, used = "", 0.0
    for char in word:
        w = text_width(char, size, bold)
        if current and used + w > width:
            parts.append(current)
            current, used = "", 0.0
        current += char
        used += w
    if current:
        parts.append(current)
    return parts


def wrap(text: str, width: float, size: float, max_lines: int, bold: bool = False) -> list[str]:
    """Greedy word wrap into at most ``max_lines`` lines, the last one cut with an ellipsis.

    Newlines in the text start a new line.  Returns ``[]`` when nothing fits.
    """
    return list(_wrap(text, width, size, max_lines, bold))


@lru_cache(maxsize=4096)
def _wrap(text: str, width: float, size: float, max_lines: int, bold: bool) -> tuple[str, ...]:
    if max_lines <= 0 or width <= 0:
        return ()
    text = cap(text)
    lines: list[str] = []
    for paragraph in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        words = paragraph.split()
        current = ""
        for word in words:
            candidate = f"{current} {word}" if current else word
            if text_width(candidate, size, bold) <= width:
                current = candidate
                continue
            if current:
                lines.append(current)
            pieces = _split_word(word, width, size, bold)
            lines.extend(pieces[:-1])
            current = pieces[-1] if pieces else ""
        if current or not words:
            lines.append(current)
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) > max_lines:
        rest = " ".join(lines[max_lines - 1 :])
        cut = fit(rest, width, size, bold)
        if not cut.endswith(ELLIPSIS):  # the rest fits: it ran over in lines, not in width
            cut = fit(f"{cut}{ELLIPSIS}", width, size, bold)
        lines = [*lines[: max_lines - 1], cut]
    return tuple(fit(line, width, size, bold) for line in lines)


def text_block(
    lines: list[str],
    x: float,
    y: float,
    size: float,
    *,
    anchor: str = "middle",
    bold: bool = False,
    italic: bool = False,
    underline: bool = False,
    halo: bool = False,
    css: str = "name",
    fill: str = "#1a1a1a",
    line_height: float | None = None,
    transform: str = "",
) -> str:
    """One ``<text>``: the first baseline at ``y``, one ``<tspan>`` per further line."""
    if not lines:
        return ""
    step = line_height or round(size * 1.2, 2)
    style = (
        (' font-weight="bold"' if bold else "")
        + (' font-style="italic"' if italic else "")
        + (' text-decoration="underline"' if underline else "")
        + (' stroke="#fff" stroke-width="3" paint-order="stroke"' if halo else "")
    )
    extra = f' transform="{transform}"' if transform else ""
    head = (
        f'<text class="{css}" x="{num(x)}" y="{num(y)}" font-size="{num(size)}" '
        f'text-anchor="{anchor}" fill="{fill}"{style}{extra}>'
    )
    if len(lines) == 1:
        return f"{head}{esc(lines[0])}</text>"
    spans = "".join(
        f'<tspan x="{num(x)}" dy="{num(0 if i == 0 else step)}">{esc(line)}</tspan>'
        for i, line in enumerate(lines)
    )
    return f"{head}{spans}</text>"


def centred_lines(
    text: str, width: float, height: float, size: float, bold: bool = False
) -> tuple[list[str], float]:
    """Wrapped lines for a box and the offset of the first baseline from the box centre."""
    step = round(size * 1.2, 2)
    lines = wrap(text, width, size, max(1, int(height // step)), bold)
    # The block of n lines is centred; a baseline sits about 0.35 em below a line's middle.
    return lines, -(len(lines) - 1) * step / 2 + size * 0.35
