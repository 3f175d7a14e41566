"""How fast and how big are the report's charts: matplotlib's SVG backend against pygal and
against the hand-drawn SVG Eunomia wrote before (read from git, ``--old REV``).

    .venv/bin/python bench/bench_charts.py [--repeats 7] [--old e1b1d97]

For each library and chart: the median time to draw it (after one warm-up drawing), its
size in bytes, and the import time of the library (a fresh interpreter, best of 3).
The charts are those of a report: detection rate of 7 criteria, a latency histogram of
26 and of 2,000 requests, latency against output length of 500 answers, and the
cost/quality front of 6 targets. Results are written up in bench/charts.md.
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

Chart = Callable[[], str]


def data() -> dict[str, Any]:
    rng = random.Random(7)
    rates = [("classes_present", 1.0), ("attributes", 0.92), ("relationship_type", 0.885),
             ("multiplicities", 0.96), ("naming_format", 0.73), ("inheritance", 1.0),
             ("association_names", 0.5)]
    words = [rng.randint(5, 400) for _ in range(500)]
    return {
        "rates": rates,
        "lat26": [rng.lognormvariate(0, 0.5) for _ in range(26)],
        "lat2000": [rng.lognormvariate(0, 0.5) for _ in range(2000)],
        "speed": (words, [0.3 + 0.012 * w + rng.gauss(0, 0.3) for w in words]),
        "front": [(f"target-{k}", 0.01 * (k + 1) * rng.random(), 50 + 8 * k * rng.random())
                  for k in range(6)],
    }


def matplotlib_charts(d: dict[str, Any]) -> dict[str, Chart]:
    from eunomia.report.html._charts import Bar, hbar_chart, histogram
    from eunomia.report.html._plots import Fit, FrontPoint, Series, front_chart, scatter_chart

    xs, ys = d["speed"]
    return {
        "detection (7 bars)": lambda: str(hbar_chart(
            [Bar(n, r, "good") for n, r in d["rates"]], title="d", max_value=1.0)),
        "histogram (26)": lambda: str(histogram(d["lat26"], title="l")),
        "histogram (2,000)": lambda: str(histogram(d["lat2000"], title="l")),
        "latency vs length (500)": lambda: str(scatter_chart(
            [Series("m", xs, ys)], title="s", x_label="words", y_label="s",
            fit=Fit(0.012, 0.3, "fit"))),
        "front (6 targets)": lambda: str(front_chart(
            [FrontPoint(n, c, s, s - 5, s + 5, k % 2 == 0)
             for k, (n, c, s) in enumerate(d["front"])],
            title="f", x_label="cost", y_label="score")),
    }


def pygal_charts(d: dict[str, Any]) -> dict[str, Chart]:
    import pygal

    config = {"js": [], "disable_xml_declaration": True, "width": 640, "height": 320}

    def detection() -> str:
        c = pygal.HorizontalBar(**config)
        for n, r in d["rates"]:
            c.add(n, r)
        return str(c.render(is_unicode=True))

    def hist(values: list[float]) -> str:
        from eunomia.report.html._charts import histogram_bins

        edges, counts = histogram_bins(values)
        c = pygal.Histogram(**config)
        c.add("latency", [(n, edges[k], edges[k + 1]) for k, n in enumerate(counts)])
        return str(c.render(is_unicode=True))

    def speed() -> str:
        c = pygal.XY(stroke=False, **config)
        c.add("answers", list(zip(*d["speed"], strict=True)))
        return str(c.render(is_unicode=True))

    def front() -> str:
        c = pygal.XY(stroke=False, **config)
        for n, cost, score in d["front"]:
            c.add(n, [(cost, score)])
        return str(c.render(is_unicode=True))

    return {"detection (7 bars)": detection, "histogram (26)": lambda: hist(d["lat26"]),
            "histogram (2,000)": lambda: hist(d["lat2000"]),
            "latency vs length (500)": speed, "front (6 targets)": front}


def old_charts(d: dict[str, Any], rev: str) -> dict[str, Chart]:
    """The hand-drawn SVG of ``rev`` (no front chart existed; the speed plot came from the
    task export)."""
    source = subprocess.run(["git", "show", f"{rev}:src/eunomia/report/html/_charts.py"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    old = types.ModuleType("old_charts")
    sys.modules["old_charts"] = old  # dataclasses look their module up
    exec(compile(source, "old_charts", "exec"), old.__dict__)
    tables = subprocess.run(["git", "show", f"{rev}:src/eunomia/kinds/tasks/_tables.py"],
                            cwd=ROOT, capture_output=True, text=True, check=True).stdout
    start = tables.index("def speed_svg_lines")
    speed_src = "from html import escape\n" + tables[start:tables.index("\ndef ", start + 1)]
    speed_mod = types.ModuleType("old_speed")
    speed_mod.__dict__["_speed_points"] = lambda s: iter(zip(*d["speed"], strict=True))
    speed_mod.__dict__["Iterator"] = Any
    speed_mod.__dict__["TasksSummary"] = Any
    exec(compile(speed_src, "old_speed", "exec"), speed_mod.__dict__)
    summary = types.SimpleNamespace(candidate="m", speed_fit=None)
    return {
        "detection (7 bars)": lambda: str(old.hbar_chart(
            [old.Bar(n, r, "good") for n, r in d["rates"]], title="d", max_value=1.0)),
        "histogram (26)": lambda: str(old.histogram(d["lat26"], title="l")),
        "histogram (2,000)": lambda: str(old.histogram(d["lat2000"], title="l")),
        "latency vs length (500)": lambda: "\n".join(speed_mod.speed_svg_lines(summary)),
    }


def import_time(module: str) -> float:
    best = float("inf")
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", f"import time; t = time.perf_counter(); "
                              f"import {module}; print(time.perf_counter() - t)"],
                             capture_output=True, text=True, check=True,
                             env={"PYTHONPATH": str(ROOT / "src")})
        best = min(best, float(out.stdout))
    return best


def measure(charts: dict[str, Chart], repeats: int) -> dict[str, tuple[float, int]]:
    out = {}
    for name, draw in charts.items():
        svg = draw()  # warm-up: imports, font cache
        times = []
        for _ in range(repeats):
            t = time.perf_counter()
            draw()
            times.append(time.perf_counter() - t)
        out[name] = (statistics.median(times), len(svg.encode("utf-8")))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--old", default="e1b1d97")
    args = parser.parse_args()
    d = data()
    libraries: dict[str, tuple[str, dict[str, Chart]]] = {
        "hand-drawn (before)": ("markupsafe", old_charts(d, args.old)),
        "matplotlib (svg)": ("matplotlib.figure, matplotlib.backends.backend_svg",
                             matplotlib_charts(d)),
    }
    try:
        libraries["pygal"] = ("pygal", pygal_charts(d))
    except ImportError:
        print("pygal is not installed: left out")
    print(f"{'library':22} {'import s':>9}  {'chart':26} {'ms':>8} {'bytes':>9}")
    for lib, (module, charts) in libraries.items():
        imported = import_time(module)
        for k, (chart, (seconds, size)) in enumerate(measure(charts, args.repeats).items()):
            head = f"{lib:22} {imported:9.3f}" if k == 0 else " " * 32
            print(f"{head}  {chart:26} {1000 * seconds:8.1f} {size:9,}")


if __name__ == "__main__":
    main()
