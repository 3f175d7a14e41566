"""The charts (matplotlib's SVG, cleaned to inline): axes that read right on ordinary data,
text kept as escaped text, nothing active or external, reproducible bytes, and matplotlib's
settings left as they were."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict

import matplotlib
import pytest
from tests.report._html import parse

from eunomia.kinds.tasks import SpeedRow, TasksSummary
from eunomia.kinds.tasks._tables import speed_svg_lines
from eunomia.report.html._charts import Bar, hbar_chart, histogram, paired_hbar_chart
from eunomia.report.html._mpl import clean
from eunomia.report.html._plots import (
    MAX_POINTS,
    Fit,
    FrontPoint,
    Series,
    front_chart,
    scatter_chart,
)
from eunomia.stats import linear_fit

SVG = "{http://www.w3.org/2000/svg}"


def _rows_of_text(svg: str) -> dict[str, list[str]]:
    """The chart's texts by their baseline (``y``): the x axis' tick labels share one."""
    rows: dict[str, list[str]] = defaultdict(list)
    for attrs, text in re.findall(r"<text ([^>]*)>([^<]*)</text>", svg):
        y = re.search(r'\by="([^"]+)"', attrs)
        if y is not None:
            rows[y.group(1)].append(text)
    return rows


def _x_ticks(svg: str) -> list[str]:
    """The tick labels along the bottom: the lowest row of two or more texts."""
    rows = [(float(y), texts) for y, texts in _rows_of_text(svg).items() if len(texts) > 1]
    return max(rows)[1]


def _speed(words: list[int], latencies: list[float]) -> TasksSummary:
    s = TasksSummary(candidate="openai:<m>", judge="j", weights={})
    s.speed = [SpeedRow("s", f"c{k}", 0, 30, w, w, t, None, None, None)
               for k, (w, t) in enumerate(zip(words, latencies, strict=True))]
    if len(set(words)) >= 2:
        s.speed_fit = linear_fit([float(w) for w in words], latencies)
    return s


def test_five_answers_of_zero_words_get_a_readable_axis() -> None:
    """The hand-drawn plot labelled this axis "0 0 0 1 1 1"."""
    svg = "".join(speed_svg_lines(_speed([0] * 5, [1.1, 1.2, 1.3, 0.9, 1.0])))
    ticks = _x_ticks(svg)
    assert ticks == ["0", "1"]
    page = parse(svg)
    (points,) = page.classed(0, "points")
    after = page.tags[page.tags.index(points) + 1:]
    dot = next(t for t in after if t.name == "use").attrs["xlink:href"]
    assert sum(t.attrs.get("xlink:href") == dot for t in after) == 5  # one per answer


def test_speed_file_is_standalone_svg_with_the_fit() -> None:
    words = [10, 40, 80, 120, 200]
    svg = "".join(speed_svg_lines(_speed(words, [0.5 + 0.01 * w for w in words])))
    root = ET.fromstring(svg)  # well-formed XML on its own
    assert root.tag == f"{SVG}svg" and root.get("width") == "640"
    texts = "".join(root.itertext())
    assert "Inference speed: latency vs output length (openai:<m>)" in texts
    assert "slope 1 s per 100 words, R² 1.00" in texts
    assert "&lt;m&gt;" in svg and "<m>" not in svg.replace("openai:<m>", "")
    ticks = [float(t) for t in _x_ticks(svg)]
    assert ticks == sorted(set(ticks)) and ticks[0] == 0 and ticks[-1] >= 200
    assert "no inference-speed cases" in "".join(speed_svg_lines(_speed([], [])))


def test_many_points_are_binned_small() -> None:
    n = MAX_POINTS + 1000
    xs = [float(k % 400) for k in range(n)]
    svg = str(scatter_chart([Series("m", xs, [0.01 * x + 0.5 for x in xs])], title="t",
                            x_label="x", y_label="y", fit=Fit(0.01, 0.5, "fit")))
    page = parse(svg)
    assert len(page.classed(0, "density")) == 1 and not page.classed(0, "points")
    assert len(svg) < 400_000
    assert 'href="data:image/png;base64,' in svg  # the colour bar's gradient, inline


def test_nothing_active_external_or_leaking() -> None:
    charts = [
        hbar_chart([Bar("<script>alert(1)</script>", 0.5, "bad", "1/2"), Bar("$x^2$", None)],
                   title="<b>t</b>", max_value=1.0),
        paired_hbar_chart([("a&b", 0.2, None)], title="p", names=("<i>A</i>", "B")),
        histogram([0.1, 0.2, 3.0], title="h"),
        front_chart([FrontPoint("<img src=x onerror=alert(1)>", 0.1, 80, 70, 90, True),
                     FrontPoint("b", 0.2, 60, None, None, False)],
                    title="f", x_label="cost", y_label="score"),
    ]
    for chart in charts:
        svg = str(chart)
        for banned in ("<script", "<style", "<metadata", "<?xml", "<!DOCTYPE", "<img",
                       "<foreignObject", "DejaVu", "http://purl"):
            assert banned not in svg, banned
        assert not [a for t in parse(svg).tags for a in t.attrs if a.startswith("on")]
        refs = re.findall(r'(?:href="|url\()([^")]*)', svg)
        assert all(r.startswith("#") for r in refs), refs
        ET.fromstring(svg)  # well-formed
        assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"') and \
            'font-family="sans-serif"' in svg
    text = "".join(parse(str(charts[0])).text)
    assert "<script>alert(1)</script>" in text and "$x^2$" in text  # text, never TeX
    assert "<img src=x onerror=alert(1)>" in "".join(parse(str(charts[3])).text)


def test_reproducible_and_ids_do_not_collide() -> None:
    a = str(hbar_chart([Bar("a", 0.5)], title="t", max_value=1.0))
    assert a == str(hbar_chart([Bar("a", 0.5)], title="t", max_value=1.0))
    b = str(hbar_chart([Bar("a", 0.7)], title="t", max_value=1.0))
    ids_a = set(re.findall(r' id="([^"]+)"', a))
    ids_b = set(re.findall(r' id="([^"]+)"', b))
    assert ids_a and ids_b and not ids_a & ids_b
    for svg, ids in ((a, ids_a), (b, ids_b)):
        assert set(re.findall(r'(?:href="#|url\(#)([^")]+)', svg)) <= ids


def test_matplotlib_settings_are_left_as_they_were() -> None:
    before = (matplotlib.rcParams["svg.fonttype"], matplotlib.rcParams["svg.hashsalt"],
              matplotlib.rcParams["font.size"], matplotlib.get_backend())
    histogram([1.0, 2.0], title="h")
    after = (matplotlib.rcParams["svg.fonttype"], matplotlib.rcParams["svg.hashsalt"],
             matplotlib.rcParams["font.size"], matplotlib.get_backend())
    assert after == before


def test_bars_are_proportional() -> None:
    page = parse(str(hbar_chart([Bar("a", 0.25, "good"), Bar("b", 1.0, "bad")], title="t",
                                max_value=1.0)))
    a, b = page.bars_of(0)
    assert a.attrs["class"] == "bar good" and b.attrs["class"] == "bar bad"
    wa, wb = (x1 - x0 for x0, _, x1, _ in map(page.extent, (a, b)))
    assert wa / wb == pytest.approx(0.25, abs=0.01)


def test_clean_refuses_what_is_not_svg() -> None:
    with pytest.raises(ValueError):
        clean("<html></html>", label="x", css="y", marks={})
    out = clean('<svg viewBox="0 0 10 10"><image xlink:href="http://x/y.png"/>'
                '<g id="keep"><use href="#def"/></g><path id="def" d="M 0 0"/>'
                '<text style="font-family: \'DejaVu Sans\'; font-size: 10px">a</text></svg>',
                label="x", css="y", marks={"keep": ("bar", "tip <1>")})
    assert "http://x" not in out and "DejaVu" not in out
    assert '<g class="bar"><title>tip &lt;1&gt;</title>' in out
    assert re.search(r'<use href="#c[0-9a-f]{8}-def"/>', out)


def test_front_axis_starts_at_zero_when_every_cost_is_zero() -> None:
    """Issue #30: every target at cost 0 (a free local model, a trivial baseline) drew an axis
    from -0.06; a cost is never negative. The tick labels are the axis: none is negative."""
    for costs in ((0.0, 0.0), (0.0, 0.002)):
        svg = str(front_chart([FrontPoint("a", costs[0], 3.1, 2.5, 3.6, True),
                               FrontPoint("b", costs[1], 2.0, 1.2, 2.8, False)],
                              title="f", x_label="cost", y_label="score", cost=lambda v: f"{v:g}"))
        ticks = [t for t in parse(svg).text if re.fullmatch(r"\s*[-−]?[\d.e+-]+\s*", t)]
        assert ticks, svg[:300]
        assert not [t for t in ticks if t.strip().startswith(("-", "−"))], ticks
