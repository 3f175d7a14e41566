"""The response cache as the kinds use it: keys, look-ups in bulk, one answer at a time.

A cache key is sha256(identity, request hash, repeat index): everything that changes an
answer (the target's or model's identity, the exact request, which repeat) and nothing
operational (timeouts, concurrency, streaming). Answers are stored with the case that
asked for them (its transaction), so the cache never holds an answer whose case is lost.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eunomia import defaults
from eunomia.store._blobs import blob_hash
from eunomia.store._store import RunStore


def cache_key(identity: str, request_hash: str, repeat: int) -> str:
    """Everything that changes the answer, and nothing operational."""
    return hashlib.sha256(f"{identity}\x00{request_hash}\x00{repeat}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Hit:
    """A cached answer: its blob hash, the latency it had, the blob when it was read along."""

    response: str
    latency_s: float | None
    data: bytes | None = None


class ResponseCache:
    """Keys and look-ups over a run store's cache. With ``read=False`` (``--no-cache``)
    nothing is found, so every answer is asked anew (and the cache refreshed)."""

    def __init__(self, store: RunStore, *, read: bool = True) -> None:
        self.store = store
        self.read = read
        self._fresh: set[str] | None = set() if read and store.cache_is_empty() else None
        """On a store whose cache was empty, the keys put since: every other key is a miss
        without a query (a first run asks nothing of SQLite per call)."""

    @staticmethod
    def key(identity: str, request: bytes, repeat: int) -> tuple[str, str]:
        """(the request's blob hash, the cache key) of ``request`` in repeat ``repeat``."""
        digest = blob_hash(request)
        return digest, cache_key(identity, digest, repeat)

    def lookup(self, keys: Sequence[str]) -> dict[str, Hit]:
        """The entries of ``keys`` that exist, with their blobs: a query per few hundred."""
        if not self.read or not keys:
            return {}
        return {k: Hit(*v) for k, v in self.store.cached_answers(keys).items()}

    def get(self, key: str) -> Hit | None:
        if not self.read or (self._fresh is not None and key not in self._fresh):
            return None
        found = self.store.cache_get(key)
        return None if found is None else Hit(found[0], found[1])

    def put(self, key: str, value: Any, latency_s: float | None) -> None:
        """Remember ``value`` (JSON) as the answer of ``key``."""
        self.store.cache_put_json(key, value, latency_s)
        if self._fresh is not None and len(self._fresh) < defaults.CACHE_FRESH_KEYS_MAX:
            self._fresh.add(key)
        else:
            self._fresh = None  # too many to track: ask SQLite again

    def answer(self, hit: Hit) -> bytes:
        """The cached answer's bytes."""
        return hit.data if hit.data is not None else self.store.get_blob(hit.response)
