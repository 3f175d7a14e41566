"""Blobs of the run store: their hash, their canonical JSON, their compression.

Many requests share a long beginning (an Athena request starts with the whole exercise, ~13 KB,
before the submission). A target can say so by giving its request as :class:`PrefixedBytes`:
the hash and the zlib stream of the shared beginning are then computed once, and each request
costs only its own part. The results are the same bytes as without the hint.
"""

from __future__ import annotations

import hashlib
import zlib
from typing import Any

import orjson

from eunomia import defaults

_LEVEL = 1
"""zlib level 1: most of the size gain of the default level for a fraction of its time."""
_PREFIXES_KEPT = 64
"""Shared beginnings whose hash and zlib states are kept (one per scenario, typically)."""


class PrefixedBytes(bytes):
    """Bytes that begin with ``prefix``, a bytes object many blobs share (the same object:
    the states are looked up by it)."""

    prefix: bytes

    def __new__(cls, data: bytes, prefix: bytes) -> PrefixedBytes:
        if not data.startswith(prefix):
            raise ValueError("the data does not begin with its prefix")
        made = super().__new__(cls, data)
        made.prefix = prefix
        return made


_states: dict[bytes, tuple[Any, bytes, Any]] = {}
"""prefix -> (sha256 after it, zlib output so far, zlib compressor after it)."""


def _state(prefix: bytes) -> tuple[Any, bytes, Any]:
    state = _states.get(prefix)
    if state is None:
        if len(_states) >= _PREFIXES_KEPT:
            _states.pop(next(iter(_states)))
        packer = zlib.compressobj(_LEVEL)
        state = _states[prefix] = (hashlib.sha256(prefix), packer.compress(prefix), packer)
    return state


def blob_hash(data: bytes) -> str:
    """sha256 of the bytes, in hex."""
    if type(data) is PrefixedBytes:
        digest = _state(data.prefix)[0].copy()
        digest.update(memoryview(data)[len(data.prefix):])
        return str(digest.hexdigest())
    return hashlib.sha256(data).hexdigest()


def json_bytes(value: Any) -> bytes:
    """Canonical JSON (sorted keys, compact): equal values give equal bytes and hashes."""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


def compress(data: bytes) -> bytes:
    """zlib level 1 (read back with ``zlib.decompress``). Small blobs get a small zlib state:
    setting up the default one costs more than compressing a few hundred bytes."""
    if type(data) is PrefixedBytes:
        _digest, head, packer = _state(data.prefix)
        mine = packer.copy()
        return bytes(head + mine.compress(memoryview(data)[len(data.prefix):]) + mine.flush())
    if len(data) >= defaults.STORE_SMALL_BLOB_BYTES:
        return zlib.compress(data, _LEVEL)
    packer = zlib.compressobj(_LEVEL, zlib.DEFLATED, 15, 1)
    return packer.compress(data) + packer.flush()
