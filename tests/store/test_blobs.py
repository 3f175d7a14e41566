"""Blobs that share a beginning (PrefixedBytes) hash and compress to exactly what plain bytes
give, whichever prefix states are cached."""

from __future__ import annotations

import hashlib
import os
import zlib

import pytest

from eunomia.store import PrefixedBytes, blob_hash
from eunomia.store._blobs import compress


@pytest.mark.parametrize("rest", [b"", b"x", os.urandom(5000), b'"id":1}' * 300])
def test_prefixed_bytes_hash_and_compress_as_plain_bytes(rest: bytes) -> None:
    prefix = b'{"exercise":' + b'{"title":"Loans","problemStatement":"' + b"a b " * 4000 + b'"}'
    data = PrefixedBytes(prefix + rest, prefix)
    plain = bytes(data)
    assert blob_hash(data) == blob_hash(plain) == hashlib.sha256(plain).hexdigest()
    packed = compress(data)
    assert zlib.decompress(packed) == plain
    assert packed == zlib.compress(plain, 1)  # the same stream, not merely an equivalent one
    again = PrefixedBytes(prefix + rest[::-1], prefix)  # the cached states are not consumed
    assert zlib.decompress(compress(again)) == bytes(again)
    assert blob_hash(again) == hashlib.sha256(bytes(again)).hexdigest()


def test_a_prefix_that_does_not_begin_the_data_is_refused() -> None:
    with pytest.raises(ValueError, match="does not begin"):
        PrefixedBytes(b"abc", b"b")
