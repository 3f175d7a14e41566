"""The task export's YAML, written by libyaml (``eunomia.exports._yaml``): the same text as
PyYAML's pure-Python dumper on every case, what libyaml alone writes otherwise, the
double-quoted style, documents written a case at a time, and the data read back."""

from __future__ import annotations

import io
import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yaml.emitter import Emitter

from eunomia.exports import _pyyaml, _yaml
from eunomia.exports._yaml import (
    DUMP_OPTIONS,
    END_MARKER,
    SuiteYaml,
    case_yaml,
    cases_yaml,
    double_quoted,
    dump_yaml,
    libyaml_case_yaml,
    slow_case_yaml,
)

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "llmevalforge"
LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML without libyaml")

# --- strategies -------------------------------------------------------------------------------
_ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]),
                    max_size=250)
_PIECES = [*"abcxyz'é:#-,\"\\—", "\t", "\x07", "\ufeff", "\ue000", "\U0010ffff",
           "😀", "🎉", "\U0001d4b3", "\x85", "\u2028"]
_SEPARATORS = [" ", " ", "  ", "\n", " \n", "  \n", "\n ", "\n\n", "\t", ""]


def _words(pieces: list[str]) -> st.SearchStrategy[str]:
    """Text with spaces, line breaks and markdown hard breaks between words of ``pieces``;
    long enough to pass the line width."""
    return st.lists(st.tuples(st.text(alphabet=st.sampled_from(pieces), max_size=14),
                              st.sampled_from(_SEPARATORS)), max_size=40).map(
        lambda parts: "".join(w + s for w, s in parts))


def _cases(keys: st.SearchStrategy[str], texts: st.SearchStrategy[str]
           ) -> st.SearchStrategy[dict[str, Any]]:
    scalars = texts | st.integers() | st.floats() | st.booleans() | st.none()
    nested = scalars | st.lists(scalars, max_size=3) | st.dictionaries(keys, scalars,
                                                                       max_size=3)
    values = nested | st.lists(nested, max_size=3) | st.dictionaries(keys, nested,
                                                                     max_size=3)
    return st.dictionaries(keys, values, max_size=7)


_FIELD_KEYS = st.from_regex(r"[a-z_][a-z_0-9 ]{0,20}", fullmatch=True)
# anything: keys of any characters and lengths about libyaml's and PyYAML's limits
_ANY_CASES = _cases(_FIELD_KEYS | _ANY_TEXT.map(lambda t: t[:10])
                    | st.text(alphabet="ké ", min_size=110, max_size=135),
                    _ANY_TEXT | _words(_PIECES))
# what the exports write: field names as keys, no U+0085, U+2028, U+2029 (left to PyYAML)
_USUAL = [p for p in _PIECES if p not in "\x85\u2028"]
_USUAL_CASES = _cases(_FIELD_KEYS, _words(_USUAL) | st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"],
                           exclude_characters="\x85\u2028\u2029"), max_size=250))
_PROFILE = settings(deadline=None, suppress_health_check=list(HealthCheck))


# --- the same text as PyYAML ----------------------------------------------------------------
@settings(_PROFILE, max_examples=500)
@given(_ANY_CASES)
def test_any_case_is_written_as_pyyaml_writes_it(case: dict[str, Any]) -> None:
    assert case_yaml(case) == slow_case_yaml(case)


@settings(_PROFILE, max_examples=500)
@given(_USUAL_CASES)
def test_libyaml_writes_the_usual_cases_as_pyyaml(case: dict[str, Any]) -> None:
    fast = libyaml_case_yaml(case)
    assert fast is not None  # written by libyaml, not left to PyYAML
    assert fast == slow_case_yaml(case)


TRICKY: list[Any] = [
    "", " ", "true", "null", "42", "1e3", "- x", "a: b", "a #b", "'q'", "x" * 150,
    "word " * 40, "l1\nl2", "l1\n", "l1\n\n", "\nl1", " l1\nl2", "l1 \nl2", "\u2028x",
    "x\u2028", "tab\there", "ü — ✓ \U0001F600", "...", "---", "<<", "=", "~", "!", "&", "*",
    1.0, 1e17, -0.0, float("nan"), float("inf"), -float("inf"), 10**30, True, None, [], {},
    [[]], [{}], {"a": []}, "\n", "\n\n", " \n", "x\n\n\n", "😀\n\n", "😀" * 120,
    "😀 " * 60 + "\nend", "**Score**: 4  \n" + "The answer covers the key points. " * 8,
    "x" * 95 + "\t" + " y" * 30, "\t" * 60, "a\x85b", "\ufeffx", "\U0010ffff x",
    "\ue000 private \U0001F600", "line\r\nline", "x\x00y", "x" * 98 + " \n",
    "trailing \nspace ", _yaml._PLACEHOLDER, f"a {_yaml._PLACEHOLDER} b\n",
]


@pytest.mark.parametrize("value", TRICKY, ids=repr)
def test_tricky_values_are_written_as_pyyaml_writes_them(value: Any) -> None:
    for case in ({"k": value}, {"k": [value, value]}, {"x" * 130: value},
                 {"k": {"n": value}, "z": value}, {"k": [[value]], "m": {"n": [value]}},
                 {"case_id": "a", "response": value, "score": 4.5, "status": "scored"}):
        assert case_yaml(case) == slow_case_yaml(case), case


def test_objects_met_twice_and_other_types_are_left_to_pyyaml() -> None:
    shared: list[int] = [1]
    for case in ({"a": shared, "b": shared}, {"a": (1, 2)}, {1: "x"}, {"a": b"x"},
                 {"": "empty key"}, {"k": "a\x85b"},
                 {"k": _yaml._PLACEHOLDER, "quoted": "tab\there"}):
        assert libyaml_case_yaml(case) is None, case
        assert case_yaml(case) == slow_case_yaml(case)


def _corpus_files() -> list[Path]:
    files = sorted((ROOT / "examples" / "tasks").rglob("*.yaml"))
    if CONFORMANCE.is_dir():
        files += sorted(CONFORMANCE.rglob("*.yaml"))
    return files


def test_the_published_suites_and_results_are_written_as_pyyaml_writes_them() -> None:
    written = 0
    for path in _corpus_files():
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER)
        except yaml.YAMLError:
            continue  # the broken conformance files
        items = data.get("test_cases") if isinstance(data, dict) else data
        for case in items if isinstance(items, list) else [data]:
            assert case_yaml(case) == slow_case_yaml(case), (path, case)
            written += libyaml_case_yaml(case) is not None
    assert written >= 30  # the example suites at least


# --- what libyaml alone writes otherwise ----------------------------------------------------
class _LibyamlDumper(yaml.CSafeDumper):
    """libyaml alone: ``CSafeDumper`` with the same representer."""


_LibyamlDumper.add_representer(str, _pyyaml._represent_str)

LONG_HARD_BREAK = "**Score**: 4  \n" + "The answer covers the key features of the product. " * 3
LIBYAML_DIFFERS = {
    "emoji": {"response": "Sure 😀\nHere it is.\n"},
    "NEL": {"response": "a\x85b"},
    "double-quoted, folded": {"feedback": LONG_HARD_BREAK},
    "double-quoted, after an escape": {"k": "x" * 95 + "\x1f" + "y" * 20},
    "empty key": {"": None},
    "key of 125 bytes": {"k" * 125: 1},
    "key of 112 characters, 133 bytes": {"k" * 91 + "é" * 21: 1},
    "key with a carriage return": {"\r": 1},
    "|+ block, then more": {"a": "x\n\n", "b": 1},
}


@pytest.mark.parametrize("name", sorted(LIBYAML_DIFFERS))
def test_what_libyaml_alone_writes_otherwise(name: str) -> None:
    """The differences the module's docstring lists (libyaml 0.2.5): if libyaml now writes
    one of them as PyYAML does, the docstring (and maybe a workaround) is out of date."""
    case = LIBYAML_DIFFERS[name]
    reference = dump_yaml([case])
    assert yaml.dump([case], Dumper=_LibyamlDumper, **DUMP_OPTIONS) != reference, name
    text, open_ended = case_yaml(case)
    assert text + (END_MARKER if open_ended else "") == reference


# --- PyYAML's double-quoted style -----------------------------------------------------------
class _Sink:
    def __init__(self) -> None:
        self.parts: list[str] = []

    def write(self, text: str) -> None:
        self.parts.append(text)


def _pyyaml_double_quoted(text: str, column: int, indent: int) -> str:
    sink = _Sink()
    emitter = Emitter(sink, allow_unicode=True, width=_yaml.WIDTH)
    emitter.column, emitter.indent = column, indent
    emitter.whitespace, emitter.indention = True, False
    emitter.write_double_quoted(text, True)
    return "".join(sink.parts)


@settings(_PROFILE, max_examples=1500)
@given(_words([*_PIECES, "\x00", "\x1f", "\u2029", "\ud7ff", "\ufffe"]) | _ANY_TEXT,
       st.integers(0, 200), st.sampled_from([0, 2, 4, 6, 8, 10]))
def test_double_quoted_is_pyyaml_s(text: str, column: int, indent: int) -> None:
    assert double_quoted(text, column, indent) == _pyyaml_double_quoted(text, column, indent)


def test_double_quoted_breaks_long_lines() -> None:
    text = double_quoted("word " * 50 + "\tend", 10, 4)
    lines = text.split("\n")
    assert len(lines) >= 3 and all(line.startswith("    ") for line in lines[1:])
    assert all(line.endswith("\\") for line in lines[:-1])


# --- documents a case at a time ---------------------------------------------------------------
def _suite_file(cases: list[Any], top_level: dict[str, Any] | None) -> str:
    """The file :class:`SuiteYaml` writes: a list (no ``top_level``) or a mapping."""
    out = io.StringIO()
    writer = SuiteYaml(out, "list" if top_level is None else "mapping", top_level or {})
    for case in cases:
        writer.add(case)
    writer.close()
    return out.getvalue()


@settings(_PROFILE, max_examples=150)
@given(st.lists(_USUAL_CASES | _ANY_CASES, max_size=5),
       st.none() | st.dictionaries(_FIELD_KEYS.filter(lambda k: k != "test_cases"),
                                   _ANY_TEXT, max_size=3))
def test_a_file_written_a_case_at_a_time_is_dump_yaml_of_the_suite(
        cases: list[dict[str, Any]], top_level: dict[str, Any] | None) -> None:
    assert _suite_file(cases, top_level) == dump_yaml(
        cases if top_level is None else {**top_level, "test_cases": cases})


def test_the_end_marker_follows_an_open_ended_last_case_only() -> None:
    for cases, marked in (([{"a": "x\n\n"}], True), ([{"a": "x\n\n"}, {"b": 1}], False),
                          ([{"a": "x\n\n", "b": 1}], False), ([{"a": ["😀\n\n"]}], True),
                          ([], False)):
        for top_level in (None, {"metadata": {"name": "n"}}):
            text = _suite_file(cases, top_level)
            assert text.endswith("\n" + END_MARKER) == marked
            assert text == dump_yaml(
                cases if top_level is None else {**top_level, "test_cases": cases})


@settings(_PROFILE, max_examples=150)
@given(st.lists(_USUAL_CASES | _ANY_CASES | st.sampled_from(TRICKY).map(lambda v: {"k": v}),
                max_size=12))
def test_cases_written_together_are_each_one_s_text(cases: list[dict[str, Any]]) -> None:
    one = [case_yaml(case) for case in cases]
    assert cases_yaml(cases) == ("".join(text for text, _ in one), bool(one) and one[-1][1])


def test_cases_are_written_together_around_the_ones_written_apart(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs of plain cases in one document, between cases with strings put back (double
    quoted, beyond U+FFFF), left to PyYAML, holding the placeholder, open-ended."""
    apart = [{"q": "tab\there"}, {"e": "😀"}, {"k": "a\x85b"}, {"p": _yaml._PLACEHOLDER},
             {"o": "x\n\n"}]
    cases = [{"case_id": f"c{i}", "n": i, "text": "line\n" * (i % 3), **apart[i % 7]}
             if i % 7 < len(apart) else {"case_id": f"c{i}", "ok": i % 2 == 0}
             for i in range(40)]
    monkeypatch.setattr(_yaml, "CASES_TOGETHER", 3)
    for count in (1, 2, 5, 13, 40):
        for top_level in (None, {"metadata": {"name": "n"}}):
            assert _suite_file(cases[:count], top_level) == dump_yaml(
                cases[:count] if top_level is None
                else {**top_level, "test_cases": cases[:count]})


def test_a_wrong_shape_or_top_level_is_refused() -> None:
    with pytest.raises(ValueError, match="test_cases"):
        SuiteYaml(io.StringIO(), "mapping", {"test_cases": [], "other": 1})
    with pytest.raises(ValueError, match="shape"):
        SuiteYaml(io.StringIO(), "tuple", {})


# --- read back ------------------------------------------------------------------------------
def _same(a: Any, b: Any) -> bool:
    """Equal, of the same types (True is not 1, 1.0 is not 1), NaN equal to NaN."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


_LOADABLE_TEXT = st.text(alphabet=st.characters(
    codec="utf-8", exclude_categories=["Cs"], exclude_characters="\x85"), max_size=250)


@settings(_PROFILE, max_examples=400)
@given(st.lists(_cases(_FIELD_KEYS | _LOADABLE_TEXT.filter(bool).map(lambda t: t[:10]),
                       _words([p for p in _PIECES if p != "\x85"]) | _LOADABLE_TEXT),
                max_size=4))
def test_what_is_written_reads_back_as_the_data(cases: list[dict[str, Any]]) -> None:
    text = _suite_file(cases, {"metadata": {"name": "n"}})
    assert _same(yaml.load(text, Loader=LOADER), {"metadata": {"name": "n"},
                                                  "test_cases": cases})
    assert _same(yaml.load(_suite_file(cases, None), Loader=LOADER), cases)


def test_pyyaml_loses_a_nel_and_so_do_we() -> None:
    """U+0085 (NEL) is written raw in a quoted string, where it reads back as a space:
    PyYAML's reference text has it so, and the same text is written."""
    case = {"k": "a\x85b"}
    assert case_yaml(case)[0] == dump_yaml([case]) == "- k: 'a\x85    b'\n"
    assert yaml.load(dump_yaml([case]), Loader=LOADER) == [{"k": "a b"}]


@pytest.mark.parametrize(("name", "outside"), [
    ("_SPECIAL", "[^\n\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010fffe]|\ufeff"),
    ("_ATTENTION", "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\uf900-\ufefe\uff00-\ufffd]"),
    ("_KEY_ATTENTION", "[^\x20-\x7e\xa0-\u2027\u202a-\ud7ff\uf900-\ufefe\uff00-\ufffd]"),
])
def test_each_class_matches_every_character_outside_the_ones_it_lets_through(
        name: str, outside: str) -> None:
    # written as the characters they match (faster to compile): the same on every code point
    every = "".join(map(chr, range(0x110000)))
    assert getattr(_yaml, name).findall(every) == re.compile(outside).findall(every)


def test_what_double_quoting_escapes_is_every_character_outside_those_it_keeps() -> None:
    every = "".join(map(chr, range(0x110000)))
    defined = re.compile("[^\\x20\\x21\\x23-\\x5b\\x5d-\\x7e"
                         "\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
    assert _pyyaml._ESCAPED.findall(every) == defined.findall(every)
