"""One figure, one value wherever it is shown (issue #30): for a run made as a user makes it
(``eunomia eval`` of an ``http:`` system scripted on 127.0.0.1), each figure — cases scored,
failed and unscored, the mean score and its interval, cost, tokens, calls — is read from the
terminal, the result files, the HTML report, the viewer's pages (``eunomia view``), ``eunomia
runs``, ``compare`` and the CI exports, and compared.

Run ``unscored``: the bot without a price, ``--judge none``, cases with and without checks:
the cases without are unscored (not failed, with the reason), the bot's reported cost is the
cost. Run ``judged``: the priced bot and ``baseline:empty`` judged by a scripted judge: the
judge's calls are its own, never a candidate's; the bot's reported cost disagrees with its
price, and both are shown.
"""

from __future__ import annotations

import html
import json
import re
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from tests.report._figures_app import (
    BOT_COST,
    BOT_TOKENS,
    JUDGE_TOKENS,
    SUITE,
    FigureApps,
    write_models,
)
from tests.support.cli import cli_env, run_cli
from tests.support.scripted_server import free_port

UNSCORED_REASON = "no checks and --judge none"
WIDE = {"COLUMNS": "250"}


@dataclass(frozen=True, slots=True)
class Runs:
    folder: Path
    out: dict[str, str]
    """Terminal output of each run."""
    judge_calls: int


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    folder = tmp_path_factory.mktemp("figures")
    (folder / "suite.yaml").write_text(SUITE, encoding="utf-8")
    with FigureApps().in_thread() as apps:
        write_models(folder, apps.url.rstrip("/"))
        out = {}
        for name, args in (
                ("unscored", ["--model", "http:support-bot", "--judge", "none"]),
                ("judged", ["--model", "http:support-bot-priced", "--model", "baseline:empty",
                            "--judge", "http:judge-bot",
                            # the content-free control's judge calls are a run of their own
                            # (tests/eval_controls); here every judge call is a candidate's
                            "--controls", "none"])):
            done = run_cli("eval", "suite.yaml", *args, "--run-name", name, cwd=folder,
                           env=WIDE, timeout=120)
            assert done.returncode == 0, done.stdout + done.stderr
            out[name] = done.stdout + done.stderr
        yield Runs(folder, out, apps.judged)


# --- reading the figures ---------------------------------------------------------------------
def _terminal(text: str, title: str) -> dict[str, str]:
    """Metric -> value of the summary table under ``title`` (e.g. ``Tasks: http:x``)."""
    start = text.index(title)
    found: dict[str, str] = {}
    for line in text[start:].splitlines()[1:]:
        if line.startswith("└"):
            break
        cells = [c.strip() for c in line.strip("│").split("│")]
        if line.startswith("│") and len(cells) == 2:
            found[cells[0]] = cells[1]
    return found


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", fragment))).strip()


def _tiles(page: str) -> dict[str, str]:
    """The summary's tiles: label -> value (the first ``cards`` block of the page)."""
    block = page[page.index('<section id="summary">'):]
    block = block[:block.index("</section>")]
    tiles = re.findall(r'<div class="k">(.*?)</div><div class="v[^"]*"[^>]*>(.*?)</div></div>',
                       block, flags=re.S)
    return {_text(k): _text(v) for k, v in tiles}


def _table_after(page: str, heading: str) -> list[list[str]]:
    """The body rows of the first table after ``heading`` (cells as text)."""
    rest = page[page.index(heading):]
    body = rest[rest.index("<tbody>"):rest.index("</tbody>")]
    return [[_text(c) for c in re.findall(r"<td[^>]*>(.*?)</td>", row, flags=re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, flags=re.S)]


def _number(text: str) -> float:
    return float(text.replace(",", "").replace("$", ""))


def _interval(text: str) -> tuple[str, str, str]:
    """(estimate, low, high), or (estimate, "too few", n) below the cases an interval needs."""
    few = re.fullmatch(r"([\d.]+) \(too few cases to tell, n=(\d+)\)", text.strip())
    if few:
        return few.group(1), "too few", few.group(2)
    m = re.fullmatch(r"([\d.]+) \[([\d.]+), ([\d.]+)\]", text.strip())
    assert m, text
    return m.group(1), m.group(2), m.group(3)


def _json(path: Path) -> dict[str, object]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def viewer(runs: Runs) -> Iterator[str]:
    """``eunomia view`` of the runs' store, as a user starts it: its base URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "eunomia", "view", "--port", str(port)], cwd=runs.folder,
        env=cli_env(WIDE), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/", timeout=5):
                    break
            except OSError:
                assert time.monotonic() < deadline, "eunomia view did not start"
                time.sleep(0.1)
        yield base
    finally:
        proc.terminate()
        proc.wait(10)


def _get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as resp:
        body: bytes = resp.read()
    return body.decode("utf-8")


def _report(runs: Runs, name: str) -> str:
    done = run_cli("report", name, cwd=runs.folder, env=WIDE)
    assert done.returncode == 0, done.stdout + done.stderr
    return (runs.folder / "results" / name / "report.html").read_text(encoding="utf-8")


# --- point 1: unscored is not failed ----------------------------------------------------------
def test_unscored_counts_agree_everywhere(runs: Runs, viewer: str) -> None:
    term = _terminal(runs.out["unscored"], "Tasks: http:support-bot judged by none")
    assert (term["Cases"], term["Scored"], term["Unscored"], term["Failed"]) == \
        ("7", "4", "3", "0")
    folder = runs.folder / "results" / "unscored"
    run_json = _json(folder / "run.json")
    assert (run_json["cases"], run_json["scored_cases"], run_json["unscored_cases"],
            run_json["failed_cases"]) == (7, 4, 3, 0)
    results = _json(folder / "tasks_results.json")
    assert (results["cases"], results["scored"], results["unscored"], results["failed"]) == \
        (7, 4, 3, 0)
    for page in (_report(runs, "unscored"), _get(viewer + "/runs/unscored")):
        tiles = _tiles(page)
        assert (tiles["Cases"], tiles["Failed"], tiles["Unscored"]) == ("7", "0", "3")
        assert "Failed cases (" not in page  # no table of failures: nothing failed
        unscored = _table_after(page, "Unscored cases (3)")
        assert len(unscored) == 3
        assert all(r[2] == "unscored" and UNSCORED_REASON in r[4] for r in unscored), unscored
        assert 'class="v bad"' not in page.split('<section id="summary">')[1].split("</div>")[0]
    listed = _table_after(_get(viewer + "/"), "All runs")
    header = ["Name", "Date", "Kind", "Suites", "Targets", "Status", "Cases", "Failed",
              "Unscored"]
    row = next(r for r in listed if r[0] == "unscored")
    assert dict(zip(header, row, strict=False))["Failed"] == "0"
    assert dict(zip(header, row, strict=False))["Unscored"] == "3"
    runs_out = run_cli("runs", cwd=runs.folder, env=WIDE).stdout
    line = next(x for x in runs_out.splitlines() if x.startswith("│ unscored"))
    cells = [c.strip() for c in line.strip("│").split("│")]
    assert cells[5:8] == ["7", "0", "3"], cells


def test_unscored_in_compare_and_exports(runs: Runs) -> None:
    out = run_cli("compare", "unscored", "unscored", cwd=runs.folder, env=WIDE).stdout
    failed = next(x for x in out.splitlines() if x.startswith("│ Failed cases"))
    unscored = next(x for x in out.splitlines() if x.startswith("│ Unscored cases"))
    assert [c.strip() for c in failed.strip("│").split("│")][1:3] == ["0", "0"]
    assert [c.strip() for c in unscored.strip("│").split("│")][1:3] == ["3", "3"]
    done = run_cli("export", "unscored", "--format", "jsonl", "--output", "-", cwd=runs.folder)
    records = [json.loads(x) for x in done.stdout.splitlines() if x.strip()]
    skipped = [r for r in records if r["status"] == "unscored"]
    assert len(skipped) == 3 and all(r["outcome"] == "skipped" for r in skipped)
    assert all(UNSCORED_REASON in r["reason"] for r in skipped)
    assert all(r["error"] is None for r in skipped)  # not an error: why is in the reason
    assert not any(r["outcome"] == "error" for r in records)


def test_score_and_interval_agree(runs: Runs, viewer: str) -> None:
    term = _terminal(runs.out["unscored"], "Tasks: http:support-bot judged by none")
    estimate, low, high = _interval(term["Mean score (0-5) [95% CI]"])
    mean = _json(runs.folder / "results" / "unscored" / "tasks_results.json")["overall_mean"]
    assert isinstance(mean, dict)
    assert f"{mean['estimate']:.2f}" == estimate == "3.00"
    if low == "too few":  # no bounds anywhere, and the same n
        assert mean["too_few"] is True and mean["low"] is None and str(mean["n"]) == high
    else:
        assert (f"{mean['low']:.2f}", f"{mean['high']:.2f}") == (low, high)
    for page in (_report(runs, "unscored"), _get(viewer + "/runs/unscored")):
        (tile,) = [v for k, v in _tiles(page).items() if k.startswith("Judge score")]
        assert _interval(tile) == (estimate, low, high)
    runs_out = run_cli("runs", cwd=runs.folder, env=WIDE).stdout
    line = next(x for x in runs_out.splitlines() if x.startswith("│ unscored"))
    assert [c.strip() for c in line.strip("│").split("│")][8] == estimate
    listed = next(r for r in _table_after(_get(viewer + "/"), "All runs") if r[0] == "unscored")
    assert listed[9] == estimate  # Name, Date, Kind, Suites, Targets, Status, Cases, ..., Score


# --- point 2: the cost the system reports -----------------------------------------------------
def test_reported_cost_is_the_cost_without_a_price(runs: Runs, viewer: str) -> None:
    term = _terminal(runs.out["unscored"], "Tasks: http:support-bot judged by none")
    total = 7 * BOT_COST
    assert term["Cost"] == f"{total:.4f}"
    assert "no price: the cost shown is the system's" in term["Cost the system reports"]
    assert "cost is unknown" not in runs.out["unscored"]
    results = _json(runs.folder / "results" / "unscored" / "tasks_results.json")
    assert results["cost"] == pytest.approx(total)
    assert results["candidate_cost"] == pytest.approx(total)
    for page in (_report(runs, "unscored"), _get(viewer + "/runs/unscored")):
        assert _number(_tiles(page)["Total cost"]) == pytest.approx(total, abs=1e-4)
        (row,) = _table_after(page, "<h2>Cost per model</h2>")
        assert row[0] == "http:support-bot"
        assert [_number(x) for x in row[1:4]] == [7, 7 * BOT_TOKENS[0], 7 * BOT_TOKENS[1]]
        assert _number(row[4]) == pytest.approx(total, abs=1e-4)


def test_reported_cost_beside_a_price_disagrees(runs: Runs) -> None:
    out = runs.out["judged"]
    term = _terminal(out, "Tasks: http:support-bot-priced judged by http:judge-bot")
    ours = 7 * (BOT_TOKENS[0] * 0.5 + BOT_TOKENS[1] * 1.5) / 1e6
    assert f"{7 * BOT_COST:.6g} over 7 call(s)" in term["Cost the system reports"]
    assert f"Eunomia's {ours:.6g}: DIFFERS on 7 call(s)" in term["Cost the system reports"]
    assert "differs from Eunomia's on 7 of 7 call(s)" in " ".join(out.split())
    reported = _json(runs.folder / "results" / "judged" / "http_support-bot-priced"
                     / "tasks_results.json")["reported_cost"]
    assert isinstance(reported, dict)
    assert reported["by_system"] == pytest.approx(7 * BOT_COST)
    assert reported["computed"] == pytest.approx(ours)
    assert reported["disagreements"] == 7


# --- point 3: the judge's calls are the judge's --------------------------------------------
def test_judge_calls_are_not_the_candidates(runs: Runs, viewer: str) -> None:
    out = runs.out["judged"]
    bot = _terminal(out, "Tasks: http:support-bot-priced judged by http:judge-bot")
    empty = _terminal(out, "Tasks: baseline:empty judged by http:judge-bot")
    assert empty["Candidate tokens (in/out)"] == "0/0"
    assert bot["Candidate tokens (in/out)"] == f"{7 * BOT_TOKENS[0]}/{7 * BOT_TOKENS[1]}"
    judge_in = sum(int(t["Judge tokens (in/out)"].split("/")[0]) for t in (bot, empty))
    judge_out = sum(int(t["Judge tokens (in/out)"].split("/")[1]) for t in (bot, empty))
    assert (judge_in, judge_out) == (runs.judge_calls * JUDGE_TOKENS[0],
                                     runs.judge_calls * JUDGE_TOKENS[1])
    judge_cost = sum(_number(t["Candidate cost / judge cost"].split("/")[1])
                     for t in (bot, empty))
    for page in (_report(runs, "judged"), _get(viewer + "/runs/judged")):
        rows = {r[0]: r for r in _table_after(page, "<h2>Cost per model</h2>")}
        assert [_number(x) for x in rows["baseline:empty"][1:4]] == [0, 0, 0]
        assert [_number(x) for x in rows["http:judge-bot (judge)"][1:4]] == \
            [runs.judge_calls, judge_in, judge_out]
        assert [_number(x) for x in rows["http:support-bot-priced"][1:4]] == \
            [7, 7 * BOT_TOKENS[0], 7 * BOT_TOKENS[1]]
        assert _number(rows["http:support-bot-priced"][4]) == \
            pytest.approx(_number(bot["Candidate cost / judge cost"].split("/")[0]), abs=1e-4)
        tiles = _tiles(page)
        assert _number(tiles["of which the judge"]) == pytest.approx(judge_cost, abs=1e-4)
        # one score per model, each the terminal's with its interval: never one mean of both
        scores = {k: v for k, v in tiles.items() if k.startswith("Judge score")}
        assert set(scores) == {"Judge score 0-5 (95% CI) · http:support-bot-priced",
                               "Judge score 0-5 (95% CI) · baseline:empty"}
        assert _interval(scores["Judge score 0-5 (95% CI) · baseline:empty"]) == \
            _interval(empty["Mean score (0-5) [95% CI]"])
        assert _interval(scores["Judge score 0-5 (95% CI) · http:support-bot-priced"]) == \
            _interval(bot["Mean score (0-5) [95% CI]"])
    # the lists of runs give no one score for two models
    line = next(x for x in run_cli("runs", cwd=runs.folder, env=WIDE).stdout.splitlines()
                if x.startswith("│ judged"))
    assert "per target" in line
    listed = next(r for r in _table_after(_get(viewer + "/"), "All runs") if r[0] == "judged")
    assert listed[9] == "per target"
