"""Token prices and the cost of LLM calls (reads ``llm_cost.yml``; a bundled, dated table of
the common OpenAI and Anthropic models is the lowest priority)."""

from eunomia.pricing._bundled import (
    BUNDLED_PRICES_FILE,
    bundled_prices,
    bundled_prices_as_of,
    cost_disagrees,
)
from eunomia.pricing._names import undated
from eunomia.pricing._table import (
    CostLine,
    CostSummary,
    LLMCostFile,
    ModelPrice,
    PriceMatch,
    PriceTable,
    TokenCount,
    load_price_file,
    load_prices,
)

__all__ = [
    "BUNDLED_PRICES_FILE",
    "CostLine",
    "CostSummary",
    "LLMCostFile",
    "ModelPrice",
    "PriceMatch",
    "PriceTable",
    "TokenCount",
    "bundled_prices",
    "bundled_prices_as_of",
    "cost_disagrees",
    "load_price_file",
    "load_prices",
    "undated",
]
