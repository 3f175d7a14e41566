"""Answers that look right and are wrong, built from the real suites: each one really
changes the answer, or is skipped with its reason (never the reference copied)."""

from __future__ import annotations

from collections import Counter

import pytest
from tests.controls.real_cases import RealCase, case_named

from eunomia.tasks import ALTERED_KINDS, Built, Skipped, altered_answers
from eunomia.tasks._facts import changed_number
from eunomia.tasks._text import numbers, sentences


def _built(c: RealCase) -> dict[str, Built]:
    return {a.kind: a for a in altered_answers(c.case, c.reference, c.others)
            if isinstance(a, Built)}


def test_every_alteration_changes_the_answer_or_says_why_not(cases: list[RealCase]) -> None:
    built: Counter[str] = Counter()
    skipped: Counter[str] = Counter()
    for c in cases:
        got = altered_answers(c.case, c.reference, c.others)
        assert [a.kind for a in got] == list(ALTERED_KINDS)
        for a in got:
            if isinstance(a, Built):
                assert " ".join(a.text.split()) != " ".join(c.reference.split()), (c.case.name,
                                                                                  a.kind)
                assert a.text.strip() and a.how
                built[a.kind] += 1
            else:
                assert isinstance(a, Skipped) and a.reason
                skipped[a.kind] += 1
    # most cases of the real suites get each alteration; the rest are counted, not faked
    total = len(cases)
    assert built["negated"] >= 0.85 * total
    assert built["dropped"] >= 0.85 * total
    assert built["numbers"] >= 0.4 * total
    assert built["entity"] >= 0.3 * total
    assert built["form"] >= 0.5 * total
    assert sum(skipped.values()) > 0  # some cannot apply: no number, one sentence, ...
    assert altered_answers(cases[0].case, cases[0].reference, cases[0].others) == \
        altered_answers(cases[0].case, cases[0].reference, cases[0].others)


def test_changed_numbers_are_all_different_and_keep_their_form(cases: list[RealCase]) -> None:
    for c in cases:
        got = _built(c).get("numbers")
        before = [m.group(0) for m in numbers(c.reference)]
        if got is None:
            assert not before and not any(w in c.reference.lower().split()
                                          for w in ("two", "three", "four", "five"))
            continue
        after = [m.group(0) for m in numbers(got.text)]
        assert len(after) == len(before)
        assert all(a != b for a, b in zip(after, before, strict=True)), (c.case.name, after)
    kettle = _built(case_named(cases, "ecommerce/summarization", "sum-01"))["numbers"].text
    assert "2.6-litre" in kettle and "3300 W" in kettle and "five minutes" in kettle
    order = _built(case_named(cases, "ecommerce/instruction_following", "if-03"))
    assert '"88232"' in order["numbers"].text and "4 working days" in order["numbers"].text


@pytest.mark.parametrize(("value", "decimals", "percent", "year", "expected"), [
    (0, 0, False, False, 2), (3, 0, False, False, 5), (4, 0, False, False, 6),
    (30, 0, False, False, 45), (7, 0, False, False, 11), (1.7, 1, False, False, 2.6),
    (4.90, 2, False, False, 7.35), (70, 0, True, False, 35), (2200, 0, False, False, 3300),
    (88231, 0, False, False, 88232), (88239, 0, False, False, 88238),
    (2024, 0, False, True, 2021)])
def test_a_number_changes_to_a_plausible_wrong_value(value: float, decimals: int, percent: bool,
                                                     year: bool, expected: float) -> None:
    assert changed_number(value, decimals, percent, year=year) == pytest.approx(expected)


def test_names_are_swapped_for_names_of_their_kind(cases: list[RealCase]) -> None:
    tv = _built(case_named(cases, "ecommerce/general_knowledge", "gk-02"))["entity"]
    assert tv.text.startswith("In an LCD TV every pixel makes its own light")
    assert "An OLED TV lights its pixels with a backlight" in tv.text
    days = _built(case_named(cases, "ecommerce/common_sense_reasoning", "cs-01"))["entity"]
    assert "Thursday" in days.text and "Monday" not in days.text
    sizes = _built(case_named(cases, "ecommerce/common_sense_reasoning", "cs-02"))["entity"]
    assert sizes.text.startswith("Consider an M: a true-to-size L fits")
    code = _built(case_named(cases, "ecommerce/general_knowledge", "gk-01"))["entity"]
    assert code.text.startswith("IP68 is")
    german = case_named(cases, "ecommerce/instruction_following", "if-04")
    assert "entity" not in _built(german)  # German nouns are capitalised: not names


def test_the_key_claim_is_negated(cases: list[RealCase]) -> None:
    party = _built(case_named(cases, "ecommerce/common_sense_reasoning", "cs-01"))["negated"]
    assert party.text.startswith("Yes: the working days")
    swim = _built(case_named(cases, "ecommerce/instruction_following", "if-02"))["negated"]
    assert swim.text.startswith("A faulty item cannot always be returned")
    kettle = _built(case_named(cases, "ecommerce/summarization", "sum-01"))["negated"]
    assert "kettle does not boil a litre" in kettle.text
    toddler = _built(case_named(cases, "ecommerce/common_sense_reasoning", "cs-04"))["negated"]
    assert toddler.text.startswith("It may be the best choice with toddlers")


def test_the_most_important_sentence_is_dropped(cases: list[RealCase]) -> None:
    for c in cases:
        got = _built(c).get("dropped")
        if got is None:
            assert len(sentences(c.reference)) < 2
            continue
        assert len(sentences(got.text)) == len(sentences(c.reference)) - 1
    tins = _built(case_named(cases, "ecommerce/common_sense_reasoning", "cs-03"))["dropped"]
    assert "buy 4 tins" not in tins.text and "two coats make 80" in tins.text
    thread = _built(case_named(cases, "ecommerce/summarization", "sum-03"))["dropped"]
    assert "Ana Ruiz" not in thread.text and thread.text.startswith("- Problem:")


def test_the_requested_form_is_ignored(cases: list[RealCase]) -> None:
    json_case = _built(case_named(cases, "ecommerce/instruction_following", "if-03"))["form"]
    assert json_case.text.startswith("The order id is 88231. The status is shipped.")
    paragraph = _built(case_named(cases, "ecommerce/summarization", "sum-01"))["form"]
    assert paragraph.text.startswith("- This 1.7-litre") and paragraph.text.count("\n- ") == 1
    listed = _built(case_named(cases, "ecommerce/summarization", "sum-03"))["form"]
    assert "\n" not in listed.text and listed.text.startswith("Customer: Ana Ruiz")
    brief = case_named(cases, "ecommerce/instruction_following", "if-01")  # at most 3 sentences
    long = _built(brief)["form"]
    assert len(long.text.split()) >= 3 * len(brief.reference.split())
    german = case_named(cases, "ecommerce/instruction_following", "if-04")
    skipped = [a for a in altered_answers(german.case, german.reference)
               if isinstance(a, Skipped) and a.kind == "form"]
    assert skipped and "translation" in skipped[0].reason
