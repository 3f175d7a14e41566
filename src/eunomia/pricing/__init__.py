"""Token prices and the cost of LLM calls (reads ``llm_cost.yml``)."""

from eunomia.pricing._table import (
    CostLine,
    CostSummary,
    LLMCostFile,
    ModelPrice,
    PriceTable,
    TokenCount,
    load_price_file,
    load_prices,
)

__all__ = [
    "CostLine",
    "CostSummary",
    "LLMCostFile",
    "ModelPrice",
    "PriceTable",
    "TokenCount",
    "load_price_file",
    "load_prices",
]
