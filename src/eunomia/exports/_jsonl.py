"""JSON Lines of a run: one :class:`ResultRecord` object per line, per case and repeat.

The format people load into pandas (``pd.read_json(path, lines=True)``) or duckdb
(``read_json_auto``). UTF-8; any character a string holds is escaped as JSON escapes it,
so a line never breaks inside a value.
"""

from __future__ import annotations

from typing import Protocol

from eunomia.exports._records import ResultRecord


class TextSink(Protocol):
    """Where text goes: an :class:`eunomia.exports.Output` or standard output."""

    def write(self, text: str, /) -> object: ...


class JsonlWriter:
    """Writes each record as it comes, one line each."""

    def __init__(self, out: TextSink) -> None:
        self.out = out
        self.count = 0

    def add(self, record: ResultRecord) -> None:
        self.out.write(record.model_dump_json() + "\n")
        self.count += 1

    def close(self) -> None:
        """Nothing to finish: every line is complete when written."""
