"""Where ``eunomia export`` writes: the run's CSV/JSON files under a folder, a format of
:data:`eunomia.exports.FORMATS` in one file. A path given for one never makes the other:
``--format csv --output exp.csv`` is refused (it made a folder named ``exp.csv``), and a
folder given for one file gets the file inside it."""

from __future__ import annotations

import os
from pathlib import Path

from eunomia.errors import EunomiaError
from eunomia.exports import FORMATS

FILE_SUFFIXES = frozenset({".csv", ".tsv", ".json", ".jsonl", ".ndjson", ".xml", ".md",
                           ".txt", ".html", ".xlsx", ".parquet"})
"""Endings that name a file, never a folder to make."""

STDOUT = "-"


def _is_folder(output: str) -> bool:
    """An existing folder, or a path written as one (ending in a separator)."""
    return Path(output).is_dir() or output.endswith(("/", os.sep))


def csv_folder(output: str | None, results_dir: Path) -> Path:
    """The folder ``--format csv`` writes its files under (``<folder>/<run>/...``): the
    results folder, or ``output`` — refused when it names a file."""
    if output is None:
        return results_dir
    path = Path(output)
    if output == STDOUT:
        raise EunomiaError("--output -: --format csv writes a folder of files, not standard "
                           "output; give a folder, or --format jsonl for standard output")
    if not _is_folder(output) and (path.exists() or path.suffix.lower() in FILE_SUFFIXES):
        raise EunomiaError(
            f"--output {output}: names a file, and --format csv writes a folder of files "
            "(<folder>/<run>/: each suite's tables/*.csv and JSON results); give a folder, "
            f"or --format jsonl --output {path.with_suffix('.jsonl')} for every case in one "
            "file")
    return path


def format_file(fmt: str, output: str | None, run: str, results_dir: Path) -> Path:
    """The file ``--format fmt`` writes: ``output`` ('-': standard output); in a folder
    given, the format's file under ``<folder>/<run>/`` as in the results folder (the
    default)."""
    name = FORMATS[fmt].file
    if output is None:
        return results_dir / run / name
    if output != STDOUT and _is_folder(output):
        return Path(output) / run / name
    return Path(output)
