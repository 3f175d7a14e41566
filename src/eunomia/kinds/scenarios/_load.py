"""Loading the scenarios of a run with their prices."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from eunomia.errors import Diagnostic, EunomiaError, Severity
from eunomia.kinds.scenarios._work import LoadedScenario
from eunomia.models import load_config
from eunomia.pricing import PriceTable, bundled_prices, load_price_file
from eunomia.scenarios import ScenarioSource, load_scenario


def load_scenarios(
    sources: Sequence[ScenarioSource],
) -> tuple[list[LoadedScenario], list[Diagnostic]]:
    """Load every scenario and its prices; blocking problems raise, the rest are returned."""
    loaded: list[LoadedScenario] = []
    problems: list[Diagnostic] = []
    blocked: list[Diagnostic] = []
    price_cache: dict[Path, tuple[PriceTable, list[Diagnostic]]] = {}
    # models.yml and the free local models, over Eunomia's bundled (dated, marked) prices
    base_prices = bundled_prices().merged(load_config().price_table())
    for source in sources:
        scenario, diags = load_scenario(source.folder)
        problems += diags
        if scenario is None:
            blocked += [d for d in diags if d.severity is Severity.ERROR]
            continue
        prices = base_prices
        if source.price_file is None:
            problems.append(Diagnostic(Severity.WARNING, source.folder,
                                       "no llm_cost.yml beside the scenario; costs are unknown "
                                       "unless models.yml or Eunomia's bundled table (dated) "
                                       "prices the models"))
        else:
            if source.price_file not in price_cache:
                price_cache[source.price_file] = load_price_file(source.price_file)
                problems += price_cache[source.price_file][1]
            # the scenario's own prices are the most specific: they win
            prices = base_prices.merged(price_cache[source.price_file][0])
        loaded.append(LoadedScenario(scenario, prices))
    if blocked:
        raise EunomiaError("cannot run: the scenarios have errors", blocked)
    return loaded, problems
