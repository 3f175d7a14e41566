"""The ``eunomia`` command line: one module per command group.

The modules that define commands do without ``from __future__ import annotations``: typer
reads the signature of every command at each start, whatever the command, and compiled and
evaluated each string annotation (23 ms of every start; 4.5 ms with objects). Their names
imported only for type checking are quoted (tests/cli/test_command_signatures.py).
"""

import os
from pathlib import Path
from typing import Annotated

import typer

from eunomia import __version__, defaults
from eunomia.cli import _eval, _judge_check, _run, _store_cmds
from eunomia.cli._compare import compare
from eunomia.cli._import import import_command
from eunomia.cli._label import label
from eunomia.cli._mutate import mutate
from eunomia.cli._report import report
from eunomia.cli._serve_model import serve_model
from eunomia.cli._show import show
from eunomia.cli._validate import validate
from eunomia.cli._view import view

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: rich's help formatting doubles the start-up time
    help="Eunomia: how good, consistent, fast and expensive is your LLM-powered system?",
)
# A new command: a module here with its function (evaluating commands take the shared run
# options with @run_options, cli/_options.py, and call their eunomia.api command), and one
# line below.
app.command()(_run.run)
app.command()(_run.demo)
app.command()(_store_cmds.runs)
app.command()(_store_cmds.export)
app.command("eval")(_eval.eval_command)
app.command("judge-check")(_judge_check.judge_check)
app.command()(compare)
app.command()(report)
app.command()(view)
app.command()(label)
app.command()(validate)
app.command()(show)
app.command()(mutate)
app.command("serve-model")(serve_model)
app.command("import")(import_command)


@app.command("serve-example")
def serve_example(
    host: Annotated[str, typer.Option(help="Address to bind.")] = defaults.EXAMPLE_SERVER_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = defaults.EXAMPLE_SERVER_PORT,
    secret_env: Annotated[str, typer.Option(
        help="If this environment variable is set, require it as Authorization.")
    ] = defaults.ATHENA_SECRET_ENV,
) -> None:
    """Serve the built-in rule-based example feedback module (Athena contract)."""
    from eunomia.example_server import serve_forever

    serve_forever(host, port, os.environ.get(secret_env) or None)


@app.command()
def serve(
    model: Annotated[str, typer.Option(
        help="Model spec, e.g. local, local:qwen2.5-coder-0.5b, openai:gpt-4o-mini.")
    ] = defaults.MODEL_SPEC,
    host: Annotated[str, typer.Option(help="Address to bind.")] = defaults.ENGINE_SERVER_HOST,
    port: Annotated[int, typer.Option(help="Port to listen on.")] = defaults.ENGINE_SERVER_PORT,
    prompt_dir: Annotated[Path | None, typer.Option(
        help="Folder with prompt templates (system.txt, user.txt) overriding the built-in ones.")
    ] = None,
    secret_env: Annotated[str, typer.Option(
        help="If this environment variable is set, require it as Authorization.")
    ] = defaults.ATHENA_SECRET_ENV,
) -> None:
    """Serve the built-in LLM feedback engine as an Athena-compatible module."""
    from eunomia.llm_feedback.server import serve_forever as serve_engine

    serve_engine(model, host, port, os.environ.get(secret_env) or None, prompt_dir)


@app.command()
def version() -> None:
    """Print the version."""
    typer.echo(__version__)
