"""Token prices per model and the cost of a set of LLM calls.

One table serves every part of Eunomia. It reads the ``llm_cost.yml`` format of
the original test bench (``llm_costs: {model: {input_cost_per_million, ...}}``)
and can be extended from model configs. A model missing from the table gives an
unknown cost (``None``) and a warning, never a crash and never a silent zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from eunomia.bounds import Price
from eunomia.errors import Diagnostic, EunomiaError
from eunomia.yamlfile import YamlFileError, read_yaml, validate_document


class ModelPrice(BaseModel):
    """Prices in currency units per million tokens."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input_cost_per_million: Price
    output_cost_per_million: Price
    cached_input_cost_per_million: Price | None = None
    """Defaults to the input price when not given."""


class LLMCostFile(BaseModel):
    """The ``llm_cost.yml`` file."""

    model_config = ConfigDict(extra="forbid")

    llm_costs: dict[str, ModelPrice] = Field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CostLine:
    """Cost of the calls made to one model."""

    llm: str
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int
    input_cost: float | None
    output_cost: float | None

    @property
    def total(self) -> float | None:
        if self.input_cost is None or self.output_cost is None:
            return None
        return self.input_cost + self.output_cost

    @property
    def known(self) -> bool:
        return self.input_cost is not None


@dataclass(frozen=True, slots=True)
class CostSummary:
    """Cost of one case (or any group of calls); totals are ``None`` when any price is unknown."""

    details: tuple[CostLine, ...] = ()
    unknown_models: tuple[str, ...] = field(default=())

    @property
    def total_input_cost(self) -> float | None:
        if self.unknown_models:
            return None
        return sum(line.input_cost or 0.0 for line in self.details)

    @property
    def total_output_cost(self) -> float | None:
        if self.unknown_models:
            return None
        return sum(line.output_cost or 0.0 for line in self.details)

    @property
    def total_cost(self) -> float | None:
        if self.unknown_models:
            return None
        return sum(line.total or 0.0 for line in self.details)

    @property
    def input_tokens(self) -> int:
        return sum(line.input_tokens for line in self.details)

    @property
    def output_tokens(self) -> int:
        return sum(line.output_tokens for line in self.details)


@dataclass(frozen=True, slots=True)
class TokenCount:
    model: str
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int = 0


class PriceTable:
    """Prices by model name; lookups also try case-insensitive and provider-less names."""

    def __init__(self, prices: Mapping[str, ModelPrice] | None = None) -> None:
        self._prices: dict[str, ModelPrice] = dict(prices or {})
        self._folded = {k.casefold(): v for k, v in self._prices.items()}

    def __len__(self) -> int:
        return len(self._prices)

    def models(self) -> list[str]:
        return list(self._prices)

    def to_json(self) -> dict[str, Any]:
        return {name: price.model_dump() for name, price in self._prices.items()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PriceTable:
        return cls({name: ModelPrice.model_validate(p) for name, p in data.items()})

    def merged(self, other: PriceTable) -> PriceTable:
        """A new table with ``other``'s prices taking precedence."""
        return PriceTable({**self._prices, **other._prices})

    def lookup(self, model: str) -> ModelPrice | None:
        for name in _candidates(model):
            price = self._prices.get(name) or self._folded.get(name.casefold())
            if price is not None:
                return price
        return None

    def cost_line(self, count: TokenCount) -> CostLine:
        price = self.lookup(count.model)
        if price is None:
            return CostLine(
                count.model, count.input_tokens, count.output_tokens,
                count.cached_input_tokens, None, None,
            )
        cached = min(max(count.cached_input_tokens, 0), count.input_tokens)
        cached_rate = (
            price.cached_input_cost_per_million
            if price.cached_input_cost_per_million is not None
            else price.input_cost_per_million
        )
        input_cost = (
            (count.input_tokens - cached) * price.input_cost_per_million + cached * cached_rate
        ) / 1_000_000
        output_cost = count.output_tokens * price.output_cost_per_million / 1_000_000
        return CostLine(
            count.model, count.input_tokens, count.output_tokens, cached, input_cost, output_cost
        )

    def summarize(self, counts: Iterable[TokenCount]) -> CostSummary:
        """Cost of a group of calls, one line per model (calls to the same model added up)."""
        grouped: dict[str, list[int]] = {}
        for c in counts:
            acc = grouped.setdefault(c.model, [0, 0, 0])
            acc[0] += c.input_tokens
            acc[1] += c.output_tokens
            acc[2] += c.cached_input_tokens
        lines = tuple(
            self.cost_line(TokenCount(model, i, o, k)) for model, (i, o, k) in grouped.items()
        )
        unknown = tuple(line.llm for line in lines if not line.known)
        return CostSummary(lines, unknown)


def _candidates(model: str) -> list[str]:
    names = [model]
    for sep in (":", "/"):
        if sep in model:
            names.append(model.split(sep, 1)[1])
    return names


def load_price_file(path: Path) -> tuple[PriceTable, list[Diagnostic]]:
    """Read an ``llm_cost.yml``. Returns the table and the problems found (table empty on error)."""
    try:
        doc = read_yaml(path)
    except YamlFileError as exc:
        return PriceTable(), [exc.diagnostic]
    if doc.data is None:
        return PriceTable(), []
    parsed, problems = validate_document(doc, LLMCostFile)
    if parsed is None:
        return PriceTable(), problems
    return PriceTable(parsed.llm_costs), []


def load_prices(path: Path) -> PriceTable:
    """Like :func:`load_price_file`, raising :class:`EunomiaError` on any problem."""
    table, problems = load_price_file(path)
    if problems:
        raise EunomiaError(f"invalid price file {path}", problems)
    return table

