"""Run the test cases of one scenario against a target: cache, schedule, score, price."""

from __future__ import annotations

import hashlib
import os
import traceback
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field

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

    async def job(cj: CaseJob) -> CaseOutcome:
        case = cj.case
        request_hash: str | None = None
        key: str | None = None
        # Nothing is written here: the blobs and the cache entry travel with the outcome
        # and are stored with the case, in one transaction, by whoever records it.
        writes: list[tuple[str, bytes]] = []
        try:
            if store is not None:
                request = target.describe_request(scenario, case)
                request_hash = blob_hash(request)
                writes.append((request_hash, request))
                key = cache_key(target.cache_identity, request_hash, cj.repeat)
                hit = store.cache_get(key) if use_cache else None
                if hit is not None:
                    response = TargetResponse.from_json(store.get_json(hit[0]))
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

    async for outcome in stream_results(jobs, job, options.concurrency):
        on_outcome(outcome)

