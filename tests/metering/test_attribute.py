"""Attributing recorded LLM calls to case windows, from times alone (no server)."""

from __future__ import annotations

import itertools

import pytest

from eunomia.metering import AttributionMethod, LLMCall, Window, attribute

_seq = itertools.count(1)


def call(start: float, end: float, tokens: int = 10) -> LLMCall:
    return LLMCall(seq=next(_seq), model="gpt-x", input_tokens=tokens, output_tokens=1,
                   started_at=start, ended_at=end, status=200)


def test_one_case_in_flight_gets_its_calls_exactly() -> None:
    windows = [Window("a", 0.0, 10.0), Window("b", 10.5, 20.0)]
    c1, c2, c3 = call(1, 4), call(5, 9), call(11, 19)
    result = attribute([c3, c1, c2], windows)
    assert result.calls_of("a") == [c1, c2] and result.calls_of("b") == [c3]
    assert {c.method for cs in result.claims.values() for c in cs} == {AttributionMethod.EXACT}
    assert result.method("a") is result.method("b") is AttributionMethod.EXACT
    assert not result.unattributed and not result.pending


def test_calls_outside_every_request_count_in_totals_only() -> None:
    windows = [Window("a", 10.0, 20.0)]
    before, straddling, outliving = call(1, 2), call(9, 12), call(15, 25)
    result = attribute([before, straddling, outliving], windows)
    # a call that began before the request, or ended after its answer, is not its
    assert result.unattributed == [before, straddling, outliving]
    assert result.claims == {}


def test_several_in_flight_the_first_to_finish_after_the_call_gets_it() -> None:
    a, b = Window("a", 0.0, 10.0), Window("b", 1.0, 30.0)
    only_b = call(11, 20)  # after a's answer: only b was in flight
    shared = call(2, 8)  # a and b both in flight
    late_start = call(0.5, 9)  # began before b's request: a's alone
    result = attribute([only_b, shared, late_start], [a, b])
    assert result.calls_of("a") == [shared, late_start]
    assert result.calls_of("b") == [only_b]
    methods = {c.call.seq: c.method for cs in result.claims.values() for c in cs}
    assert methods[shared.seq] is AttributionMethod.OVERLAP
    assert methods[late_start.seq] is AttributionMethod.EXACT
    assert methods[only_b.seq] is AttributionMethod.EXACT
    # both figures are approximate: the shared call may have been b's
    assert result.shared == {"a", "b"}
    assert result.method("b") is AttributionMethod.OVERLAP


def test_calls_of_requests_still_in_flight_wait() -> None:
    a, b = Window("a", 0.0), Window("b", 1.0)
    c = call(2, 3)
    result = attribute([c], [a, b])
    assert result.pending == [c] and result.claims == {}
    b.ended_at = 4.0
    assert attribute([c], [a, b]).calls_of("b") == [c]


def test_tolerance_widens_windows() -> None:
    w = Window("a", 10.0, 20.0)
    c = call(9.98, 20.01)
    assert attribute([c], [w]).unattributed == [c]
    assert attribute([c], [w], tolerance=0.05).calls_of("a") == [c]
    with pytest.raises(ValueError):
        attribute([c], [w], tolerance=-1)


def test_call_record_checks_its_numbers() -> None:
    with pytest.raises(ValueError, match="ended_at is before started_at"):
        LLMCall(seq=1, model="m", input_tokens=1, output_tokens=1, started_at=5, ended_at=4,
                status=200)
    with pytest.raises(ValueError, match="together"):
        LLMCall(seq=1, model="m", input_tokens=1, output_tokens=None, started_at=1,
                ended_at=2, status=200)
    with pytest.raises(ValueError):
        LLMCall(seq=1, model="m", input_tokens=-1, output_tokens=1, started_at=1, ended_at=2,
                status=200)
    with pytest.raises(ValueError):
        LLMCall.model_validate_json('{"seq": 1, "model": "m", "input_tokens": 1, '
                                    '"output_tokens": 1, "started_at": 1e999, "ended_at": 2, '
                                    '"status": 200}')
