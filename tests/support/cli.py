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
