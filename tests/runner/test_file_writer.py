"""The background writer of per-case result files: order, errors, waiting at the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from eunomia.errors import EunomiaError
from eunomia.exports import FileWriter


def test_files_are_all_written_when_it_closes(tmp_path: Path) -> None:
    writer = FileWriter()
    for i in range(200):
        writer.write(tmp_path / f"c{i}.json", f"{i}".encode() * 100)
    writer.close()
    assert sorted(int(p.stem[1:]) for p in tmp_path.iterdir()) == list(range(200))
    assert (tmp_path / "c7.json").read_bytes() == b"7" * 100
    writer.close()  # closing twice is harmless


def test_a_failed_write_names_the_file_and_stops_the_writes(tmp_path: Path) -> None:
    writer = FileWriter()
    blocked = tmp_path / "not_a_folder"
    blocked.write_text("x", encoding="utf-8")
    writer.write(blocked / "a.json", b"{}")  # its folder is a file: cannot be written
    with pytest.raises(EunomiaError, match=r"cannot write .*not_a_folder/a\.json"):
        writer.close()
    with pytest.raises(EunomiaError, match="not_a_folder"):
        writer.write(tmp_path / "b.json", b"{}")  # the next write raises it too
    assert not (tmp_path / "b.json").exists()


def test_nothing_written_starts_no_thread(tmp_path: Path) -> None:
    writer = FileWriter()
    writer.close()
    assert writer._thread is None
