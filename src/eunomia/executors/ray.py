"""The Ray executor: jobs on a pool of worker actors, one limiter for the whole cluster.

* Workers are async actors, one per CPU of the cluster (one per GPU, with
  ``num_gpus=1``, when it has GPUs). Each builds a work (a target, a model) once and
  reuses it for every job it is sent.
* Every attempt holds a place of one named async limiter actor (the same AIMD
  semantics as :class:`AdaptiveLimiter`), so ``--concurrency`` and rate-limit
  back-off hold across the cluster, not once per worker.
* The driver keeps its jobs in flight through its own bounded scheduler (nothing is
  submitted ahead of it) and gets each result back as soon as it is ready.
* A job whose worker died is sent again to a replacement worker; the places the dead
  worker held in the limiter are given back. The driver records each job once.

Import this module only through :func:`eunomia.executors.make_executor`: Ray is an
optional extra.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.exceptions import RayActorError

from eunomia.errors import EunomiaError
from eunomia.executors._base import J, R, Submit, Work
from eunomia.scheduler import AdaptiveLimiter, CallError

_NAMESPACE = "eunomia"
_MAX_ACTOR_CALLS = 100_000  # waiting acquire() calls are cheap coroutines in the limiter

Signal = tuple[str, float | None] | None
"""What an attempt told the limiter: ("ok", None), ("rate_limited", retry_after) or None."""


class SharedLimiter:
    """The cluster-wide limiter (run as an async Ray actor): places held by token."""

    def __init__(self, max_concurrency: int) -> None:
        self._limiter = AdaptiveLimiter(max_concurrency)
        self._held: dict[int, tuple[str, AbstractAsyncContextManager[None]]] = {}
        self._tokens = itertools.count(1)
        self._gone: set[str] = set()
        self.max_in_flight = 0

    async def acquire(self, owner: str) -> int:
        place = self._limiter.slot()
        await place.__aenter__()
        if owner in self._gone:  # the worker died while it waited
            await place.__aexit__(None, None, None)
            return 0
        token = next(self._tokens)
        self._held[token] = (owner, place)
        self.max_in_flight = max(self.max_in_flight, len(self._held))
        return token

    async def release(self, token: int, signal: Signal) -> None:
        if signal is not None:
            kind, retry_after = signal
            if kind == "ok":
                self._limiter.on_success()
            else:
                self._limiter.on_rate_limited(retry_after)
        held = self._held.pop(token, None)
        if held is not None:
            await held[1].__aexit__(None, None, None)

    async def forget(self, owner: str) -> int:
        """Give back every place a dead worker held; returns how many."""
        self._gone.add(owner)
        tokens = [t for t, (o, _) in self._held.items() if o == owner]
        for token in tokens:
            await self.release(token, None)
        return len(tokens)

    def stats(self) -> dict[str, int]:
        return {"limit": self._limiter.limit, "in_flight": len(self._held),
                "max_in_flight": self.max_in_flight,
                "rate_limited": self._limiter.rate_limited_count,
                "lowest_limit": self._limiter.lowest_limit}


class RemoteLimiter(AdaptiveLimiter):
    """An :class:`AdaptiveLimiter` whose places are held in the shared limiter actor.

    ``call_with_retry`` reports success or a rate limit inside the slot, with no
    ``await`` before the slot ends; the report is sent along with the release.
    """

    def __init__(self, handle: Any, owner: str) -> None:
        super().__init__(1)
        self._handle = handle
        self._owner = owner
        self._signal: Signal = None

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        token = await self._handle.acquire.remote(self._owner)
        self._signal = None
        try:
            yield
        finally:
            signal, self._signal = self._signal, None
            await self._handle.release.remote(token, signal)

    def on_success(self) -> None:
        self._signal = ("ok", None)

    def on_rate_limited(self, retry_after: float | None) -> None:
        self._signal = ("rate_limited", retry_after)


class Worker:
    """A worker actor: opened works by key, each with its limiter."""

    def __init__(self, owner: str) -> None:
        self._owner = owner
        self._works: dict[str, tuple[Any, RemoteLimiter]] = {}

    async def install(self, key: str, work: Any, limiter: Any) -> None:
        if key not in self._works:
            await work.open()
            self._works[key] = (work, RemoteLimiter(limiter, self._owner))

    async def run(self, key: str, job: Any) -> Any:
        work, limiter = self._works[key]
        return await work.run(job, limiter)

    async def uninstall(self, key: str) -> None:
        got = self._works.pop(key, None)
        if got is not None:
            await got[0].close()

    def ping(self) -> str:
        return self._owner


def check_reachable(address: str, timeout_s: float = 5.0) -> None:
    """Fail fast on a ``host:port`` nobody listens on (Ray itself retries for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or "://" in address or not port.isdigit():
        return  # "auto", "ray://host:port" (Ray Client) and the like: Ray checks them
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise EunomiaError(f"cannot reach the Ray cluster at {address}: {exc}; start it with "
                           "'ray start --head' or give the right --ray-address") from None


_LimiterActor: Any = ray.remote(SharedLimiter)
_WorkerActor: Any = ray.remote(Worker)


@dataclass(slots=True)
class _Slot:
    actor: Any
    owner: str
    generation: int = 0
    in_flight: int = 0


@dataclass(slots=True)
class _Installed:
    work: Any
    limiter: Any


@dataclass(slots=True)
class RayStats:
    jobs: int = 0
    resubmitted: int = 0
    workers_replaced: int = 0
    places_recovered: int = 0
    limiter: dict[str, int] = field(default_factory=dict)


class RayExecutor:
    """Runs jobs on Ray worker actors; see the module docstring."""

    name = "ray"
    remote = True

    def __init__(
        self,
        address: str | None = None,
        *,
        workers: int | None = None,
        gpus_per_worker: float | None = None,
        max_job_retries: int = 3,
        worker_concurrency: int = 1000,
    ) -> None:
        self.address = address
        self._workers_wanted = workers
        self._gpus = gpus_per_worker
        self.max_job_retries = max_job_retries
        self._worker_concurrency = worker_concurrency
        self._slots: list[_Slot] = []
        self._installed: dict[str, _Installed] = {}
        self._replace_lock: asyncio.Lock | None = None
        self._started_ray = False
        self.stats = RayStats()

    # --- the cluster ---------------------------------------------------------------
    def _connect(self) -> None:
        if not ray.is_initialized():
            if self.address:
                check_reachable(self.address)
            try:
                # A cluster started here stays on the loopback interface.
                local: dict[str, Any] = {} if self.address or os.environ.get(
                    "RAY_ADDRESS") else {"_node_ip_address": "127.0.0.1"}
                ray.init(address=self.address, namespace=_NAMESPACE, include_dashboard=False,
                         log_to_driver=False, configure_logging=False, **local)
            except Exception as exc:  # Ray raises ConnectionError, RuntimeError, ValueError...
                where = f"at {self.address}" if self.address else "(a local one)"
                raise EunomiaError(f"cannot start or reach the Ray cluster {where}: "
                                   f"{type(exc).__name__}: {exc}") from None
            self._started_ray = True

    def _sizes(self) -> tuple[int, float]:
        resources: dict[str, float] = ray.cluster_resources()  # type: ignore[no-untyped-call]
        gpus = float(resources.get("GPU", 0))
        per_gpu = self._gpus if self._gpus is not None else (1.0 if gpus >= 1 else 0.0)
        if self._workers_wanted is not None:
            return max(1, self._workers_wanted), per_gpu
        if per_gpu > 0:
            return max(1, int(gpus / per_gpu)), per_gpu
        return max(1, int(resources.get("CPU", 1))), 0.0

    def _new_slot(self, per_gpu: float) -> _Slot:
        owner = f"worker-{uuid.uuid4().hex[:12]}"
        actor = _WorkerActor.options(
            num_cpus=0 if per_gpu else 1, num_gpus=per_gpu, max_restarts=0,
            max_concurrency=self._worker_concurrency,
        ).remote(owner)
        return _Slot(actor, owner)

    async def _install_all(self, slot: _Slot) -> None:
        await asyncio.gather(*(slot.actor.install.remote(key, inst.work, inst.limiter)
                               for key, inst in self._installed.items()))

    def workers(self) -> list[Any]:
        """The live worker actors' handles (tests kill one to check recovery)."""
        return [s.actor for s in self._slots]

    # --- the seam -----------------------------------------------------------------
    @asynccontextmanager
    async def session(self, work: Work[J, R], concurrency: int) -> AsyncIterator[Submit[J, R]]:
        self._connect()
        self._replace_lock = self._replace_lock or asyncio.Lock()
        count, per_gpu = self._sizes()
        while len(self._slots) < count:
            self._slots.append(self._new_slot(per_gpu))
        key = f"{work.key}#{uuid.uuid4().hex[:8]}"
        limiter = _LimiterActor.options(
            name=f"eunomia-limiter:{key}", num_cpus=0, max_concurrency=_MAX_ACTOR_CALLS,
        ).remote(concurrency)
        self._installed[key] = _Installed(work, limiter)
        try:
            await asyncio.gather(*(s.actor.install.remote(key, work, limiter)
                                   for s in self._slots))

            async def submit(job: J) -> R:
                return await self._submit(key, job, per_gpu)  # type: ignore[no-any-return]

            yield submit
        finally:
            del self._installed[key]
            with suppress(RayActorError):  # the limiter died with the cluster
                self.stats.limiter = await limiter.stats.remote()
            for slot in self._slots:
                with suppress(RayActorError):
                    await slot.actor.uninstall.remote(key)
            ray.kill(limiter)

    async def _submit(self, key: str, job: Any, per_gpu: float) -> Any:
        self.stats.jobs += 1
        lost = 0
        while True:
            slot = min(self._slots, key=lambda s: s.in_flight)
            generation = slot.generation
            slot.in_flight += 1
            try:
                return await slot.actor.run.remote(key, job)
            except RayActorError:
                lost += 1
                await self._replace(slot, generation, per_gpu)
                if lost > self.max_job_retries:
                    raise CallError(f"the Ray worker running this case died {lost} times",
                                    retryable=False) from None
                self.stats.resubmitted += 1
            finally:
                slot.in_flight -= 1

    async def _replace(self, slot: _Slot, generation: int, per_gpu: float) -> None:
        """Put a fresh actor in a dead one's place (once, however many jobs saw it die)."""
        assert self._replace_lock is not None
        async with self._replace_lock:
            if slot.generation != generation:
                return  # another job already replaced it
            dead_owner = slot.owner
            fresh = self._new_slot(per_gpu)
            await self._install_all(fresh)
            slot.actor, slot.owner = fresh.actor, fresh.owner
            slot.generation += 1
            self.stats.workers_replaced += 1
            for inst in self._installed.values():
                self.stats.places_recovered += await inst.limiter.forget.remote(dead_owner)

    def in_flight(self, concurrency: int) -> int:
        return 2 * concurrency  # bounded: never the whole run submitted at once

    def settings(self) -> dict[str, Any]:
        return {"executor": self.name, "ray_address": self.address}

    def close(self) -> None:
        if not ray.is_initialized():
            return
        for slot in self._slots:
            ray.kill(slot.actor)
        self._slots.clear()
        if self._started_ray:
            ray.shutdown()
            self._started_ray = False
