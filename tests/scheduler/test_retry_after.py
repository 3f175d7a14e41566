"""parse_retry_after: delay-seconds, HTTP-dates, garbage and negative values."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from email.utils import format_datetime

import pytest

from eunomia.scheduler import parse_retry_after

NOW = datetime(2024, 5, 1, 12, 0, 0, tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("value", "seconds"),
    [("3", 3.0), ("0", 0.0), (" 120 ", 120.0), ("1.5", 1.5)],
)
def test_delay_seconds(value: str, seconds: float) -> None:
    assert parse_retry_after(value) == seconds


def test_http_date_in_the_future() -> None:
    assert parse_retry_after("Wed, 01 May 2024 12:00:30 GMT", now=NOW) == pytest.approx(30.0)


def test_http_date_built_with_format_datetime() -> None:
    when = datetime(2024, 5, 1, 12, 2, 0, tzinfo=UTC)
    assert parse_retry_after(format_datetime(when, usegmt=True), now=NOW) == pytest.approx(120.0)


def test_http_date_in_the_past_means_no_wait() -> None:
    assert parse_retry_after("Wed, 01 May 2024 11:00:00 GMT", now=NOW) == 0.0


def test_http_date_uses_the_current_time_by_default() -> None:
    wait = parse_retry_after("Fri, 01 Jan 2100 00:00:00 GMT")
    assert wait is not None and wait > 365 * 24 * 3600


@pytest.mark.parametrize("value", [None, "", "   ", "soon", "nan", "3 seconds", "Wed, 99 Foo"])
def test_absent_or_garbage_is_none(value: str | None) -> None:
    assert parse_retry_after(value) is None


@pytest.mark.parametrize("value", ["-5", "-0.1"])
def test_negative_never_gives_a_negative_wait(value: str) -> None:
    result = parse_retry_after(value)
    # delay-seconds is 1*DIGIT, so a negative value may be refused (None) or clamped
    # to 0, but it must never become a negative delay
    assert result is None or result == 0.0


@pytest.mark.parametrize("value", ["inf", "Infinity", "1e400"])
def test_infinite_values_are_refused(value: str) -> None:
    result = parse_retry_after(value)
    assert result is None or math.isfinite(result)
