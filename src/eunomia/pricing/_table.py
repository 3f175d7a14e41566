"""Token prices per model and the cost of a set of LLM calls.

One table serves every part of Eunomia. It reads the ``llm_cost.yml`` format of
the original test bench (``llm_costs: {model: {input_cost_per_million, ...}}``)
and can be extended from model configs. A model missing from the table gives an
unknown cost (``None``) and a warning, never a crash and never a silent zero.
A dated snapshot name that is not priced itself (``gpt-4o-mini-2024-07-18``) is priced
as its undated entry (``gpt-4o-mini``), and its cost line says so (``priced_as``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from eunomia.bounds import Price
from eunomia.errors import Diagnostic, EunomiaError
from eunomia.pricing._names import provider_less, undated
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
    priced_as: str | None = None
    """The price entry used when it is not the model's own name: a dated name priced as its
    undated entry (``gpt-4o-mini-2024-07-18`` -> ``gpt-4o-mini``)."""
    bundled_as_of: str | None = None
    """Set when the price came from Eunomia's bundled table (its date), not the user's."""

    @property
    def note(self) -> str | None:
        """What a summary shows about this line's price, if anything."""
        parts: list[str] = []
        if self.priced_as is not None:
            parts.append(f"priced as {self.priced_as} (no price for the dated name)")
        if self.bundled_as_of is not None:
            parts.append(f"priced from Eunomia's bundled table of {self.bundled_as_of} "
                         "(check it, or price the model in llm_cost.yml)")
        return f"{self.llm} " + "; ".join(parts) if parts else None

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
    """Cost of one case (or any group of calls); totals are ``None`` when any price is unknown,
    and when the calls were not measured at all: ``CostSummary()`` is a cost nobody measured
    (a system that reported no token usage), never 0. A group measured to have made no call
    (``no_calls``, what :meth:`PriceTable.summarize` of no calls gives) costs a known 0."""

    details: tuple[CostLine, ...] = ()
    unknown_models: tuple[str, ...] = field(default=())
    no_calls: bool = False
    """The calls were measured and there were none."""

    @property
    def measured(self) -> bool:
        """Whether anything is known about these calls (lines, or knowing there were none)."""
        return bool(self.details) or self.no_calls

    @property
    def notes(self) -> tuple[str, ...]:
        """Which price entries stood in for which model names (dated names)."""
        return tuple(n for line in self.details if (n := line.note) is not None)

    @property
    def total_input_cost(self) -> float | None:
        if self.unknown_models or not self.measured:
            return None
        return sum(line.input_cost or 0.0 for line in self.details)

    @property
    def total_output_cost(self) -> float | None:
        if self.unknown_models or not self.measured:
            return None
        return sum(line.output_cost or 0.0 for line in self.details)

    @property
    def total_cost(self) -> float | None:
        if self.unknown_models or not self.measured:
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


@dataclass(frozen=True, slots=True)
class PriceMatch:
    """The price entry a model name resolved to."""

    entry: str
    """The entry's name in the table."""
    price: ModelPrice
    dated: bool = False
    """True when a dated name was priced as its undated entry."""


_BUNDLED_KEY = "bundled_as_of"
"""Marks a stored entry that came from the bundled table (never read from llm_cost.yml)."""


class PriceTable:
    """Prices by model name; lookups also try case-insensitive and provider-less names, then
    a dated name's undated entry."""

    def __init__(self, prices: Mapping[str, ModelPrice] | None = None, *,
                 bundled: Mapping[str, str] | None = None) -> None:
        self._prices: dict[str, ModelPrice] = dict(prices or {})
        self._folded = {k.casefold(): k for k in self._prices}
        self._bundled: dict[str, str] = {k: v for k, v in (bundled or {}).items()
                                         if k in self._prices}
        """Entries that come from Eunomia's bundled table -> its date."""

    def __len__(self) -> int:
        return len(self._prices)

    def models(self) -> list[str]:
        return list(self._prices)

    def to_json(self) -> dict[str, Any]:
        """The table as a run stores it (a bundled entry carries its table's date)."""
        out: dict[str, Any] = {}
        for name, price in self._prices.items():
            entry = price.model_dump()
            if name in self._bundled:
                entry[_BUNDLED_KEY] = self._bundled[name]
            out[name] = entry
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PriceTable:
        prices: dict[str, ModelPrice] = {}
        bundled: dict[str, str] = {}
        for name, p in data.items():
            fields = dict(p)
            as_of = fields.pop(_BUNDLED_KEY, None)
            if as_of is not None:
                bundled[name] = str(as_of)
            prices[name] = ModelPrice.model_validate(fields)
        return cls(prices, bundled=bundled)

    def merged(self, other: PriceTable) -> PriceTable:
        """A new table with ``other``'s prices taking precedence."""
        bundled = {k: v for k, v in self._bundled.items() if k not in other._prices}
        return PriceTable({**self._prices, **other._prices}, bundled={**bundled, **other._bundled})

    def _entry(self, name: str) -> str | None:
        return name if name in self._prices else self._folded.get(name.casefold())

    def resolve(self, model: str) -> PriceMatch | None:
        """The entry pricing ``model``: its own name (also case-insensitive and without a
        provider prefix), else, for a dated snapshot name, the undated one."""
        names = provider_less(model)
        for name in names:
            entry = self._entry(name)
            if entry is not None:
                return PriceMatch(entry, self._prices[entry])
        for name in names:
            base = undated(name)
            entry = self._entry(base) if base is not None else None
            if entry is not None:
                return PriceMatch(entry, self._prices[entry], dated=True)
        return None

    def lookup(self, model: str) -> ModelPrice | None:
        match = self.resolve(model)
        return match.price if match is not None else None

    def cost_line(self, count: TokenCount) -> CostLine:
        match = self.resolve(count.model)
        if match is None:
            return CostLine(
                count.model, count.input_tokens, count.output_tokens,
                count.cached_input_tokens, None, None,
            )
        price = match.price
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
            count.model, count.input_tokens, count.output_tokens, cached, input_cost, output_cost,
            match.entry if match.dated else None, self._bundled.get(match.entry),
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
        return CostSummary(lines, unknown, no_calls=not lines)


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

