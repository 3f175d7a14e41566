"""The run options every evaluating command shares, declared once.

``@run_options(...)`` adds them to a command's signature (what typer reads) and hands the
command one :class:`eunomia.run.RunRequest` parameter, ``run``, with them all (and which
were given on the command line: a matrix file does not replace those). The CI outputs'
options (``--junit FILE``...) are the output formats' that declare one
(``eunomia.exports.FORMATS``); ``@output_options()`` gives ``compare`` those it writes. Each
command's words
(``target``/``model``/``judge``, ``scenario``/``suite``) fill the help texts; a command
without an option names it in ``without``.

A new evaluating command: ``@run_options(COMMAND_WORDS)`` over a function whose own
parameters are its kind's, ending in ``run: RunRequest``; it builds its kind's request and
calls its ``eunomia.api`` command (see ``_eval.py``).
"""

import functools
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NamedTuple, TypeVar

import typer

from eunomia import defaults
from eunomia.exports import option_formats  # the registry alone: no writer is loaded

F = TypeVar("F", bound=Callable[..., None])


class Words(NamedTuple):
    """How a command names what it evaluates, for its options' help."""

    system: str
    """Who answers: ``target``, ``model``, ``judge``."""
    systems: str
    suite: str
    """What holds the cases: ``scenario``, ``suite``."""
    names: str
    """What ``--case`` matches."""
    run: str = "run"
    """What ``--resume`` continues."""
    passes: str = ""
    """When a case passes, ending the help of the CI outputs' options."""
    retried: str = "connection errors, timeouts, 429, 502-504"
    slow: str = ""
    """Beside ``--concurrency``: who answers one at a time."""


RUN_WORDS = Words("target", "target", "scenario", "case or scenario/case",
                  passes=" Passing: fully correct, with every credit expectation met.")
EVAL_WORDS = Words("model", "models", "suite", "case, suite/case or category/case",
                   passes=" Passing: a mean judge score of at least --pass-score.",
                   retried="connection errors, timeouts, 429, 502-504, an unusable judge "
                           "answer", slow=" (1 with a local model)")
CHECK_WORDS = Words("judge", "judges", "suite", "case, suite/case or category/case",
                    run="check", retried="also for an unusable judge answer",
                    slow=" (1 with a local model)")


def _shared(w: Words) -> dict[str, tuple[Any, Any]]:
    """Each shared option: its annotation (type and typer.Option) and default, in the order
    of ``--help``."""
    return {
        "run_name": (Annotated[str | None, typer.Option(
            help=f"Name of this {w.run} (results/<run-name>/...)"
                 + (". Asked for at a terminal." if w is RUN_WORDS else "."))], None),
        "results": (Annotated[Path, typer.Option(help="Folder for results.")],
                    defaults.RESULTS_DIR),
        "store": (Annotated[Path | None, typer.Option(
            help="Run store (SQLite).", show_default="<results>/eunomia.db")], None),
        "case": (Annotated[list[str] | None, typer.Option(
            "--case", help=f"Only cases matching this glob ({w.names}); repeatable.")], None),
        "max_cases": (Annotated[int | None, typer.Option(
            help=f"At most this many cases per {w.suite}.")], None),
        "repeat": (Annotated[int, typer.Option(
            help="Run every case this many times (consistency across repeats).")], 1),
        "concurrency": (Annotated[int, typer.Option(
            help=f"Requests in flight at once{w.slow}.")], defaults.CONCURRENCY),
        "timeout": (Annotated[float, typer.Option(help="Per-request timeout in seconds.")],
                    defaults.REQUEST_TIMEOUT_S),
        "retries": (Annotated[int, typer.Option(
            help=f"Retries after a failed attempt ({w.retried}"
                 + ("; 500 only with --retry-500)." if w is not CHECK_WORDS else ")."))],
            defaults.RETRIES),
        "retry_500": (Annotated[bool, typer.Option(
            "--retry-500", help="Also retry HTTP 500. Off by default: a 500 is mostly "
                                "deterministic, and each attempt may spend LLM tokens the "
                                "system never reports.")], False),
        "max_response_mb": (Annotated[float, typer.Option(
            help=f"The largest answer read from a {w.system}, in megabytes: past it the case "
                 "fails, naming the limit (docs/robustness.md).")],
            defaults.MAX_RESPONSE_BYTES / 1_000_000),
        "resume": (Annotated[str | None, typer.Option(
            help=f"Continue an interrupted {w.run}: what is finished is not asked again.")],
            None),
        "retry_failed": (Annotated[bool, typer.Option(
            help="With --resume, also run again the cases that failed or were unscored.")],
            False),
        "no_cache": (Annotated[bool, typer.Option(
            "--no-cache", help=f"Ask the {w.systems} again even for answers already "
                               "cached.")], False),
        "cache": (Annotated[bool, typer.Option(
            "--cache", help="Also reuse cached answers of systems reached over HTTP "
                            "(Athena, http:<name>) from earlier runs; by default they are "
                            "asked again, since the system behind a URL may have changed.")],
            False),
        "executor": (Annotated[str | None, typer.Option(
            help=f"Where the {w.system} calls are made: local (this process) or ray (a Ray "
                 "cluster; pip install 'eunomia[ray]'). --resume keeps the run's own.",
            show_default="local")], None),
        "ray_address": (Annotated[str | None, typer.Option(
            help="Address of the Ray cluster for --executor ray (default: start a local "
                 "one, or RAY_ADDRESS).")], None),
    }


def _output_options(comparison: bool = False, note: str = "") -> dict[str, tuple[Any, Any]]:
    """One option per output format that declares one (:data:`eunomia.exports.FORMATS`:
    ``--junit FILE``...), named by its :attr:`~eunomia.exports.Format.field`; ``note`` ends
    each help."""
    return {f.field: (Annotated[Path | None, typer.Option(
        f.option, help=(f.comparison_help if comparison else f.option_help) + note,
        show_default=False)], None) for f in option_formats(comparison)}


SCALE = ("repeat", "retry_500", "cache", "executor", "ray_address")
"""The shared options a judge check goes without (and without the CI outputs)."""


def given(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` (its parameter name) was given on the command line (or by its
    environment variable), rather than left at its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def run_options(words: Words, without: tuple[str, ...] = (),
                outputs: bool = True) -> Callable[[F], F]:
    """Add the shared run options (but ``without``; the CI outputs' when ``outputs``) to a
    command; it gets them as ``run``."""
    shared = {name: spec for name, spec in _shared(words).items() if name not in without}
    files = _output_options(note=words.passes) if outputs else {}

    def request(context: typer.Context, values: dict[str, Any]) -> object:
        values["case"] = tuple(values.get("case") or ())
        given_files = {name: path for name in files if (path := values.pop(name)) is not None}
        explicit = frozenset(n for n in context.params if given(context, n))
        from eunomia.run import RunRequest  # the engine loads when a command runs

        return RunRequest(**values, output_files=given_files, explicit=explicit)

    return _adding({**shared, **files}, "run", request)


def output_options() -> Callable[[F], F]:
    """Add ``compare``'s CI outputs (a format with a comparison writer: an option each) to a
    command; it gets the files given as ``outputs`` (``{"junit": Path(...)}``)."""
    files = _output_options(comparison=True)
    return _adding(files, "outputs", lambda _, values: {
        name: path for name, path in values.items() if path is not None})


def _adding(options: dict[str, tuple[Any, Any]], name: str,
            build: Callable[[typer.Context, dict[str, Any]], object]) -> Callable[[F], F]:
    """Add ``options`` (annotation and default by parameter name) to a command's signature;
    it gets ``build(context, their values)`` as its parameter ``name``."""

    def decorate(command: F) -> F:
        signature = inspect.signature(command)
        own = [p for p in signature.parameters.values() if p.name != name]
        takes_ctx = any(p.name == "ctx" for p in own)
        ctx = [] if takes_ctx else [inspect.Parameter(
            "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
        added = [inspect.Parameter(option, inspect.Parameter.KEYWORD_ONLY, default=default,
                                   annotation=annotation)
                 for option, (annotation, default) in options.items()]

        @functools.wraps(command)
        def adapted(**kwargs: Any) -> None:
            context: typer.Context = kwargs["ctx"] if takes_ctx else kwargs.pop("ctx")
            values = {option: kwargs.pop(option) for option in options}
            command(**kwargs, **{name: build(context, values)})

        parameters = [*ctx, *own, *added]
        adapted.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=parameters)
        # what typer evaluates: objects, not the command's own ``run: "RunRequest"``
        adapted.__annotations__ = {p.name: p.annotation for p in parameters}
        return adapted  # type: ignore[return-value]

    return decorate
