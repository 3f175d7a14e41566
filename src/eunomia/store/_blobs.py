"""Blobs of the run store: their hash, their canonical JSON, their compression.

Many requests share a long beginning (an Athena request starts with the whole exercise, ~13 KB,
before the submission). A target can say so by giving its request as :class:`PrefixedBytes`:
the hash of the shared beginning is then computed once, and the beginning is stored once, as a
blob of its own; each request is stored as a reference to it followed by its own part. The
hash is the same as without the hint (sha256 of all the bytes), and reading the blob back gives
all the bytes.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Callable
from typing import Any

import orjson

from eunomia import defaults

_LEVEL = 1
"""zlib level 1: most of the size gain of the default level for a fraction of its time."""
_MEM_LEVEL = 4
"""zlib's hash-table size (1-9, default 8). Measured on JSON blobs of 200 B to 64 KB at level
1 with the window fitted to the blob: level 4 is 1.5-3x faster than 8 (whose tables cost more
to set up than a small blob costs to compress) for the same size within 1 %."""
_MIN_WBITS, _MAX_WBITS = 9, 15
_RAW = b"\x00"
"""The first byte of a blob stored as it is."""
_REF = b"\x01"
"""The first byte of a blob stored as a reference: the hash of the blob it begins with (64 hex
digits), then its own part, stored as any blob is (raw or zlib)."""
_HASH_LEN = 64
_PREFIXES_KEPT = 64
"""Shared beginnings whose hash states are kept (one per scenario, typically)."""


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


_states: dict[bytes, tuple[Any, str]] = {}
"""prefix -> (sha256 after it, its hash in hex)."""


def _state(prefix: bytes) -> tuple[Any, str]:
    state = _states.get(prefix)
    if state is None:
        if len(_states) >= _PREFIXES_KEPT:
            _states.pop(next(iter(_states)))
        digest = hashlib.sha256(prefix)
        state = _states[prefix] = (digest, digest.hexdigest())
    return state


def shared_beginning(data: bytes) -> tuple[str, bytes] | None:
    """The hash and the bytes of the blob that ``data`` is stored as a reference to (it must be
    stored with it), None for a blob stored whole."""
    if type(data) is PrefixedBytes:
        return _state(data.prefix)[1], bytes(data.prefix)
    return None


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
    """The bytes stored for ``data`` (read back with :func:`decompress`): a blob below
    :data:`eunomia.defaults.STORE_RAW_BLOB_BYTES` as it is after a zero byte (the first byte
    of a zlib stream never is: its low four bits are 8), a larger one zlib level 1 with a
    window no larger than the blob and a small hash table (setting up zlib's default state
    costs more than compressing a few kilobytes). :class:`PrefixedBytes`: a reference to its
    beginning (see :func:`shared_beginning`), then its own part stored that way."""
    if type(data) is PrefixedBytes:
        return _REF + _state(data.prefix)[1].encode() + _packed(
            memoryview(data)[len(data.prefix):])
    return _packed(data)


def _packed(data: bytes | memoryview) -> bytes:
    if len(data) < defaults.STORE_RAW_BLOB_BYTES:
        return _RAW + data
    wbits = min(_MAX_WBITS, max(_MIN_WBITS, (len(data) - 1).bit_length()))
    packer = zlib.compressobj(_LEVEL, zlib.DEFLATED, wbits, _MEM_LEVEL)
    return packer.compress(data) + packer.flush()


def reference(stored: bytes) -> str | None:
    """The hash of the blob a stored blob begins with, None when it is stored whole."""
    return stored[1:1 + _HASH_LEN].decode("ascii") if stored[:1] == _REF else None


def decompress(stored: bytes, blob: Callable[[str], bytes] | None = None) -> bytes:
    """The blob's bytes from what :func:`compress` stored (also a store written before small
    blobs were kept raw: every blob zlib). ``blob``: reads the blob a reference begins with
    (without it, a reference gives only its own part)."""
    begins = reference(stored)
    if begins is not None:
        own = decompress(stored[1 + _HASH_LEN:])
        return own if blob is None else blob(begins) + own
    if stored[:1] == _RAW:
        return stored[1:]
    return zlib.decompress(stored)
