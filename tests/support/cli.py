"""Run the ``eunomia`` command line in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any


def cli_env(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """This process's environment without pytest's variables, plain output, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.update({"NO_COLOR": "1", "PYTHONIOENCODING": "utf-8"})
    env.update(extra or {})
    return env


def run_cli(*args: str | Path, cwd: Path, env: Mapping[str, str] | None = None,
            stdin: Any = subprocess.DEVNULL, timeout: float = 60
            ) -> subprocess.CompletedProcess[str]:
    """``python -m eunomia ARGS`` in ``cwd``; ``env`` adds variables to :func:`cli_env`."""
    return subprocess.run(
        [sys.executable, "-m", "eunomia", *map(str, args)], cwd=cwd, env=cli_env(env),
        stdin=stdin, capture_output=True, text=True, timeout=timeout, check=False,
    )


def run_statuses(text: str) -> dict[str, str]:
    """Run name -> Status cell of ``eunomia runs`` (a cell's lines joined)."""
    rows: list[list[str]] = []
    header: list[str] = []
    for line in text.splitlines():
        if line.startswith("┃"):
            header = [c.strip() for c in line.strip("┃").split("┃")]
        elif line.startswith("│"):
            cells = [c.strip() for c in line.strip("│").split("│")]
            if cells[0] or not rows:
                rows.append(cells)
            else:  # the next line of the same row
                rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells, strict=True)]
    name, status = header.index("Name"), header.index("Status")
    return {r[name]: r[status] for r in rows}
