"""``eunomia label``: label a scenario's cases (or a judged task run's answers) in a browser."""

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from eunomia import defaults
from eunomia.cli._common import console
from eunomia.errors import EunomiaError


def _expected(value: str) -> str | list[str]:
    names = [n.strip() for n in value.split(",") if n.strip()]
    if not names:
        raise EunomiaError("--expected needs 'majority' or labellers' names")
    return names[0] if len(names) == 1 else names


def label(
    what: Annotated[str, typer.Argument(
        help="A scenario folder (its manifest.yml), or the name of a judged task run in "
             "the store.", metavar="SCENARIO|RUN")],
    labeller: Annotated[str | None, typer.Option(
        help="Label as NAME, whoever opens the page. Without it, each browser is asked for "
             "a name once (kept in a cookie), so several tutors can share one server.")] = None,
    expected: Annotated[str | None, typer.Option(
        help="Whose labels count as a case's expected instructions: 'majority' (the "
             "default), a labeller, or labellers separated by commas (the first with a "
             "complete label wins); saved in labels.yml.")] = None,
    results: Annotated[Path, typer.Option(
        help="Results folder (for a RUN).")] = defaults.RESULTS_DIR,
    store: Annotated[Path | None, typer.Option(
        help="Run store (SQLite, for a RUN).", show_default="<results>/eunomia.db")] = None,
    host: Annotated[str, typer.Option(
        help="Address to bind; anything but a loopback address lets everyone who can reach "
             "it read the cases and write labels.")] = defaults.VIEWER_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = defaults.LABEL_PORT,
    target: Annotated[str | None, typer.Option(
        help="The candidate whose answers to score (for a RUN of several).")] = None,
) -> None:
    """Label cases in a browser, into the suite's own files: a scenario's expected
    instructions (labels.yml beside its manifest), with the submission drawn beside the
    example solution, progress and the labellers' agreement; or a judged task run's answers
    with a 0-5 score each (labels.yml beside its suites: their human_score)."""
    from eunomia.labelling import Book, RunBook, create_app, serve_forever, set_expected
    from eunomia.scenarios._labels import LABELLER_RE, labels_path
    from eunomia.viewer._app import is_loopback

    if not 0 <= port <= 65535:
        raise EunomiaError(f"--port must be between 0 and 65535, got {port}")
    name = (labeller or "").strip()
    if labeller is not None and LABELLER_RE.fullmatch(name) is None:
        raise EunomiaError(f"--labeller {labeller!r}: use letters, digits, space and . @ _ - "
                           "(at most 40 characters)")
    folder = Path(what)
    book: Book | RunBook
    if (folder / defaults.MANIFEST_FILE).is_file():
        book = Book(folder)
        if expected is not None:
            set_expected(labels_path(folder), _expected(expected))
        where = f"{folder}: {book.read().labelled} of {len(book.cases)} cases labelled; " \
                f"labels go to {book.path}"
    elif folder.exists():
        raise EunomiaError(f"{what} is not a scenario folder (no {defaults.MANIFEST_FILE} in it); "
                           "a judged task run is labelled by its run name (eunomia runs)")
    else:
        if expected is not None:
            raise EunomiaError("--expected is for a scenario; for a run, set human_score in "
                               "the labels.yml beside its suites (mean, or labellers' names)")
        path = store or results / defaults.STORE_FILE
        if not path.is_file():
            raise EunomiaError(f"{what}: no scenario folder of that name, and no run store at "
                               f"{path} to find a run of that name in (--results, --store)")
        book = RunBook(path, what, target)
        where = f"run {book.run} (candidate {book.target}): {book.read().labelled} of " \
                f"{len(book.answers)} answers scored; scores go to " \
                + ", ".join(str(p) for p in book.paths)
    out = console()
    if not is_loopback(host):
        out.print(f"[yellow]warning:[/] serving on {escape(host)}: anyone who can reach it "
                  "can read the cases and write labels")

    def announce(url: str) -> None:
        out.print(f"Labelling {escape(where)}", soft_wrap=True)
        out.print(f"Open {escape(url)} (Ctrl-C to stop)", soft_wrap=True)

    try:
        serve_forever(lambda loopback: create_app(book, labeller=name, loopback_only=loopback),
                      host, port, announce)
    except OSError as exc:
        raise EunomiaError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
