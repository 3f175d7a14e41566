"""``eunomia compare RUN_A RUN_B``: what got better or worse, and is it significant."""

import json
import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import console
from eunomia.cli._options import output_options
from eunomia.errors import EunomiaError
from eunomia.exports import FORMATS

if TYPE_CHECKING:
    from eunomia.store import RunStore
from eunomia.files import write_text_atomic


def _store_at(path: Path) -> "RunStore":
    from eunomia.store import RunStore

    if not path.is_file():
        raise EunomiaError(f"no run store at {path}; give --results or --store")
    return RunStore(path)


def _write_json(path: Path, data: object) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if str(path) == "-":
        typer.echo(text, nl=False)
        return
    write_text_atomic(path, text)


@output_options()
def compare(
    run_a: Annotated[str, typer.Argument(help="The baseline run.")],
    run_b: Annotated[str, typer.Argument(help="The run compared with it.")],
    results: Annotated[Path, typer.Option(help="Results folder.")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite) of run A (and of B unless --store-b).",
        show_default="<results>/eunomia.db")] = None,
    store_b: Annotated[Path | None, typer.Option(
        "--store-b", help="Run store of run B, when it is another file.",
        show_default="the store of A")] = None,
    alpha: Annotated[float, typer.Option(
        help="Significance level of the paired tests.")] = defaults.COMPARE_ALPHA,
    max_new_failures: Annotated[int, typer.Option(
        help="Cases scored in A that may fail in B before it counts as a regression.")
    ] = defaults.COMPARE_MAX_NEW_FAILURES,
    target_a: Annotated[str | None, typer.Option(
        "--target-a", help="Compare only this target of run A.")] = None,
    target_b: Annotated[str | None, typer.Option(
        "--target-b", help="Compare only this target of run B.")] = None,
    effect: Annotated[float | None, typer.Option(
        help="Also say how many cases detecting a change of this size takes (score units: "
             "points for scenarios).", show_default=False)] = None,
    fail_on_regression: Annotated[bool, typer.Option(
        "--fail-on-regression", help="Exit with code 1 when B is significantly worse (CI gate).")
    ] = False,
    json_file: Annotated[Path | None, typer.Option(
        "--json", help="Also write the whole comparison as JSON to this file ('-': standard "
                       "output, instead of the tables).")] = None,
    *,
    outputs: dict[str, Path],
) -> None:
    """Compare run B with run A (the baseline) case by case: paired tests and a verdict.

    Score: sign-flip test, bootstrap interval. Detection, full correctness, failures:
    McNemar. Cost, latency.

    Regression: B significantly worse on score or detection, or > --max-new-failures.
    Cases scored in A and unscored in B (newly unscored): a warning, never a regression.

    Exit codes: 0 compared; 1 regression with --fail-on-regression; 2 usage error.
    """
    from eunomia.compare import comparison_to_json
    from eunomia.report import print_comparison
    from eunomia.run import ci_outputs, write_comparison_outputs
    from eunomia.viewer import compare_stored

    files = ci_outputs(pass_score=None, **outputs)
    if json_file is not None and str(json_file) != "-":
        for name, path in files.files.items():
            if path.absolute() == json_file.absolute():
                raise EunomiaError(f"--json and {FORMATS[name].option} name the same file "
                                   f"{path}")
    path_a = store or results / defaults.STORE_FILE
    db_a = _store_at(path_a)
    try:
        db_b = db_a if store_b is None or store_b.resolve() == path_a.resolve() \
            else _store_at(store_b)
        try:
            info_a, info_b = db_a.require_run(run_a), db_b.require_run(run_b)
            comparison = compare_stored(db_a, info_a, db_b, info_b, alpha=alpha,
                                      max_new_failures=max_new_failures,
                                      target_a=target_a, target_b=target_b, effect=effect)
        finally:
            if db_b is not db_a:
                db_b.close()
    finally:
        db_a.close()
    to_stdout = json_file is not None and str(json_file) == "-"
    if not to_stdout:
        print_comparison(console(), comparison)
    if json_file is not None:
        _write_json(json_file, comparison_to_json(comparison))
    report = results / run_a / f"compare_{run_b}.html"
    command = ["eunomia", "report", run_a, "--compare", run_b, "--results", str(results)]
    command += [*(["--store", str(store)] if store else []),
                *(["--compare-store", str(store_b)] if store_b else [])]
    for path in write_comparison_outputs(comparison, files, report, shlex.join(command)):
        if not to_stdout:
            console().print(f"Written: {escape(str(path))}", soft_wrap=True)
    if fail_on_regression and comparison.verdict.regression:
        raise typer.Exit(1)
