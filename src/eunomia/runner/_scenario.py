"""Run the test cases of one scenario against a target: cache, schedule, score, price."""

from __future__ import annotations

import hashlib
import itertools
import os
import traceback
from collections.abc import Awaitable, Callable, Iterable, Iterator
from dataclasses import dataclass, field

import orjson

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.pricing import PriceTable
from eunomia.records import CaseOutcome, CaseStatus, PendingWrites
from eunomia.scenarios import Scenario, TestCase
from eunomia.scheduler import (
    AdaptiveLimiter,
    Attempted,
    CallError,
    RetryPolicy,
    call_with_retry,
    stream_results,
)
from eunomia.scoring import build_outcome
from eunomia.store import RunStore, blob_hash, json_bytes
from eunomia.targets import FeedbackTarget, TargetResponse


@dataclass(frozen=True, slots=True)
class RunOptions:
    """Operational settings: they change how fast a run goes, never its answers."""

    concurrency: int = defaults.CONCURRENCY
    policy: RetryPolicy = field(default_factory=RetryPolicy)


@dataclass(frozen=True, slots=True)
class CaseJob:
    case: TestCase
    repeat: int = 0


OutcomeSink = Callable[[CaseOutcome], None]
TargetCaller = Callable[[TestCase], Awaitable[Attempted[TargetResponse]]]
"""Makes the call with its retries (raising CallError), e.g. on an executor's workers."""


def cache_key(identity: str, request_hash: str, repeat: int) -> str:
    """Everything that changes the answer, and nothing operational."""
    return hashlib.sha256(f"{identity}\x00{request_hash}\x00{repeat}".encode()).hexdigest()


@dataclass(slots=True)
class _Looked:
    """A job with its request described, hashed and looked up in the response cache."""

    job: CaseJob
    request: bytes | None = None
    request_hash: str | None = None
    key: str | None = None
    hit: tuple[str, float | None, bytes | None] | None = None
    """The cache entry: response blob hash, latency, the blob (None: read it on use)."""
    error: Exception | None = None
    """Describing the request failed: raised in the job, as if it had failed there."""


def _looked_up(jobs: Iterable[CaseJob], scenario: Scenario, target: FeedbackTarget,
               store: RunStore | None, use_cache: bool) -> Iterator[_Looked]:
    """The jobs in order, their cache entries read in bulk a chunk at a time (one query per
    chunk instead of two per case). Chunks start small, so the first requests go out at
    once, and grow to :data:`defaults.CACHE_LOOKUP_CHUNK`."""
    source = iter(jobs)
    if store is None:
        yield from (_Looked(cj) for cj in source)
        return
    identity = target.cache_identity
    size = 8
    while chunk := list(itertools.islice(source, size)):
        size = min(2 * size, defaults.CACHE_LOOKUP_CHUNK)
        looked: list[_Looked] = []
        for cj in chunk:
            try:
                request = target.describe_request(scenario, cj.case)
            except Exception as exc:  # raised again by the job itself
                looked.append(_Looked(cj, error=exc))
                continue
            digest = blob_hash(request)
            looked.append(_Looked(cj, request, digest, cache_key(identity, digest, cj.repeat)))
        if use_cache:
            hits = store.cached_answers([item.key for item in looked if item.key is not None])
            for item in looked:
                if item.key is not None:
                    item.hit = hits.get(item.key)
        yield from looked


async def run_scenario(
    scenario: Scenario,
    jobs: Iterable[CaseJob],
    target: FeedbackTarget,
    prices: PriceTable,
    options: RunOptions,
    on_outcome: OutcomeSink,
    *,
    store: RunStore | None = None,
    use_cache: bool = True,
    limiter: AdaptiveLimiter | None = None,
    call: TargetCaller | None = None,
) -> None:
    """Evaluate every job; each ends as exactly one outcome passed to ``on_outcome``.

    With a store, requests and responses are stored and the response cache is used
    (unless ``use_cache`` is false: then answers are fetched anew and the cache refreshed).
    With ``call``, the target call and its retries are made by it (an executor) instead
    of here; everything else (store, cache, scoring) stays on this side.
    """
    limiter = limiter or AdaptiveLimiter(options.concurrency)

    async def job(looked: _Looked) -> CaseOutcome:
        cj = looked.job
        case = cj.case
        request_hash = looked.request_hash
        key = looked.key
        # Nothing is written here: the blobs and the cache entry travel with the outcome
        # and are stored with the case, in one transaction, by whoever records it.
        writes: list[tuple[str, bytes]] = []
        try:
            if looked.error is not None:
                raise looked.error
            if looked.request is not None and request_hash is not None:
                writes.append((request_hash, looked.request))
                hit = looked.hit
                if hit is not None and store is not None:
                    data = hit[2] if hit[2] is not None else store.get_blob(hit[0])
                    response = TargetResponse.from_json(orjson.loads(data))
                    outcome = build_outcome(
                        scenario, case.name, response, prices, case=case, attempts=0,
                        latency_s=hit[1], repeat=cj.repeat, target=target.name, cached=True,
                        request_hash=request_hash, response_hash=hit[0],
                    )
                    outcome.pending = PendingWrites(writes)
                    return outcome
            got = await call(case) if call is not None else await call_with_retry(
                lambda: target.feedback(scenario, case), options.policy, limiter
            )
            response = got.value
            latency = response.latency_s or got.latency_s
            response_hash = None
            cache_entry = None
            if store is not None and key is not None:
                body = json_bytes(response.to_json())
                response_hash = blob_hash(body)
                writes.append((response_hash, body))
                cache_entry = (key, response_hash, latency)
            outcome = build_outcome(
                scenario, case.name, response, prices, case=case, attempts=got.attempts,
                latency_s=latency, repeat=cj.repeat, target=target.name,
                request_hash=request_hash, response_hash=response_hash,
            )
            outcome.pending = PendingWrites(writes, cache_entry)
            return outcome
        except CallError as exc:
            return CaseOutcome(
                scenario.name, case.name, CaseStatus.FAILED, error=exc.reason,
                attempts=exc.attempts, repeat=cj.repeat, target=target.name,
                request_hash=request_hash, pending=PendingWrites(writes),
            )
        except EunomiaError:
            raise  # the store cannot be written (disk full, locked): stop the run clearly
        except Exception as exc:  # a bug must not lose the rest of the run
            where = traceback.extract_tb(exc.__traceback__)[-1]
            return CaseOutcome(
                scenario.name, case.name, CaseStatus.FAILED,
                error=f"internal error: {type(exc).__name__}: {exc} "
                      f"({os.path.basename(where.filename)}:{where.lineno})",
                attempts=1, repeat=cj.repeat, target=target.name, request_hash=request_hash,
            )

    # The outcomes recorded since the consumer last waited are committed together.
    async for outcome in stream_results(_looked_up(jobs, scenario, target, store, use_cache),
                                        job, options.concurrency,
                                        on_idle=store.flush if store is not None else None):
        on_outcome(outcome)

