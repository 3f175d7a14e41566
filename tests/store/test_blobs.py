"""Blobs that share a beginning (PrefixedBytes) hash to exactly what plain bytes give, and
are stored as a reference to their beginning, stored once as a blob of its own, and their own
part; every blob compresses with a window fitted to its size."""

from __future__ import annotations

import hashlib
import os
import sqlite3
import zlib
from pathlib import Path

import pytest

from eunomia.store import PrefixedBytes, RunStore, blob_hash
from eunomia.store._blobs import compress, decompress, reference, shared_beginning

PREFIX = b'{"exercise":' + b'{"title":"Loans","problemStatement":"' + b"a b " * 4000 + b'"}'


@pytest.mark.parametrize("rest", [b"", b"x", os.urandom(5000), b'"id":1}' * 300])
def test_prefixed_bytes_hash_as_plain_bytes_and_store_only_their_own_part(rest: bytes) -> None:
    data = PrefixedBytes(PREFIX + rest, PREFIX)
    plain = bytes(data)
    assert blob_hash(data) == blob_hash(plain) == hashlib.sha256(plain).hexdigest()
    packed = compress(data)
    begins = shared_beginning(data)
    assert begins == (hashlib.sha256(PREFIX).hexdigest(), PREFIX)
    assert reference(packed) == begins[0]
    assert shared_beginning(plain) is None and reference(compress(plain)) is None
    assert decompress(packed, {begins[0]: PREFIX}.__getitem__) == plain
    assert decompress(packed) == rest  # without the reader: its own part
    assert len(packed) <= len(compress(rest)) + 65  # the beginning is not in it
    again = PrefixedBytes(PREFIX + rest[::-1], PREFIX)  # the cached states are not consumed
    assert decompress(compress(again), {begins[0]: PREFIX}.__getitem__) == bytes(again)
    assert blob_hash(again) == hashlib.sha256(bytes(again)).hexdigest()


def test_the_store_keeps_a_shared_beginning_once_and_reads_every_blob_whole(
        tmp_path: Path) -> None:
    exercise = b'{"exercise":"' + os.urandom(16_000).hex().encode() + b'"'  # 32 KB, 16 zlib
    bodies = [PrefixedBytes(exercise + f',"submission":{i}}}'.encode() * (1 + 60 * (i % 2)),
                            exercise) for i in range(40)]
    store = RunStore(tmp_path / "s.db")
    try:
        with store.grouped():
            digests = [store.put_blob(b) for b in bodies[:20]]
        digests += [store.put_blob(b) for b in bodies[20:]]  # committed one by one
        assert [store.get_blob(d) for d in digests] == [bytes(b) for b in bodies]
        whole = {d: bytes(b) for d, b in zip(digests, bodies, strict=True)}
        assert store.get_blobs(digests) == whole
        assert store.get_blob(hashlib.sha256(exercise).hexdigest()) == exercise
    finally:
        store.close()
    again = RunStore(tmp_path / "s.db")  # read by a process that stored none of them
    try:
        assert again.get_blobs(digests[::-1]) == whole
        assert again.get_blob(digests[1]) == bytes(bodies[1])
    finally:
        again.close()
    db = sqlite3.connect(tmp_path / "s.db")
    try:
        rows, stored = db.execute("SELECT COUNT(*), SUM(LENGTH(data)) FROM blobs").fetchone()
    finally:
        db.close()
    assert rows == 41  # the 40 and their beginning
    assert stored < 60_000  # the beginning once (~17 KB zlib), not 40 times (~680 KB)


def test_a_prefix_that_does_not_begin_the_data_is_refused() -> None:
    with pytest.raises(ValueError, match="does not begin"):
        PrefixedBytes(b"abc", b"b")


@pytest.mark.parametrize("size", [0, 1, 200, 1023, 1024, 1025, 5000, 40_000, 70_000])
def test_every_size_round_trips_and_compresses(size: int) -> None:
    data = (b'{"answer":"The answer is 42.","score":5}' * (size // 40 + 1))[:size]
    packed = compress(data)
    assert decompress(packed) == data
    if size >= 1024:
        assert zlib.decompress(packed) == data
        assert len(packed) < size / 4  # repetitive JSON: the window holds the repeats
