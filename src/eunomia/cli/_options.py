"""The run options every evaluating command shares, declared once.

``@run_options(...)`` adds them to a command's signature (what typer reads) and hands the
command one :class:`eunomia.run.RunRequest` parameter, ``run``, with them all (and which
were given on the command line: a matrix file does not replace those). Each command's words
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
    """When a JUnit test case fails."""
    retried: str = "connection errors, timeouts, 429, 502-504"
    slow: str = ""
    """Beside ``--concurrency``: who answers one at a time."""


RUN_WORDS = Words("target", "target", "scenario", "case or scenario/case",
                  passes="failed when the case is not fully correct, an error when it failed")
EVAL_WORDS = Words("model", "models", "suite", "case, suite/case or category/case",
                   passes="failed when its score is below --pass-score, an error when it "
                          "failed, skipped when the judge could not score it",
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
        "junit": (Annotated[Path | None, typer.Option(
            help=f"Also write JUnit XML here: a test case per case, repeat and {w.system}, "
                 f"{w.passes}.", show_default=False)], None),
        "summary_md": (Annotated[Path | None, typer.Option(
            help="Also write a Markdown summary here (appended to $GITHUB_STEP_SUMMARY too "
                 "when that is set).", show_default=False)], None),
        "jsonl": (Annotated[Path | None, typer.Option(
            help=f"Also write JSON Lines here: one object per case, repeat and {w.system} "
                 "(docs/ci.md).", show_default=False)], None),
    }


CI_AND_SCALE = ("repeat", "retry_500", "cache", "executor", "ray_address", "junit",
                "summary_md", "jsonl")
"""The shared options a judge check goes without."""


def given(ctx: typer.Context, name: str) -> bool:
    """Whether option ``name`` (its parameter name) was given on the command line (or by its
    environment variable), rather than left at its default."""
    source = ctx.get_parameter_source(name)
    return source is not None and source.name in ("COMMANDLINE", "ENVIRONMENT")


def run_options(words: Words, without: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Add the shared run options (but ``without``) to a command; it gets them as ``run``."""
    shared = {name: spec for name, spec in _shared(words).items() if name not in without}

    def decorate(command: F) -> F:
        signature = inspect.signature(command)
        own = [p for p in signature.parameters.values() if p.name != "run"]
        takes_ctx = any(p.name == "ctx" for p in own)
        ctx = [] if takes_ctx else [inspect.Parameter(
            "ctx", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=typer.Context)]
        added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default,
                                   annotation=annotation)
                 for name, (annotation, default) in shared.items()]

        @functools.wraps(command)
        def with_run(**kwargs: Any) -> None:
            context: typer.Context = kwargs["ctx"] if takes_ctx else kwargs.pop("ctx")
            values = {name: kwargs.pop(name) for name in shared}
            values["case"] = tuple(values.get("case") or ())
            explicit = frozenset(n for n in context.params if given(context, n))
            from eunomia.run import RunRequest  # the engine loads when a command runs

            command(**kwargs, run=RunRequest(**values, explicit=explicit))

        parameters = [*ctx, *own, *added]
        with_run.__signature__ = signature.replace(  # type: ignore[attr-defined]
            parameters=parameters)
        # what typer evaluates: objects, not the command's own ``run: "RunRequest"``
        with_run.__annotations__ = {p.name: p.annotation for p in parameters}
        return with_run  # type: ignore[return-value]

    return decorate
