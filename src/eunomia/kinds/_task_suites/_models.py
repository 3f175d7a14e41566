"""The models of a run over task suites: the candidates, their prices, and the providers a
target's turn opens (one per model whatever its roles, a local one answering one request at
a time)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass

from eunomia.executors import ChatJob, ChatOutcome, Submit
from eunomia.kinds import RunContext
from eunomia.kinds._task_suites._baselines import baseline_of
from eunomia.kinds._task_suites._calls import ModelCaller
from eunomia.models import ModelProvider, ModelSpec, get_model, load_config
from eunomia.pricing import PriceTable, bundled_prices
from eunomia.scheduler import AdaptiveLimiter
from eunomia.store import ResponseCache

NO_JUDGE = "none"
"""``--judge none``: no judge model; each case is scored by its deterministic checks only."""


def price_table(*specs: ModelSpec) -> PriceTable:
    """Prices from ``models.yml`` (and the specs' own), over Eunomia's bundled table (whose
    prices say where they came from), for cost estimates."""
    table = bundled_prices().merged(load_config().price_table())
    extra = {}
    for s in specs:
        if s.price is not None:
            extra[s.model] = s.price
            extra[s.spec] = s.price
    return table.merged(PriceTable(extra)) if extra else table


@dataclass(slots=True)
class Candidate:
    """A candidate model of the run: its resolved spec and its name in the run."""

    spec: ModelSpec
    label: str
    cases: Mapping[str, frozenset[str]] | None = None
    """The only cases it answers, by suite (None: every selected case): ``eval``'s
    controls answer a sample of each suite's selected cases."""

    @property
    def serial(self) -> bool:
        """An in-process model answers one request at a time."""
        return self.spec.backend == "local"

    @property
    def baseline(self) -> bool:
        """A trivial baseline (``baseline:reference``...): no model, no call."""
        return baseline_of(self.spec) is not None


def serial_concurrency(context: RunContext, specs: Iterable[ModelSpec]) -> int:
    """Requests in flight for a turn using ``specs``: 1 when one of them is a model in this
    process (it answers one request at a time: said once per run), else ``--concurrency``."""
    concurrency = context.options.concurrency
    if concurrency > 1 and not context.executor.remote \
            and any(s.backend == "local" for s in specs):
        context.note_once("a local model answers one request at a time; concurrency "
                          f"lowered from {concurrency} to 1")
        return 1
    return concurrency


def model_caller(context: RunContext, provider: ModelProvider, spec: ModelSpec, role: str,
                 limiter: AdaptiveLimiter,
                 submit: Submit[ChatJob, ChatOutcome] | None = None) -> ModelCaller:
    """``spec`` in ``role`` for the run: its answers cached in the run's store (read unless
    ``--no-cache``, or the model is a system that may change behind its spec)."""
    return ModelCaller(provider, spec.spec, role, policy=context.options.policy,
                       limiter=limiter,
                       cache=ResponseCache(context.store, read=context.reads_cache(provider)),
                       submit=submit)


class Providers:
    """The providers a target's turn opens: one (and one rate limiter) per model spec,
    whatever its roles; those not ``given`` (spec -> an open provider, left open for its
    owner) are closed with ``stack``."""

    def __init__(self, stack: AsyncExitStack, context: RunContext, concurrency: int,
                 given: Mapping[str, ModelProvider] | None = None) -> None:
        self._stack = stack
        self._context = context
        self._concurrency = concurrency
        self._given = given or {}
        self._opened: dict[str, tuple[ModelProvider, AdaptiveLimiter]] = {}

    def open(self, spec: ModelSpec) -> tuple[ModelProvider, AdaptiveLimiter]:
        found = self._opened.get(spec.spec)
        if found is None:
            provider = self._given.get(spec.spec)
            if provider is None:
                provider = get_model(spec)
                self._stack.push_async_callback(provider.close)
            found = self._opened[spec.spec] = (provider, AdaptiveLimiter(self._concurrency))
        return found

    def caller(self, spec: ModelSpec, role: str) -> ModelCaller:
        provider, limiter = self.open(spec)
        return model_caller(self._context, provider, spec, role, limiter)
