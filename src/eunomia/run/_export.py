"""The end of a run, the same for every kind: result files, summaries, the leaderboard."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from eunomia.files import write_text_atomic
from eunomia.kinds import Exported, Item, Kind, LiveExport, Summary, kind_named
from eunomia.report import LeaderboardRow, print_leaderboard, rank, write_leaderboard
from eunomia.store import RunInfo, RunStore

RUN_FILE = "run.json"


def write_run_file(store: RunStore, run: RunInfo, folder: Path) -> Path:
    """``results/<run>/run.json``: what the run was, its settings and its totals."""
    totals = store.run_totals(run)
    data = {
        "run_name": run.name, "kind": run.kind, "status": run.status, "created": run.created,
        "finished": run.finished, "targets": run.targets, "settings": run.settings,
        "eunomia_version": run.eunomia_version, "store": str(store.path),
        "suites": [s.name for s in store.suites(run)],
        "cases": totals.cases, "scored_cases": totals.scored, "failed_cases": totals.failed,
        "unscored_cases": totals.unscored, "invalid_cases": totals.invalid,
        "mean_score": totals.mean_score, "cost": totals.cost,
    }
    return write_text_atomic(folder / RUN_FILE, json.dumps(data, indent=2))


def leaderboard_rows(kind: Kind[Summary], run: RunInfo,
                     exported: Sequence[Exported[Summary]]) -> list[LeaderboardRow]:
    """One ranked row per target of a run with several targets; none otherwise."""
    if len(run.targets) < 2:
        return []
    return rank([kind.leaderboard_row(t, [e for e in exported if e.target == t])
                 for t in run.targets])


def finish_files(store: RunStore, run: RunInfo, results_dir: Path, kind: Kind[Summary],
                 live: LiveExport[Item, Summary] | None
                 ) -> tuple[list[Exported[Summary]], list[LeaderboardRow]]:
    """Finish the files written as cases finished (``live``), or write them all from the
    store; then ``run.json`` and, with several targets, ``leaderboard.csv`` (its rows are
    returned with the exported results)."""
    exported = live.finish(run) if live is not None else kind.export(store, run, results_dir)
    folder = results_dir / run.name
    write_run_file(store, run, folder)
    rows = leaderboard_rows(kind, run, exported)
    if rows:
        write_leaderboard(folder, rows, kind.columns)
    return exported, rows


def export_run(store: RunStore, run: RunInfo, results_dir: Path) -> list[Exported[object]]:
    """Write every result file of a stored run again (``eunomia export RUN``)."""
    return finish_files(store, run, results_dir, kind_named(run.kind), None)[0]


def print_results(console: Console, kind: Kind[Summary], exported: Sequence[Exported[Summary]],
                  rows: Sequence[LeaderboardRow]) -> None:
    """Each summary, then the leaderboard of a run with several targets."""
    for e in exported:
        kind.print_summary(console, e)
        for note in e.notes:
            console.print(escape(note), soft_wrap=True)
        for warning in e.warnings:
            console.print(f"[bold red]warning:[/] {escape(warning)}", soft_wrap=True)
    if rows:
        print_leaderboard(console, rows, kind.columns)
