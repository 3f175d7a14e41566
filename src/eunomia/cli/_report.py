"""``eunomia report``: one self-contained HTML page of a run, or of two runs compared."""

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import console
from eunomia.cli._store_cmds import _open


def report(
    run: Annotated[str, typer.Argument(help="Run name.")],
    results: Annotated[Path, typer.Option(help="Results folder.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite).", show_default="<results>/eunomia.db")] = None,
    output: Annotated[Path | None, typer.Option(
        help="HTML file to write.",
        show_default="<results>/<run>/report.html, or compare_<run_b>.html with --compare",
    )] = None,
    compare: Annotated[str | None, typer.Option(
        "--compare", help="Compare with this run (B); deltas are B - RUN.")] = None,
    compare_store: Annotated[Path | None, typer.Option(
        help="Run store of the --compare run, when it is not the same store.")] = None,
) -> None:
    """Write an HTML report of a run (or two runs compared): one file, works offline."""
    from eunomia.report.html import write_report
    from eunomia.viewer import render_comparison, render_run

    out = console()
    db = _open(results, store)
    db_b = None
    try:
        info = db.require_run(run)
        if compare is None:
            html = render_run(db, info)
            target = output or results / run / defaults.REPORT_FILE
        else:
            db_b = _open(results, compare_store) if compare_store else db
            info_b = db_b.require_run(compare)
            html = render_comparison(db, info, db_b, info_b)
            target = output or results / run / f"compare_{compare}.html"
        write_report(html, target)
    finally:
        if db_b is not None and db_b is not db:
            db_b.close()
        db.close()
    out.print(f"Report: {escape(str(target))}", soft_wrap=True)
    out.print(f"Open {escape(target.resolve().as_uri())}", soft_wrap=True)
