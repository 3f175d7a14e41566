"""The per-case work of a scenario run: look the answer up in the cache or ask the target
(with its retries, here or on an executor's workers), then score and price it."""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import orjson

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.kinds import DoneKeys, Finished, Part, Selection, TargetRun
from eunomia.kinds.scenarios._records import finished
from eunomia.pricing import PriceTable
from eunomia.scenarios import InvalidTestCase, Scenario, TestCase
from eunomia.scheduler import Attempted, CallError, internal_error
from eunomia.scoring import CaseOutcome, CaseStatus, build_outcome
from eunomia.store import Hit, ResponseCache, blob_hash, json_bytes
from eunomia.targets import FeedbackTarget, TargetResponse

TargetCaller = Callable[[Scenario, TestCase], Awaitable[Attempted[TargetResponse]]]
"""Makes the target call with its retries (raising CallError), here or on workers."""


@dataclass(slots=True)
class LoadedScenario:
    scenario: Scenario
    prices: PriceTable


def selected_cases(scenario: Scenario, selection: Selection) -> list[TestCase]:
    cases = [c for c in scenario.test_cases if selection.matches(scenario.name, c.name)]
    return cases if selection.max_cases is None else cases[:selection.max_cases]


def selected_invalid(scenario: Scenario, selection: Selection) -> list[InvalidTestCase]:
    return [b for b in scenario.invalid_cases if selection.matches(scenario.name, b.name)]


@dataclass(slots=True)
class ScenarioJob:
    """A case to ask about, its request described, hashed and looked up in the cache."""

    item: LoadedScenario
    case: TestCase
    repeat: int
    request: bytes | None = None
    request_hash: str | None = None
    key: str | None = None
    hit: Hit | None = None
    error: Exception | None = None
    """Describing the request failed: raised in the job, as if it had failed there."""


class ScenarioTargetRun(TargetRun[ScenarioJob, CaseOutcome]):
    """One target's turn over every scenario of the run."""

    def __init__(self, target: FeedbackTarget, loaded: Sequence[LoadedScenario],
                 cache: ResponseCache, call: TargetCaller, concurrency: int) -> None:
        super().__init__(target.name, concurrency)
        self.target = target
        self.loaded = loaded
        self.cache = cache
        self.call = call

    def parts(self, selection: Selection, repeats: int,
              done: DoneKeys) -> Iterator[Part[ScenarioJob, CaseOutcome]]:
        name = self.target.name
        for item in self.loaded:
            sc = item.scenario
            cases = selected_cases(sc, selection)
            jobs = [(case, r) for r in range(repeats) for case in cases
                    if (sc.name, name, case.name, r) not in done]
            invalid = [finished(CaseOutcome(sc.name, bad.name, CaseStatus.INVALID,
                                            error=bad.reason, repeat=r, target=name))
                       for r in range(repeats) for bad in selected_invalid(sc, selection)
                       if (sc.name, name, bad.name, r) not in done]
            yield Part(sc.name, self._looked_up(item, jobs), len(jobs), invalid)

    def _looked_up(self, item: LoadedScenario, jobs: Iterable[tuple[TestCase, int]]
                   ) -> Iterator[ScenarioJob]:
        """The jobs in order, their cache entries read in bulk a chunk at a time (one query
        per chunk instead of two per case). Chunks start small, so the first requests go
        out at once, and grow to :data:`defaults.CACHE_LOOKUP_CHUNK`."""
        source = iter(jobs)
        identity = self.target.cache_identity
        size = 8
        while chunk := list(itertools.islice(source, size)):
            size = min(2 * size, defaults.CACHE_LOOKUP_CHUNK)
            looked: list[ScenarioJob] = []
            for case, repeat in chunk:
                job = ScenarioJob(item, case, repeat)
                try:
                    job.request = self.target.describe_request(item.scenario, case)
                except Exception as exc:  # raised again by the job itself
                    job.error = exc
                else:
                    job.request_hash, job.key = self.cache.key(identity, job.request, repeat)
                looked.append(job)
            hits = self.cache.lookup([j.key for j in looked if j.key is not None])
            for job in looked:
                if job.key is not None:
                    job.hit = hits.get(job.key)
            yield from looked

    async def work(self, job: ScenarioJob) -> Finished[CaseOutcome]:
        scenario, prices = job.item.scenario, job.item.prices
        target = self.target.name
        # Nothing is written here: the blobs and the cache entry travel with the finished
        # case and are stored with it, in one transaction.
        writes: list[tuple[str, bytes]] = []
        try:
            if job.error is not None:
                raise job.error
            if job.request is not None and job.request_hash is not None:
                writes.append((job.request_hash, job.request))
            if job.hit is not None:
                response = TargetResponse.from_json(orjson.loads(self.cache.answer(job.hit)))
                return finished(build_outcome(
                    scenario, job.case.name, response, prices, case=job.case, attempts=0,
                    latency_s=job.hit.latency_s, repeat=job.repeat, target=target,
                    cached=True, request_hash=job.request_hash,
                    response_hash=job.hit.response), writes)
            got = await self.call(scenario, job.case)
            response = got.value
            latency = response.latency_s or got.latency_s
            body = json_bytes(response.to_json())
            response_hash, cache_entry = None, None
            if job.key is not None:
                response_hash = blob_hash(body)
                writes.append((response_hash, body))
                cache_entry = (job.key, response_hash, latency)
            return finished(build_outcome(
                scenario, job.case.name, response, prices, case=job.case,
                attempts=got.attempts, latency_s=latency, repeat=job.repeat, target=target,
                request_hash=job.request_hash, response_hash=response_hash,
                attempt_log=got.log),
                writes, cache_entry)
        except CallError as exc:
            return finished(CaseOutcome(
                scenario.name, job.case.name, CaseStatus.FAILED, error=exc.reason,
                attempts=exc.attempts, repeat=job.repeat, target=target,
                request_hash=job.request_hash, attempt_log=exc.attempt_log), writes)
        except EunomiaError:
            raise  # the store cannot be written (disk full, locked): stop the run clearly
        except Exception as exc:  # a bug must not lose the rest of the run
            return finished(CaseOutcome(
                scenario.name, job.case.name, CaseStatus.FAILED, error=internal_error(exc),
                attempts=1, repeat=job.repeat, target=target,
                request_hash=job.request_hash))
