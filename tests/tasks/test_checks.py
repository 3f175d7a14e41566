"""Deterministic checks beside the judge."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from eunomia.tasks import CheckSpec, count_words, run_check, run_checks


def check(**kwargs: object) -> CheckSpec:
    return CheckSpec.model_validate(kwargs)


def test_contains_ignores_case_and_needs_every_item() -> None:
    assert run_check(check(contains="30 Days"), "within 30 days").passed
    result = run_check(check(contains=["30 days", "refund"]), "within 30 days")
    assert not result.passed and "'refund'" in result.detail


def test_not_contains() -> None:
    assert run_check(check(not_contains="best"), "A good kettle.").passed
    assert not run_check(check(not_contains=["best", "luxurious"]), "The BEST kettle").passed


def test_regex() -> None:
    assert run_check(check(regex=r"\b(no|won't)\b"), "No, it will not arrive.").passed
    assert not run_check(check(regex=r"^\d+$"), "forty").passed


def test_word_limits() -> None:
    text = "one two three four-five it's"
    assert count_words(text) == 5
    assert run_check(check(max_words=5), text).passed
    assert not run_check(check(max_words=4), text).passed
    assert run_check(check(min_words=5), text).passed
    assert run_check(check(min_words=6), text).detail == "5 words"


def test_json_validity() -> None:
    assert run_check(check(json=True), '{"a": 1}').passed
    fenced = run_check(check(json=True), 'Sure:\n```json\n{"a": 1}\n```')
    assert not fenced.passed and "embedded" in fenced.detail
    assert not run_check(check(json=True), "hello").passed
    assert run_check(check(json=False), "hello").passed


def test_each_check_is_reported_separately() -> None:
    results = run_checks([check(contains="a"), check(max_words=1)], "a b")
    assert [r.passed for r in results] == [True, False]


@pytest.mark.parametrize("bad", [{}, {"contains": "a", "max_words": 3}, {"regex": "("},
                                 {"unknown": 1}])
def test_a_check_needs_exactly_one_valid_rule(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        CheckSpec.model_validate(bad)
