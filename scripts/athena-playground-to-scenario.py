#!/usr/bin/env python3
"""Replaced by ``eunomia import athena SOURCE --output DEST``: this forwards to it.

    python3 scripts/athena-playground-to-scenario.py SOURCE DEST [--force] [...]

is ``eunomia import athena SOURCE --output DEST [--force] [...]`` (the other options are the
command's: --server-url, --example-solution, --source-label). Kept only until the last caller
(tests/peers/test_athena_quirks.py) calls the command itself; then delete it.
"""

from __future__ import annotations

import subprocess
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0].startswith("-") or argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    source, dest, *rest = argv
    return subprocess.call([sys.executable, "-m", "eunomia", "import", "athena", source,
                            "--output", dest, *rest])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
