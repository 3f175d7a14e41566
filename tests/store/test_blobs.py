"""Blobs that share a beginning (PrefixedBytes) hash to exactly what plain bytes give and
compress to a stream of the same bytes and about the same size, whichever prefix states are
cached; every blob compresses with a window fitted to its size."""

from __future__ import annotations

import hashlib
import os
import zlib

import pytest

from eunomia.store import PrefixedBytes, blob_hash
from eunomia.store._blobs import compress, decompress


@pytest.mark.parametrize("rest", [b"", b"x", os.urandom(5000), b'"id":1}' * 300])
def test_prefixed_bytes_hash_and_compress_as_plain_bytes(rest: bytes) -> None:
    prefix = b'{"exercise":' + b'{"title":"Loans","problemStatement":"' + b"a b " * 4000 + b'"}'
    data = PrefixedBytes(prefix + rest, prefix)
    plain = bytes(data)
    assert blob_hash(data) == blob_hash(plain) == hashlib.sha256(plain).hexdigest()
    packed = compress(data)
    assert zlib.decompress(packed) == decompress(packed) == plain
    assert len(packed) <= len(compress(plain)) * 1.1 + 16  # the shared state costs no size
    again = PrefixedBytes(prefix + rest[::-1], prefix)  # the cached states are not consumed
    assert decompress(compress(again)) == bytes(again)
    assert blob_hash(again) == hashlib.sha256(bytes(again)).hexdigest()


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
