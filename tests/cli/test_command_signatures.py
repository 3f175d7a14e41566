"""The commands' signatures hold objects, not strings.

typer reads the signature of every command at each start of ``eunomia``, whatever the command
run. A string annotation (what ``from __future__ import annotations`` makes of every one) is
compiled and evaluated there: ~280 of them cost 16 ms of every command (23 → 7 ms to build
the command line; ``eunomia --help`` 0.120 → 0.106 s).
"""

from __future__ import annotations

import inspect

import typer.main

from eunomia.cli._app import app


def test_no_command_annotation_is_a_string() -> None:
    found = []
    for info in app.registered_commands:
        function = info.callback
        assert function is not None
        signature = inspect.signature(function)
        names = [name for name, p in signature.parameters.items()
                 if isinstance(p.annotation, str)]
        if isinstance(signature.return_annotation, str):
            names.append("return")
        if names:
            found.append(f"{function.__module__}.{function.__name__}: {names}")
    assert found == []


def test_the_command_line_has_every_command() -> None:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.main.TyperGroup)
    assert {"run", "demo", "runs", "export", "eval", "judge-check", "compare", "report", "view",
            "validate", "show", "serve-model", "serve-example", "serve"} <= set(group.commands)
