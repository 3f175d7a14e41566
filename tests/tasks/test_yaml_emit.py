"""The task export's YAML (``eunomia.exports._yaml``): what is written reads back as the data
(libyaml's loader and PyYAML's pure-Python one), tricky strings included; it is ``yaml.dump``'s
text (the events built for libyaml are the ones ``yaml.dump`` gives it); a file written a
chunk of cases at a time is the whole suite dumped at once."""

from __future__ import annotations

import io
import math
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eunomia.exports import _yaml
from eunomia.exports._yaml import (
    DUMP_OPTIONS,
    END_MARKER,
    WIDTH,
    SuiteYaml,
    cases_yaml,
    dump_yaml,
)

ROOT = Path(__file__).resolve().parents[2]
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "llmevalforge"
LOADERS: list[Any] = [yaml.SafeLoader, *([yaml.CSafeLoader] if yaml.__with_libyaml__ else [])]

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML without libyaml")

# --- strategies -------------------------------------------------------------------------------
_ANY_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]),
                    max_size=250)
_PIECES = [*"abcxyz'é:#-,\"\\—", "\t", "\x07", "\ufeff", "\ue000", "\U0010ffff",
           "😀", "🎉", "\U0001d4b3", "\x85", "\u2028", "\r", "yes", "no", "null", "~",
           ".nan", "0x1f", "1_000", "12:30", "2001-12-14"]
_SEPARATORS = [" ", " ", "  ", "\n", " \n", "  \n", "\n ", "\n\n", "\t", ""]


def _words(pieces: list[str]) -> st.SearchStrategy[str]:
    """Text with spaces, line breaks and markdown hard breaks between words of ``pieces``;
    long enough to pass the line width."""
    word = st.lists(st.sampled_from(pieces), max_size=8).map("".join)
    return st.lists(st.tuples(word, st.sampled_from(_SEPARATORS)), max_size=40).map(
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
# keys of any characters and lengths about libyaml's limit for a simple key (128 bytes)
_ANY_KEYS = _FIELD_KEYS | _ANY_TEXT.map(lambda t: t[:10]) | st.text(alphabet="ké ",
                                                                    min_size=110,
                                                                    max_size=135)
_ANY_CASES = _cases(_ANY_KEYS, _ANY_TEXT | _words(_PIECES))
_PROFILE = settings(deadline=None, suppress_health_check=list(HealthCheck))


def _same(a: Any, b: Any) -> bool:
    """Equal, of the same types (True is not 1, 1.0 is not 1), NaN equal to NaN, keys in
    the same order."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return bool(a == b)


def _reads_back(text: str, data: Any) -> None:
    for loader in LOADERS:
        assert _same(yaml.load(text, Loader=loader), data), (loader.__name__, text)


def _dumped(data: Any) -> str:
    """``yaml.dump`` as a user would call it: the reference text."""
    text: str = yaml.dump(data, Dumper=_yaml.Dumper, **DUMP_OPTIONS)
    return text


def _suite_file(cases: list[Any], top_level: dict[str, Any] | None) -> str:
    """The file :class:`SuiteYaml` writes: a list (no ``top_level``) or a mapping."""
    out = io.StringIO()
    writer = SuiteYaml(out, "list" if top_level is None else "mapping", top_level or {})
    for case in cases:
        writer.add(case)
    writer.close()
    return out.getvalue()


# --- read back, and yaml.dump's text ------------------------------------------------------------
@settings(_PROFILE, max_examples=500)
@given(st.lists(_ANY_CASES, max_size=4))
def test_what_is_written_reads_back_as_the_data(cases: list[dict[str, Any]]) -> None:
    _reads_back(_suite_file(cases, {"metadata": {"name": "n"}}),
                {"metadata": {"name": "n"}, "test_cases": cases})
    _reads_back(_suite_file(cases, None), cases)


def _unmarked(text: str) -> str:
    return text.removesuffix(END_MARKER) if text.endswith("\n" + END_MARKER) else text


@settings(_PROFILE, max_examples=500)
@given(_ANY_CASES)
def test_any_case_is_written_as_yaml_dump_writes_it(case: dict[str, Any]) -> None:
    assert cases_yaml([case]) == _unmarked(_dumped([case]))


@settings(_PROFILE, max_examples=300)
@given(_cases(_FIELD_KEYS, _ANY_TEXT | _words(_PIECES)))
def test_the_usual_cases_are_written_from_events_not_by_yaml_dump(
        case: dict[str, Any]) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_yaml, "_dumped", lambda data: pytest.fail(f"left to yaml.dump: {data}"))
        text = cases_yaml([case])
    assert text == _unmarked(_dumped([case]))


TRICKY: list[Any] = [
    "", " ", "  lead", "trail  ", " both ", "true", "True", "yes", "Yes", "no", "NO", "on",
    "off", "y", "n", "null", "Null", "~", ".nan", ".NaN", ".inf", "-.inf", "42", "-7",
    "0x1f", "0o17", "017", "1_000", "1e3", "3.14", "12:30", "190:20:30", "2001-12-14",
    "2001-12-14t21:59:43.10-05:00", "- x", "a: b", "a #b", "#c", "'q'", '"q"', "@at",
    "`tick", "%pct", "...", "---", "<<", "=", "!", "&", "*", "|", ">", "?", "[a]", "{a: 1}",
    "x" * 150, "word " * 40, "l1\nl2", "l1\n", "l1\n\n", "\nl1", " l1\nl2", "l1 \nl2",
    "\n", "\n\n", " \n", "x\n\n\n", "line\r\nline", "cr\ronly", "tab\there", "\t" * 60,
    "x" * 95 + "\t" + " y" * 30, "x\x00y", "bell\x07", "esc\x1b[0m", "del\x7f", "c1\x9f",
    "a\x85b", "\u2028x", "x\u2029", "\ufeffx", "\ue000 private", "\U0010ffff x",
    "ü — ✓ ñ 中文 עברית", "😀", "ü — ✓ \U0001F600", "Sure 😀\nHere it is.\n", "😀\n\n",
    "😀" * 120, "😀 " * 60 + "\nend", "**Score**: 4  \n" + "The answer covers the key points. " * 8,
    "trailing \nspace ", "x" * 98 + " \n", _yaml.STR_TAG,
    1.0, 1e17, -0.0, 0.1, float("nan"), float("inf"), -float("inf"), 10**30, -1, 0, True,
    False, None, [], {}, [[]], [{}], {"a": []}, {"": "empty key"}, {"\r": 1},
    {"k" * 125: 1}, {"k" * 91 + "é" * 21: 1}, {"multi\nline key": 1}, {1: "int key"},
    {None: "null key"}, {"yes": "a key that reads as a bool"},
]


@pytest.mark.parametrize("value", TRICKY, ids=repr)
def test_tricky_values_read_back_and_are_yaml_dump_s_text(value: Any) -> None:
    for case in ({"k": value}, {"k": [value, value]}, {"x" * 130: value},
                 {"k": {"n": value}, "z": value}, {"k": [[value]], "m": {"n": [value]}},
                 {"case_id": "a", "response": value, "score": 4.5, "status": "scored"}):
        text = cases_yaml([case])
        assert text == _unmarked(_dumped([case])), case
        _reads_back(text, [case])


def test_objects_met_twice_and_other_types_are_left_to_yaml_dump() -> None:
    shared: list[int] = [1]
    for case in ({"a": shared, "b": shared}, {"a": (1, 2)}, {(1, 2): "x"}, {"a": b"x"},
                 {"a": {1, 2}}):
        assert cases_yaml([case]) == _unmarked(_dumped([case])), case
    _reads_back(cases_yaml([{"a": shared, "b": shared}]), [{"a": [1], "b": [1]}])


def _corpus_files() -> list[Path]:
    files = sorted((ROOT / "examples" / "tasks").rglob("*.yaml"))
    if CONFORMANCE.is_dir():
        files += sorted(CONFORMANCE.rglob("*.yaml"))
    return files


def test_the_published_suites_and_results_read_back_as_written() -> None:
    written = 0
    for path in _corpus_files():
        try:
            data = yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)
        except yaml.YAMLError:
            continue  # the broken conformance files
        items = data.get("test_cases") if isinstance(data, dict) else data
        cases = items if isinstance(items, list) else [data]
        text = _suite_file(cases, None)
        assert text == dump_yaml(cases), path
        _reads_back(text, cases)
        written += len(cases)
    assert written >= 30  # the example suites at least


# --- what PyYAML's pure-Python dumper writes otherwise ----------------------------------------
LONG_HARD_BREAK = "**Score**: 4  \n" + "The answer covers the key features of the product. " * 3
PURE_PYTHON_DIFFERS = {
    "emoji": {"response": "Sure 😀\nHere it is.\n"},
    "NEL": {"response": "a\x85b"},
    "double-quoted, folded": {"feedback": LONG_HARD_BREAK},
    "double-quoted, after an escape": {"k": "x" * 95 + "\x1f" + "y" * 20},
    "empty key": {"": None},
    "key of 125 bytes": {"k" * 125: 1},
    "key with a carriage return": {"\r": 1},
}


class _PurePythonDumper(yaml.SafeDumper):
    """PyYAML's pure-Python dumper with the same representer."""


_PurePythonDumper.add_representer(str, _yaml._represent_str)


@pytest.mark.parametrize("name", sorted(PURE_PYTHON_DIFFERS))
def test_what_pure_python_pyyaml_writes_otherwise_reads_back_the_same(name: str) -> None:
    """The differences the module's docstring names: libyaml's text, not PyYAML's pure-Python
    one, and the same data read back (PyYAML's pure-Python text loses a NEL)."""
    case = PURE_PYTHON_DIFFERS[name]
    pure = yaml.dump([case], Dumper=_PurePythonDumper, **DUMP_OPTIONS)
    text = dump_yaml([case])
    assert text != pure, name
    _reads_back(text, [case])
    if name != "NEL":
        _reads_back(pure, [case])


def test_an_emoji_answer_is_double_quoted_and_a_nel_is_kept() -> None:
    assert dump_yaml([{"k": "Sure 😀\nok"}]) == '- k: "Sure \\U0001F600\\nok"\n'
    assert dump_yaml([{"k": "a\x85b"}]) == '- k: "a\\Nb"\n'


def test_long_double_quoted_strings_are_folded_within_the_width_and_read_back() -> None:
    value = "word " * 50 + "\tend"
    text = dump_yaml([{"k": value}])
    lines = text.splitlines()
    assert len(lines) >= 3 and all(len(line) < WIDTH + 10 for line in lines)
    _reads_back(text, [{"k": value}])


# --- documents a chunk at a time ----------------------------------------------------------------
@settings(_PROFILE, max_examples=150)
@given(st.lists(_ANY_CASES, max_size=5),
       st.none() | st.dictionaries(_FIELD_KEYS.filter(lambda k: k != "test_cases"),
                                   _ANY_TEXT, max_size=3))
def test_a_file_written_a_chunk_at_a_time_is_dump_yaml_of_the_suite(
        cases: list[dict[str, Any]], top_level: dict[str, Any] | None) -> None:
    assert _suite_file(cases, top_level) == dump_yaml(
        cases if top_level is None else {**top_level, "test_cases": cases})


def test_the_end_marker_follows_an_open_ended_last_case_only() -> None:
    for cases, marked in (([{"a": "x\n\n"}], True), ([{"a": "x\n\n"}, {"b": 1}], False),
                          ([{"a": "x\n\n", "b": 1}], False), ([{"a": ["y\n\n"]}], True),
                          ([], False)):
        for top_level in (None, {"metadata": {"name": "n"}}, {"metadata": {"d": "z\n\n"}}):
            text = _suite_file(cases, top_level)
            data = cases if top_level is None else {**top_level, "test_cases": cases}
            assert text.endswith("\n" + END_MARKER) == marked, (cases, top_level)
            assert text == dump_yaml(data)
            _reads_back(text, data)


def test_cases_are_written_in_chunks_around_the_ones_left_to_yaml_dump(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def apart(i: int) -> dict[str, Any]:
        """Fields of case ``i`` (new objects: no case shares one with another, which
        ``yaml.dump`` would number anchors for across the document)."""
        return [{"q": "tab\there"}, {"e": "😀"}, {"k": "a\x85b"}, {"t": (i, i + 1)},
                {"o": "x\n\n"}, {"s": {i}}, {}, {"ok": i % 2 == 0}][i % 8]

    cases = [{"case_id": f"c{i}", "n": i, "text": "line\n" * (i % 3), **apart(i)}
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
