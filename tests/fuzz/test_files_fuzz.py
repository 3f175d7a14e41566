"""Malformed ``llm_cost.yml`` and task suite YAML, and the real broken files of llmevalforge."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.fuzz._strategies import (
    CONFORMANCE,
    assert_names_file,
    broken_text,
    dump,
    errors,
    garbage,
    load,
    mutated,
)

from eunomia.pricing import PriceTable, load_price_file
from eunomia.yamlfile import YamlFileError, read_yaml

ROOT = Path(__file__).resolve().parents[2]
PRICES_TEXT = (ROOT / "examples" / "scenarios" / "llm_cost.yml").read_text(encoding="utf-8")
PRICES = yaml.safe_load(PRICES_TEXT)
CUSTOM_TASKS = CONFORMANCE / "llmevalforge" / "v1_862b0db" / "custom_tasks"
# the files of llmevalforge v1 that are not valid YAML, with the line PyYAML stops at
BROKEN = {
    "common_sense_reasoning_ecommerce_tests.yaml": 38,
    "ethical_reasoning_ecommerce_tests.yaml": 50,
    "general_knowledge_ecommerce_tests.yaml": 84,
    "instruction_following_ecommerce_tests.yaml": 102,
}

FUZZ = settings(max_examples=50, deadline=2000, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        yield Path(tmp)


def _doc_is_mapping(text: str) -> bool:
    try:
        return isinstance(load(text), dict)
    except yaml.YAMLError:
        return False


# --- llm_cost.yml -----------------------------------------------------------------------------


def _check_prices(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    table, diags = load_price_file(path)  # must not raise
    assert isinstance(table, PriceTable)
    assert_names_file(diags, {path})
    if _doc_is_mapping(text):
        for d in errors(diags):
            assert d.key and d.line is not None, d
    try:
        load(text)
    except yaml.YAMLError:
        (d,) = diags
        assert d.line is not None and "invalid YAML" in d.message


@FUZZ
@given(data=mutated(PRICES))
def test_mutated_price_file_never_raises(workdir: Path, data: Any) -> None:
    try:
        text = dump(data)
    except (yaml.YAMLError, OverflowError):
        return
    _check_prices(workdir / "llm_cost.yml", text)


@FUZZ
@given(text=st.one_of(broken_text(PRICES_TEXT), st.text(max_size=200),
                      garbage.map(lambda v: yaml.safe_dump(v, allow_unicode=True))))
def test_broken_price_text_never_raises(workdir: Path, text: str) -> None:
    _check_prices(workdir / "llm_cost.yml", text)


def test_price_file_errors_name_the_key(workdir: Path) -> None:
    path = workdir / "llm_cost.yml"
    path.write_text("llm_costs:\n  gpt-4o:\n    input_cost_per_million: -1\n"
                    "    output_cost_per_million: lots\n  m2: 5\n", encoding="utf-8")
    _, diags = load_price_file(path)
    keys = {d.key for d in errors(diags)}
    assert {"llm_costs.gpt-4o.input_cost_per_million", "llm_costs.gpt-4o.output_cost_per_million",
            "llm_costs.m2"} <= keys
    assert all(str(path) in str(d) for d in diags)


# --- task suites (YAML) --------------------------------------------------------------------------


def _tasks_loader() -> Any:
    try:
        from eunomia.tasks import load_suite
    except ImportError as exc:  # pragma: no cover - the task loader is written elsewhere
        pytest.skip(f"eunomia.tasks.load_suite is not available: {exc}")
    return load_suite


SUITE_TEXT = (CUSTOM_TASKS / "summarization_ecommerce_tests.yaml").read_text(encoding="utf-8") \
    if CUSTOM_TASKS.is_dir() else "- case_id: 1\n  category: Summarization\n  instruction: x\n"


@FUZZ
@given(data=mutated(yaml.safe_load(SUITE_TEXT)[:3]))
def test_mutated_task_suite_never_raises(workdir: Path, data: Any) -> None:
    load_suite = _tasks_loader()
    try:
        text = dump(data)
    except (yaml.YAMLError, OverflowError):
        return
    path = workdir / "summarization_ecommerce_tests.yaml"
    path.write_text(text, encoding="utf-8")
    suite, diags = load_suite(path)
    assert_names_file(diags, {path, path.parent})
    if suite is None:
        assert errors(diags)
    else:
        assert len(suite.cases) + len(suite.invalid) >= 1 or errors(diags)
    if isinstance(data, list):
        for d in errors(diags):
            assert d.line is not None, d


@FUZZ
@given(text=broken_text(SUITE_TEXT))
def test_syntax_broken_task_suite_is_one_error(workdir: Path, text: str) -> None:
    load_suite = _tasks_loader()
    path = workdir / "summarization_ecommerce_tests.yaml"
    path.write_text(text, encoding="utf-8")
    suite, diags = load_suite(path)
    assert_names_file(diags, {path, path.parent})
    try:
        load(text)
    except yaml.YAMLError:
        assert suite is None
        (d,) = diags
        assert d.line is not None and "invalid YAML" in d.message


# --- the real broken files ---------------------------------------------------------------------


needs_conformance = pytest.mark.skipif(not CUSTOM_TASKS.is_dir(),
                                       reason=f"conformance data not found at {CUSTOM_TASKS}")


@needs_conformance
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_real_broken_yaml_is_one_error_with_file_and_line(name: str) -> None:
    path = CUSTOM_TASKS / name
    with pytest.raises(YamlFileError) as caught:
        read_yaml(path)
    d = caught.value.diagnostic
    assert d.file == path
    assert d.line == BROKEN[name]
    assert d.column is not None
    assert f"{path}:{d.line}:" in str(d)
    assert "invalid YAML" in d.message
    if name.startswith("ethical"):
        assert "tab" in d.message


@needs_conformance
@pytest.mark.parametrize("name", sorted(BROKEN))
def test_real_broken_task_files_load_as_one_diagnostic(name: str) -> None:
    load_suite = _tasks_loader()
    path = CUSTOM_TASKS / name
    suite, diags = load_suite(path)
    assert suite is None
    (d,) = diags
    assert d.file == path and d.line is not None and "invalid YAML" in d.message


@needs_conformance
def test_every_other_conformance_yaml_parses() -> None:
    files = [p for p in sorted(CONFORMANCE.rglob("*.y*ml"))
             if not (p.parent == CUSTOM_TASKS and p.name in BROKEN)]
    assert len(files) >= 10
    for p in files:
        read_yaml(p)  # raises on a regression
