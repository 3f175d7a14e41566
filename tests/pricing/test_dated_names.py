"""Dated model names priced as their undated entry (with a note), the bundled price table, and
a system's own cost figure compared with Eunomia's."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest
import yaml

from eunomia.pricing import (
    BUNDLED_PRICES_FILE,
    ModelPrice,
    PriceTable,
    TokenCount,
    bundled_prices,
    bundled_prices_as_of,
    cost_disagrees,
    load_prices,
    undated,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_PRICES = ROOT / "examples" / "scenarios" / "llm_cost.yml"
BPMN_LOAN_PRICES = ROOT.parent / "shared" / "conformance" / "eunomia_testbench" / "scenarios" / \
    "llm_cost.yml"

MINI = ModelPrice(input_cost_per_million=0.15, cached_input_cost_per_million=0.075,
                  output_cost_per_million=0.60)
OLD_4O = ModelPrice(input_cost_per_million=5.0, output_cost_per_million=15.0)
TABLE = PriceTable({
    "gpt-4o-mini": MINI,
    "gpt-4o": ModelPrice(input_cost_per_million=2.5, output_cost_per_million=10.0),
    "gpt-4o-2024-05-13": OLD_4O,
    "Claude-Sonnet-4": ModelPrice(input_cost_per_million=3.0, output_cost_per_million=15.0),
    "gpt-4": ModelPrice(input_cost_per_million=30.0, output_cost_per_million=60.0),
})


@pytest.mark.parametrize(("name", "base"), [
    ("gpt-4o-mini-2024-07-18", "gpt-4o-mini"),
    ("gpt-4o-2024-11-20", "gpt-4o"),
    ("o3-mini-2025-01-31", "o3-mini"),
    ("claude-3-5-haiku-20241022", "claude-3-5-haiku"),
    ("claude-sonnet-4-20250514", "claude-sonnet-4"),
    ("claude-3-5-sonnet@20240620", "claude-3-5-sonnet"),  # Vertex AI
    ("gpt-4-0613", "gpt-4"),
    ("gpt-3.5-turbo-0125", "gpt-3.5-turbo"),
    ("gpt-4o", None),
    ("gpt-4o-mini", None),
    ("qwen3-instruct-2507", None),  # a version, not a month and day
    ("model-0000", None),
    ("gpt-4-1106-preview", None),  # the date is not at the end
    ("2024-07-18", None),
])
def test_undated(name: str, base: str | None) -> None:
    assert undated(name) == base


def test_a_dated_name_is_priced_as_its_undated_entry_with_a_note() -> None:
    match = TABLE.resolve("gpt-4o-mini-2024-07-18")
    assert match is not None and (match.entry, match.price, match.dated) == (
        "gpt-4o-mini", MINI, True)
    line = TABLE.cost_line(TokenCount("gpt-4o-mini-2024-07-18", 3293, 410, 1000))
    assert line.priced_as == "gpt-4o-mini" and line.known
    assert line.total == pytest.approx((2293 * 0.15 + 1000 * 0.075 + 410 * 0.60) / 1e6)
    assert line.note == "gpt-4o-mini-2024-07-18 priced as gpt-4o-mini (no price for the dated name)"


def test_a_snapshot_priced_itself_keeps_its_own_price() -> None:
    match = TABLE.resolve("gpt-4o-2024-05-13")
    assert match is not None and (match.entry, match.price, match.dated) == (
        "gpt-4o-2024-05-13", OLD_4O, False)
    assert TABLE.cost_line(TokenCount("gpt-4o-2024-05-13", 10, 10)).priced_as is None


def test_prefixed_and_case_folded_dated_names() -> None:
    for name in ("openai:gpt-4o-mini-2024-07-18", "OpenAI/GPT-4o-Mini-2024-07-18"):
        match = TABLE.resolve(name)
        assert match is not None and match.entry == "gpt-4o-mini" and match.dated
    match = TABLE.resolve("anthropic:claude-sonnet-4-20250514")
    assert match is not None and match.entry == "Claude-Sonnet-4"  # the table's spelling
    assert TABLE.lookup("gpt-4-0613") == TABLE.lookup("gpt-4")


def test_undated_names_are_not_noted_and_unknown_stays_unknown() -> None:
    summary = TABLE.summarize([
        TokenCount("gpt-4o-mini", 100, 10),
        TokenCount("gpt-4o-mini-2024-07-18", 100, 10),
        TokenCount("openai:gpt-4o", 5, 5),
    ])
    assert summary.unknown_models == ()
    assert summary.notes == (
        "gpt-4o-mini-2024-07-18 priced as gpt-4o-mini (no price for the dated name)",)
    assert [line.priced_as for line in summary.details] == [None, "gpt-4o-mini", None]
    unknown = TABLE.summarize([TokenCount("gpt-5-nano-2025-08-07", 100, 10)])
    assert unknown.unknown_models == ("gpt-5-nano-2025-08-07",)
    assert unknown.total_cost is None and unknown.notes == ()


def test_the_issue_case_bpmn_loans_table_misses_gpt_4o_mini_but_the_bundled_one_has_it() -> None:
    if not BPMN_LOAN_PRICES.is_file():
        pytest.skip("../shared/conformance not present")
    scenario = load_prices(BPMN_LOAN_PRICES)
    assert scenario.lookup("gpt-4o-mini") is None
    prices = bundled_prices().merged(scenario)
    summary = prices.summarize([TokenCount("gpt-4o-mini-2024-07-18", 1_000_000, 1_000_000)])
    assert summary.total_cost == pytest.approx(0.15 + 0.60)
    as_of = f"{bundled_prices_as_of():%Y-%m-%d}"
    assert summary.notes == (
        "gpt-4o-mini-2024-07-18 priced as gpt-4o-mini (no price for the dated name); priced "
        f"from Eunomia's bundled table of {as_of} (check it, or price the model in "
        "llm_cost.yml)",)
    # the scenario's own prices still win over the bundled ones, and carry no note
    assert prices.lookup("gpt-4o-2024-05-13") == scenario.lookup("gpt-4o-2024-05-13")
    own = prices.summarize([TokenCount("gpt-4o-2024-05-13", 10, 10)])
    assert own.notes == () and own.total_cost is not None
    assert prices.summarize([TokenCount("brand-new-model", 1, 1)]).total_cost is None
    # a run stores its table and reads it back with the marks
    again = PriceTable.from_json(prices.to_json())
    assert again.summarize([TokenCount("gpt-4o-mini", 1, 1)]).notes == (
        f"gpt-4o-mini priced from Eunomia's bundled table of {as_of} (check it, or price the "
        "model in llm_cost.yml)",)
    assert again.lookup("gpt-4o-2024-05-13") == scenario.lookup("gpt-4o-2024-05-13")


def test_bundled_table_is_dated_valid_and_the_lowest_priority() -> None:
    raw = yaml.safe_load(BUNDLED_PRICES_FILE.read_text(encoding="utf-8"))
    assert datetime.date.fromisoformat(str(raw["as_of"])) == bundled_prices_as_of()
    assert "CHECK THEM BEFORE RELYING ON TOTALS" in BUNDLED_PRICES_FILE.read_text("utf-8")
    table = bundled_prices()
    assert sorted(table.models()) == sorted(raw["llm_costs"])
    for name in ("gpt-4o-mini", "gpt-4o", "gpt-4.1", "o3-mini", "gpt-5", "claude-sonnet-4-5",
                 "claude-3-5-haiku"):
        assert table.lookup(name) is not None, name
    for name in table.models():
        price = table.lookup(name)
        assert price is not None
        if name != "eunomia-example-rules":
            assert 0 < price.input_cost_per_million <= price.output_cost_per_million, name
        cached = price.cached_input_cost_per_million
        assert cached is None or cached <= price.input_cost_per_million, name
    mine = PriceTable({"gpt-4o-mini": ModelPrice(input_cost_per_million=9.0,
                                                 output_cost_per_million=9.0)})
    assert table.merged(mine).lookup("gpt-4o-mini-2024-07-18") == mine.lookup("gpt-4o-mini")
    line = table.merged(mine).summarize([TokenCount("gpt-4o-mini", 1, 1)])
    assert line.notes == ()  # the user's own price: nothing to say


def test_example_price_file_agrees_with_the_bundled_table() -> None:
    example = load_prices(EXAMPLE_PRICES)
    bundled = bundled_prices()
    shared = set(example.models()) & set(bundled.models())
    assert {"gpt-4o-mini", "gpt-4o", "gpt-4o-2024-05-13", "claude-sonnet-4-5"} <= shared
    for name in shared:
        assert example.lookup(name) == bundled.lookup(name), name


def test_cost_disagrees() -> None:
    # the real module's own figure: (3293 + 410) tokens at the output rate of its .env (15)
    athena = (3293 + 410) * 15 / 1e6
    eunomia = (3293 * 0.15 + 410 * 0.60) / 1e6
    assert cost_disagrees(athena, eunomia) is True
    assert cost_disagrees(eunomia, eunomia * 1.001) is False
    assert cost_disagrees(0.0, 0.0) is False
    assert cost_disagrees(None, eunomia) is None and cost_disagrees(athena, None) is None
