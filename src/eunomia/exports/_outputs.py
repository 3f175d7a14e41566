"""Result files written piece by piece, atomically: text, CSV tables, JSON with a long list.

Every writer goes through a temporary file renamed into place when complete (a reader never
sees half a file) and names the file in its error. Large exports write as they read, so
memory does not grow with the run.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any, Self

from eunomia.errors import EunomiaError


class Output:
    """A result file written piece by piece through a temporary file, renamed into place
    when complete (like :func:`eunomia.files.write_text_atomic`: a reader never sees half a
    file; an error names the file and leaves the one before as it was)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tmp = path.with_name(path.name + ".tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self.file: IO[str] = self._tmp.open("w", encoding="utf-8")
        except OSError as exc:
            raise self._error(exc) from None

    def _error(self, exc: OSError) -> EunomiaError:
        return EunomiaError(f"cannot write {self.path}: {exc.strerror or exc}")

    def write(self, text: str) -> None:
        try:
            self.file.write(text)
        except OSError as exc:
            raise self._error(exc) from None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, *rest: object) -> None:
        try:
            self.file.close()
            if kind is None:
                os.replace(self._tmp, self.path)
                return
        except OSError as exc:
            raise self._error(exc) from None
        finally:
            if kind is not None or self._tmp.exists():
                self._tmp.unlink(missing_ok=True)


class CsvOutput(Output):
    """A CSV table written row by row."""

    def __init__(self, path: Path, columns: Sequence[str]) -> None:
        super().__init__(path)
        self._writer = csv.DictWriter(self, fieldnames=list(columns), extrasaction="ignore")
        self._writer.writeheader()

    def row(self, row: dict[str, Any]) -> None:
        self._writer.writerow(row)


class JsonList:
    """A JSON list written item by item, as ``json.dumps(items, indent=2)`` would write it
    at ``level`` (levels of nesting, for a list inside an object)."""

    def __init__(self, out: Output, level: int = 0) -> None:
        self.out = out
        self.pad = "  " * (level + 1)
        self.end = "  " * level
        self.count = 0

    def add(self, item: Any) -> None:
        text = json.dumps(item, indent=2).replace("\n", "\n" + self.pad)
        self.out.write(("[\n" if not self.count else ",\n") + self.pad + text)
        self.count += 1

    def close(self) -> None:
        self.out.write("[]" if not self.count else "\n" + self.end + "]")


LIST_HERE = "__eunomia_streamed_list__"


def write_json_streaming(path: Path, data: dict[str, Any], items: Iterable[Any] | None
                          ) -> Path:
    """``json.dumps(data, indent=2)`` written to ``path``; ``items`` (when given) is written
    one at a time where ``data`` holds :data:`LIST_HERE`."""
    text = json.dumps(data, indent=2)
    with Output(path) as out:
        if items is None:
            out.write(text)
            return path
        marker = json.dumps(LIST_HERE)
        at = text.index(marker)
        line = text[text.rfind("\n", 0, at) + 1:at]
        out.write(text[:at])
        listing = JsonList(out, (len(line) - len(line.lstrip(" "))) // 2)
        for item in items:
            listing.add(item)
        listing.close()
        out.write(text[at + len(marker):])
    return path


def write_csv_dicts(path: Path, columns: Sequence[str], rows: Iterable[dict[str, Any]]
                    ) -> Path:
    """A CSV table of ``rows`` (dicts; keys not in ``columns`` are left out), atomically."""
    with CsvOutput(path, columns) as table:
        for row in rows:
            table.row(row)
    return path


def write_csv(path: Path, header: Iterable[str], rows: Iterable[Iterable[str]]) -> None:
    """A CSV table of ``rows`` (lists of cells), written through a temporary file."""
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(header)
        writer.writerows(rows)
    os.replace(tmp, path)
