"""The writer of per-case result files: on the caller's thread while writing is fast, on a
background thread once it is slow; order, errors, waiting at the end."""

from __future__ import annotations

from pathlib import Path

import pytest

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.exports import FileWriter


@pytest.mark.parametrize("slow_after_s", [1.0, 0.0])
def test_files_are_all_written_when_it_closes(tmp_path: Path, slow_after_s: float,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "FILE_WRITE_INLINE_MAX_S", slow_after_s)
    writer = FileWriter()
    for i in range(200):
        writer.write(tmp_path / f"c{i}.json", f"{i}".encode() * 100)
    writer.close()
    assert sorted(int(p.stem[1:]) for p in tmp_path.iterdir()) == list(range(200))
    assert (tmp_path / "c7.json").read_bytes() == b"7" * 100
    writer.close()  # closing twice is harmless


@pytest.mark.parametrize("slow_after_s", [1.0, 0.0])
def test_a_failed_write_names_the_file_and_stops_the_writes(
        tmp_path: Path, slow_after_s: float, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "FILE_WRITE_INLINE_MAX_S", slow_after_s)
    writer = FileWriter()
    writer.write(tmp_path / "fine.json", b"{}")  # the first file is written on this thread
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


def test_files_are_written_at_once_while_writing_is_fast(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "FILE_WRITE_INLINE_MAX_S", 1.0)
    writer = FileWriter()
    for i in range(20):
        writer.write(tmp_path / f"c{i}.json", b"{}")
        assert (tmp_path / f"c{i}.json").read_bytes() == b"{}"
    assert writer._thread is None
    writer.close()


def test_once_writing_is_slow_the_rest_goes_to_the_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(defaults, "FILE_WRITE_INLINE_MAX_S", 0.0)  # any time is too slow
    writer = FileWriter()
    writer.write(tmp_path / "first.json", b"1")
    assert (tmp_path / "first.json").exists() and writer._thread is None
    writer.write(tmp_path / "second.json", b"2")
    assert writer._thread is not None
    writer.close()
    assert (tmp_path / "second.json").read_bytes() == b"2" and writer._thread is None
