"""The price table shipped with Eunomia (``bundled_prices.yml``), and comparing a system's own
cost figure with Eunomia's.

The bundled table has the lowest priority: merge the others over it,
``bundled_prices().merged(models_yml).merged(llm_cost_yml)``. It is dated (``as_of``) and its
prices may be out of date: its entries are marked, and a cost line priced by one says so
(:attr:`eunomia.pricing.CostLine.note`).
"""

from __future__ import annotations

import functools
import math
from datetime import date
from pathlib import Path

from pydantic import ConfigDict

from eunomia.errors import EunomiaError
from eunomia.pricing._table import LLMCostFile, PriceTable
from eunomia.yamlfile import YamlFileError, read_yaml, validate_document

BUNDLED_PRICES_FILE = Path(__file__).with_name("bundled_prices.yml")


class BundledPriceFile(LLMCostFile):
    """``llm_cost.yml`` with the date its prices were compiled."""

    model_config = ConfigDict(extra="forbid")

    as_of: date


@functools.cache
def _load() -> tuple[PriceTable, date]:
    try:
        doc = read_yaml(BUNDLED_PRICES_FILE)
    except YamlFileError as exc:
        raise EunomiaError("the bundled price table cannot be read", [exc.diagnostic]) from None
    parsed, problems = validate_document(doc, BundledPriceFile)
    if parsed is None:
        raise EunomiaError("the bundled price table is invalid", problems)
    as_of = f"{parsed.as_of:%Y-%m-%d}"
    table = PriceTable(parsed.llm_costs, bundled=dict.fromkeys(parsed.llm_costs, as_of))
    return table, parsed.as_of


def bundled_prices() -> PriceTable:
    """Eunomia's own price table (common OpenAI and Anthropic models): the lowest priority."""
    return _load()[0]


def bundled_prices_as_of() -> date:
    """When the bundled prices were compiled."""
    return _load()[1]


def cost_disagrees(reported: float | None, computed: float | None, *,
                   rel_tol: float = 0.01, abs_tol: float = 1e-9) -> bool | None:
    """Whether a system's own cost figure differs from Eunomia's (more than 1 % by default);
    None when either figure is unknown."""
    if reported is None or computed is None:
        return None
    return not math.isclose(reported, computed, rel_tol=rel_tol, abs_tol=abs_tol)
