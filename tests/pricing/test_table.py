"""Token prices and costs: the document's example, cached tokens, unknown models, bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from eunomia.errors import EunomiaError, Severity
from eunomia.pricing import (
    ModelPrice,
    PriceTable,
    TokenCount,
    load_price_file,
    load_prices,
)

CONFORMANCE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"
REAL_PRICE_FILE = CONFORMANCE / "eunomia_testbench" / "scenarios" / "llm_cost.yml"

PRICE_FILE = """\
llm_costs:
  gpt-4o:
    input_cost_per_million: 2.50
    cached_input_cost_per_million: 1.25
    output_cost_per_million: 10.00

  o1-preview-2024-09-12:
    input_cost_per_million: 15.00
    cached_input_cost_per_million: 7.50
    output_cost_per_million: 60.00

  no-cache-rate:
    input_cost_per_million: 4.00
    output_cost_per_million: 8.00
"""


def write(tmp_path: Path, text: str, name: str = "llm_cost.yml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def table(tmp_path: Path) -> PriceTable:
    loaded, problems = load_price_file(write(tmp_path, PRICE_FILE))
    assert problems == []
    assert sorted(loaded.models()) == ["gpt-4o", "no-cache-rate", "o1-preview-2024-09-12"]
    return loaded


def test_document_example_cost(table: PriceTable) -> None:
    summary = table.summarize([TokenCount("o1-preview-2024-09-12", 4851, 7146)])
    assert summary.unknown_models == ()
    assert summary.total_cost == pytest.approx(0.501525, abs=1e-12)
    assert summary.total_input_cost == pytest.approx(0.072765, abs=1e-12)
    assert summary.total_output_cost == pytest.approx(0.42876, abs=1e-12)
    (line,) = summary.details
    assert line.llm == "o1-preview-2024-09-12"
    assert line.input_cost == pytest.approx(0.072765, abs=1e-12)
    assert line.output_cost == pytest.approx(0.42876, abs=1e-12)
    assert line.total == pytest.approx(0.501525, abs=1e-12)
    assert (summary.input_tokens, summary.output_tokens) == (4851, 7146)


def test_document_example_with_the_real_price_file() -> None:
    if not REAL_PRICE_FILE.is_file():
        pytest.skip(f"real llm_cost.yml not found at {REAL_PRICE_FILE}")
    table = load_prices(REAL_PRICE_FILE)
    assert len(table) == 7
    summary = table.summarize([TokenCount("o1-preview-2024-09-12", 4851, 7146)])
    assert summary.total_cost == pytest.approx(0.501525, abs=1e-12)


def test_cached_input_tokens_use_the_cached_rate(table: PriceTable) -> None:
    line = table.cost_line(TokenCount("gpt-4o", 1_000_000, 0, cached_input_tokens=400_000))
    assert line.cached_input_tokens == 400_000
    # 600k at 2.50 + 400k at 1.25
    assert line.input_cost == pytest.approx(1.5 + 0.5)
    assert line.output_cost == 0.0


def test_cached_rate_defaults_to_the_input_rate(table: PriceTable) -> None:
    line = table.cost_line(TokenCount("no-cache-rate", 1_000_000, 500_000, 250_000))
    assert line.input_cost == pytest.approx(4.0)
    assert line.output_cost == pytest.approx(4.0)


def test_cached_tokens_are_clamped_to_the_input_tokens(table: PriceTable) -> None:
    line = table.cost_line(TokenCount("gpt-4o", 1000, 0, cached_input_tokens=5000))
    assert line.cached_input_tokens == 1000
    assert line.input_cost == pytest.approx(1000 * 1.25 / 1e6)
    negative = table.cost_line(TokenCount("gpt-4o", 1000, 0, cached_input_tokens=-50))
    assert negative.cached_input_tokens == 0
    assert negative.input_cost == pytest.approx(1000 * 2.5 / 1e6)


def test_calls_to_one_model_are_added_up(table: PriceTable) -> None:
    summary = table.summarize([
        TokenCount("gpt-4o", 1_000_000, 0),
        TokenCount("o1-preview-2024-09-12", 0, 1_000_000),
        TokenCount("gpt-4o", 0, 100_000, 0),
    ])
    assert [line.llm for line in summary.details] == ["gpt-4o", "o1-preview-2024-09-12"]
    assert summary.details[0].input_tokens == 1_000_000
    assert summary.details[0].output_tokens == 100_000
    assert summary.total_cost == pytest.approx(2.5 + 1.0 + 60.0)


def test_unknown_model_gives_none_totals_and_is_listed(table: PriceTable) -> None:
    summary = table.summarize([
        TokenCount("gpt-4o", 1_000_000, 0),
        TokenCount("brand-new-model", 100, 200),
    ])
    assert summary.unknown_models == ("brand-new-model",)
    assert summary.total_cost is None
    assert summary.total_input_cost is None
    assert summary.total_output_cost is None
    known, unknown = summary.details
    assert known.total == pytest.approx(2.5) and known.known
    assert unknown.known is False
    assert unknown.input_cost is None and unknown.output_cost is None and unknown.total is None
    assert (unknown.input_tokens, unknown.output_tokens) == (100, 200)
    assert summary.input_tokens == 1_000_100


def test_no_calls_costs_zero(table: PriceTable) -> None:
    summary = table.summarize([])
    assert summary.details == ()
    assert summary.total_cost == 0.0


@pytest.mark.parametrize(
    "name",
    ["gpt-4o", "openai:gpt-4o", "openai/gpt-4o", "GPT-4o", "OpenAI:GPT-4O"],
)
def test_lookup_by_provider_prefixed_and_case_folded_names(table: PriceTable, name: str) -> None:
    price = table.lookup(name)
    assert price is not None
    assert price.input_cost_per_million == 2.5
    assert table.cost_line(TokenCount(name, 1_000_000, 0)).input_cost == pytest.approx(2.5)


def test_lookup_misses(table: PriceTable) -> None:
    assert table.lookup("gpt-4") is None
    assert table.lookup("anthropic:claude") is None
    assert table.lookup("") is None


def test_merged_table_prefers_the_other(table: PriceTable) -> None:
    other = PriceTable({"gpt-4o": ModelPrice(input_cost_per_million=1, output_cost_per_million=1),
                        "x": ModelPrice(input_cost_per_million=0, output_cost_per_million=0)})
    merged = table.merged(other)
    assert len(merged) == 4
    assert merged.lookup("gpt-4o") == other.lookup("gpt-4o")
    assert merged.lookup("o1-preview-2024-09-12") is not None
    assert len(table) == 3  # unchanged


# --- bad files ----------------------------------------------------------------------------------


def test_non_numeric_price_names_key_path_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, PRICE_FILE.replace("output_cost_per_million: 60.00",
                                              "output_cost_per_million: sixty"))
    table, problems = load_price_file(path)
    assert len(table) == 0
    (diag,) = problems
    assert diag.severity is Severity.ERROR
    assert diag.file == path
    assert diag.key == "llm_costs.o1-preview-2024-09-12.output_cost_per_million"
    assert diag.line == 10
    assert "sixty" in diag.message


def test_negative_price_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, PRICE_FILE.replace("input_cost_per_million: 2.50",
                                              "input_cost_per_million: -2.50"))
    table, problems = load_price_file(path)
    assert len(table) == 0
    (diag,) = problems
    assert diag.key == "llm_costs.gpt-4o.input_cost_per_million"
    assert diag.line == 3
    assert "-2.5" in diag.message


def test_unknown_price_key_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, PRICE_FILE.replace("output_cost_per_million: 8.00",
                                              "output_cost_per_milion: 8.00"))
    _, problems = load_price_file(path)
    keys = {d.key for d in problems}
    assert "llm_costs.no-cache-rate.output_cost_per_milion" in keys
    assert "llm_costs.no-cache-rate.output_cost_per_million" in keys  # now missing


def test_malformed_yaml_names_file_and_line(tmp_path: Path) -> None:
    path = write(tmp_path, "llm_costs:\n  gpt-4o: {input_cost_per_million: 1\n  other: 2\n")
    table, problems = load_price_file(path)
    assert len(table) == 0
    (diag,) = problems
    assert diag.file == path
    assert "invalid YAML" in diag.message
    assert diag.line is not None and 2 <= diag.line <= 4


def test_empty_file_is_an_empty_table(tmp_path: Path) -> None:
    table, problems = load_price_file(write(tmp_path, ""))
    assert len(table) == 0 and problems == []


def test_missing_file_is_reported(tmp_path: Path) -> None:
    table, problems = load_price_file(tmp_path / "nope.yml")
    assert len(table) == 0
    (diag,) = problems
    assert diag.file == tmp_path / "nope.yml"


def test_load_prices_raises_with_the_diagnostics(tmp_path: Path) -> None:
    path = write(tmp_path, PRICE_FILE.replace("10.00", "ten"))
    with pytest.raises(EunomiaError) as info:
        load_prices(path)
    assert str(path) in str(info.value)
    assert [d.key for d in info.value.diagnostics] == ["llm_costs.gpt-4o.output_cost_per_million"]
    assert "llm_costs.gpt-4o.output_cost_per_million" in str(info.value)
