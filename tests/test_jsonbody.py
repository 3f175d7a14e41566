"""loads_fast reads a body as the json module does: orjson where it gives the same value, the
json-module reading where it would not (integers beyond 64 bits, NaN, what orjson refuses)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from eunomia.jsonbody import loads_fast


def _read(body: bytes) -> Any:
    return loads_fast(body, lambda: json.loads(body.decode("utf-8")))


@pytest.mark.parametrize("body", [
    b'{"id": 4503599627370497, "ids": [1, 22, 333], "t": "19 digits: 1234567890123456789"}',
    b'{"big": 123456789012345678901234567890}',
    b'[-9223372036854775809, 18446744073709551616]',
    b'{"n": NaN, "i": Infinity}',
    b'{"x": 1.5e300, "s": "caf\\u00e9"}',
    b"[]",
])
def test_the_same_value_as_the_json_module(body: bytes) -> None:
    expected = json.loads(body.decode("utf-8"))
    got = _read(body)
    assert json.dumps(got, sort_keys=True) == json.dumps(expected, sort_keys=True)
    assert type(got) is type(expected)


def test_integers_beyond_64_bits_stay_exact() -> None:
    got = _read(b'{"big": 123456789012345678901234567890, "neg": -9223372036854775809}')
    assert got == {"big": 123456789012345678901234567890, "neg": -9223372036854775809}
    assert isinstance(got["big"], int)


def test_the_reference_reading_is_used_only_when_needed() -> None:
    calls: list[int] = []

    def reference() -> Any:
        calls.append(1)
        return "from json"

    assert loads_fast(b'{"id": 4503599627370497}', reference) == {"id": 4503599627370497}
    assert calls == []
    assert loads_fast(b'{"id": 12345678901234567890123}', reference) == "from json"
    assert loads_fast(b"not json", reference) == "from json"
    assert loads_fast(b'{"a": 1}', reference, utf8=False) == "from json"
    assert len(calls) == 3
