"""Streaming a task run: the suite file read one case at a time (the same suites and
diagnostics as reading it whole), the snapshot stored in chunks, result files written a
case at a time (the same bytes as writing them whole), the YAML emitter (``yaml.dump``'s
text, read back as the data), the summary built incrementally."""

from __future__ import annotations

import datetime
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from tests.tasks.conftest import EXAMPLE_SUITE, V1, V2, write

from eunomia import defaults
from eunomia.api import RunOptions, TaskSelection, run_tasks
from eunomia.errors import EunomiaError
from eunomia.exports import JsonList as _JsonList
from eunomia.exports import Output as _Output
from eunomia.exports import cases_yaml, dump_yaml
from eunomia.exports import write_json_streaming as _write_json_streaming
from eunomia.kinds._task_suites import selected_entries
from eunomia.kinds.tasks import stored_summary, suite_yaml, summarize, task_records
from eunomia.models import ChatRequest, ChatResult, Usage, resolve_spec
from eunomia.run import export_run as export_task_run
from eunomia.scheduler import RetryPolicy
from eunomia.store import RunStore, json_bytes
from eunomia.tasks import TaskSuite, load_suite, load_suites, loaded_case
from eunomia.tasks._loader import _load_streamed, _load_whole
from eunomia.tasks._model import CaseList
from eunomia.tasks._snapshot import SNAPSHOT_FORMAT
from eunomia.tasks._stream import Fallback, Stream

# --- loading ------------------------------------------------------------------------------
LAYOUTS = {
    "list.yaml": "- {case_id: a, category: summarization, instruction: x}\n"
                 "- {case_id: b, category: astrology, instruction: y}\n- 5\n",
    "meta_first.yaml": "metadata: {category: summarization, name: n}\nother: 1\ntest_cases:\n"
                       "  - {case_id: a, instruction: x}\n  - {case_id: a, instruction: y}\n"
                       "after: [1, 2]\n",
    "meta_after.yaml": "test_cases:\n  - {case_id: a, instruction: x}\n"
                       "metadata: {category: summarization}\n",
    "general_knowledge_no_meta.yaml": "test_cases:\n  - {case_id: a, instruction: x}\n",
    "twice.yaml": "metadata: {category: summarization}\ntest_cases: [{case_id: a, instruction: x}]"
                  "\ntest_cases: [{case_id: b, instruction: y}]\n",
    "anchors.yaml": "metadata: {category: summarization}\ntest_cases:\n"
                    "  - &base {case_id: a, instruction: x, difficulty_level: easy}\n"
                    "  - {<<: *base, case_id: b}\n",
    "tagged.yaml": "metadata: {category: summarization}\ntest_cases: !!seq\n"
                   "  - {case_id: a, instruction: x}\n",
    "flow.yaml": "{metadata: {category: summarization}, test_cases: [{case_id: a, "
                 "instruction: x}]}\n",
    "bad_case.yaml": "metadata: {category: summarization}\ntest_cases:\n"
                     "  - case_id: a\n    instruction: x\n    difficulty_level: extreme\n"
                     "  - {case_id: b, instruction: y, checks: [{contains: a, regex: b}]}\n",
    "broken_late.yaml": "- {case_id: a, category: summarization, instruction: x}\n"
                        "- case_id: b\n  instruction: y\n bad: indentation\n",
    "two_docs.yaml": "- {case_id: a, category: summarization, instruction: x}\n---\n- 1\n",
    "empty.yaml": "",
    "scalar.yaml": "hello\n",
    "no_cases.yaml": "metadata: {category: summarization}\nfoo: 1\n",
    "meta_bad.yaml": "metadata: 5\ntest_cases: [{case_id: a, instruction: x}]\n",
    "crlf.yaml": "metadata: {category: summarization}\r\ntest_cases:\r\n  - case_id: a\r\n"
                 "    instruction: |\r\n      one\r\n      two\r\n",
    # every kind of scalar the safe loader resolves, in case items built from their events
    "scalars.yaml": "metadata: {category: summarization}\ntest_cases:\n"
                    "  - case_id: 12\n    instruction: >\n      folded\n      text\n"
                    "    expected_response: |-\n      kept\n        indented\n"
                    "    notes: [1, -2, 0o17, 017, 0x1f, 1_000, 1:20, 1.5, -.inf, 1e3,"
                    " yes, No, true, ~, null, '', \"123\", é, {}, [], {a: [b, {c: d}]}]\n"
                    "    empty:\n    multi: plain\n      continued\n"
                    "  - {case_id: b, instruction: y, case_id: c}\n",
    "merge_in_case.yaml": "metadata: {category: summarization}\ntest_cases:\n"
                          "  - {<<: {difficulty_level: easy}, case_id: a, instruction: x}\n",
    "tag_in_case.yaml": "metadata: {category: summarization}\ntest_cases:\n"
                        "  - {case_id: a, instruction: !!str 123}\n",
    "alias_in_case.yaml": "metadata: {category: summarization, x: &i hi}\ntest_cases:\n"
                          "  - {case_id: a, instruction: *i}\n",
    "key_not_scalar.yaml": "metadata: {category: summarization}\ntest_cases:\n"
                           "  - {case_id: a, instruction: x, [1, 2]: 3}\n",
    "late_error_line.yaml": "metadata: {category: summarization}\ntest_cases:\n"
                            "  - {case_id: a, instruction: x}\n  - case_id: b\n"
                            "    instruction: y\n    checks:\n      - contains: a\n"
                            "      - max_words: -3\n",
    # a diagnostic in several cases, at several depths, in both shapes of file
    "errors_everywhere.yaml": "metadata: {category: summarization}\ntest_cases:\n"
                              "  - case_id: a\n    instruction: x\n"
                              "    difficulty_level: extreme\n"
                              "  - {case_id: b, instruction: y, checks: [{max_words: -1}]}\n"
                              "  - case_id: c\n    category: Foo\n    instruction: z\n"
                              "  - case_id: d\n    instruction: w\n    checks:\n"
                              "      - contains: a\n      - max_words: -5\n"
                              "  - {case_id: e, instruction: v}\n",
    "errors_list.yaml": "- case_id: a\n  category: summarization\n  instruction: x\n"
                        "  checks:\n  - max_words: -3\n"
                        "- {case_id: b, category: nope, instruction: y}\n"
                        "- case_id: c\n  instruction: z\n",
}
STREAMED = ("scalars.yaml", "late_error_line.yaml", "bad_case.yaml", "crlf.yaml", "list.yaml",
            "errors_everywhere.yaml", "errors_list.yaml")
"""Layouts read by the streaming pass itself (the others are left to the whole reading)."""


def _same(a: tuple[TaskSuite | None, list[Any]], b: tuple[TaskSuite | None, list[Any]]
          ) -> None:
    (sa, pa), (sb, pb) = a, b
    assert pa == pb
    assert (sa is None) == (sb is None)
    if sa is not None and sb is not None:
        for attr in ("name", "path", "shape", "top_level_json", "rubric", "rubric_path",
                     "invalid"):
            assert getattr(sa, attr) == getattr(sb, attr), attr
        assert [c.model_dump() for c in sa.cases] == [c.model_dump() for c in sb.cases]
        assert len(sa.cases) == len(sb.cases)


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_streamed_loading_is_reading_the_file_whole(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / name, LAYOUTS[name])
    _same(load_suite(path), _load_whole(path, path.stem))


@pytest.mark.parametrize("name", STREAMED)
def test_these_layouts_are_read_by_the_streaming_pass(tmp_path: Path, name: str) -> None:
    path = write(tmp_path / name, LAYOUTS[name])
    _same(_load_streamed(path, path.stem), _load_whole(path, path.stem))


@pytest.mark.parametrize("name", ["merge_in_case.yaml", "tag_in_case.yaml",
                                  "alias_in_case.yaml", "key_not_scalar.yaml"])
def test_a_case_the_event_reader_leaves_to_the_whole_reading(tmp_path: Path,
                                                             name: str) -> None:
    path = write(tmp_path / name, LAYOUTS[name])
    with pytest.raises(Fallback):
        _load_streamed(path, path.stem)


def test_case_items_built_from_events_are_the_safe_loaders_values(tmp_path: Path) -> None:
    # dates too (a loaded case keeps them as the strings its snapshot holds)
    text = LAYOUTS["scalars.yaml"].replace("    empty:\n", "    empty:\n    when: [2001-12-14,"
                                           " 2001-12-14t21:59:43.10-05:00]\n")
    path = write(tmp_path / "scalars.yaml", text)
    with Stream(path) as stream:
        assert stream.start()
        items = [value for _index, value, _line in stream.items()]
        stream.finish()
    expected = yaml.safe_load(path.read_text(encoding="utf-8"))["test_cases"]
    assert items == expected
    assert isinstance(items[0]["when"][0], datetime.date)


def test_a_late_error_points_at_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "late.yaml", LAYOUTS["late_error_line.yaml"])
    _suite, problems = load_suite(path)
    assert [(p.line, p.key) for p in problems] == [(8, "test_cases[1].checks[1].max_words")]


def test_diagnostics_of_several_cases_point_at_their_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "errors.yaml", LAYOUTS["errors_everywhere.yaml"])
    _suite, problems = _load_streamed(path, path.stem)
    assert [(p.line, p.key) for p in problems] == [
        (5, "test_cases[0].difficulty_level"), (6, "test_cases[1].checks[0].max_words"),
        (8, "test_cases[2].category"), (14, "test_cases[3].checks[1].max_words")]


def test_a_case_diagnostic_knows_the_lines_of_that_case_only(tmp_path: Path) -> None:
    # loading holds one case at a time, diagnostics included: a suite with a problem in
    # every case does not make the streaming pass keep the lines of the whole file
    path = write(tmp_path / "errors.yaml", LAYOUTS["errors_everywhere.yaml"])
    with Stream(path) as stream:
        assert stream.start()
        seen = []
        for index, _value, _line in stream.items():
            lines = stream.item_doc(("test_cases", index))._make()
            cases = {loc[1] for loc in lines if len(loc) > 1 and loc[0] == "test_cases"}
            assert cases == {index}
            seen.append(lines[("test_cases", index)])
        stream.finish()
    assert seen == [3, 6, 7, 10, 15]


@pytest.mark.skipif(not V1.is_dir(), reason="conformance data not present")
def test_streamed_loading_of_the_published_files() -> None:
    files = sorted([*V1.glob("*.yaml"), *V2.glob("*.yaml"), *EXAMPLE_SUITE.glob("*.yaml")])
    assert files
    for path in files:
        _same(load_suite(path), _load_whole(path, path.stem))


def test_a_loaded_suite_holds_no_case_and_reads_its_file_again(tmp_path: Path) -> None:
    path = write(tmp_path / "summarization.yaml",
                 "".join(f"- {{case_id: c{i}, instruction: x{i}}}\n" for i in range(5)))
    suite, problems = load_suite(path)
    assert problems == [] and suite is not None
    assert not isinstance(suite.source, list)  # a pass over the file, not a list
    cases = suite.cases
    assert isinstance(cases, CaseList) and len(cases) == 5 and bool(cases)
    assert [c.name for c in cases] == [f"c{i}" for i in range(5)]
    assert cases[1].name == "c1" and cases[-1].name == "c4"
    assert [c.name for c in cases[1:3]] == ["c1", "c2"]
    assert cases == list(cases)
    selected = [loaded_case(e) for e in
                selected_entries(suite, TaskSelection(("c3", "c4"), max_cases=1))]
    assert [c.name for c in selected] == ["c3"] and selected
    path.write_text("- {case_id: other, instruction: changed, category: summarization}\n")
    with pytest.raises(EunomiaError, match="changed since it was loaded"):
        list(suite.cases)


def test_a_pass_after_a_change_of_working_folder(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "in" / "summarization.yaml", "- {case_id: a, instruction: x}\n")
    monkeypatch.chdir(tmp_path / "in")
    suite, _ = load_suite(Path("summarization.yaml"))
    monkeypatch.chdir(tmp_path)
    assert suite is not None and suite.path == "summarization.yaml"
    assert [c.name for c in suite.cases] == ["a"]


# --- the YAML emitter -----------------------------------------------------------------------
_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)),
                max_size=250)
_WORDS = st.lists(st.tuples(
    st.text(alphabet=st.sampled_from(list("abcxyz'é:#-,")), max_size=12),
    st.sampled_from([" ", " ", "  ", "\n", " \n", "\n ", "\n\n"])), max_size=30).map(
        lambda parts: "".join(w + s for w, s in parts))
_KEYS = st.from_regex(r"[a-z_][a-z_0-9 ]{0,20}", fullmatch=True) | _TEXT.map(lambda t: t[:10])
_SCALARS = _TEXT | _WORDS | st.integers() | st.floats() | st.booleans() | st.none()
_NESTED = _SCALARS | st.lists(_SCALARS, max_size=3) | st.dictionaries(_KEYS, _SCALARS,
                                                                     max_size=3)
_VALUES = _NESTED | st.lists(_NESTED, max_size=3) | st.dictionaries(_KEYS, _NESTED,
                                                                    max_size=3)


def _written_as_yaml_dump_and_read_back(case: dict[str, Any]) -> None:
    reference = dump_yaml([case])
    text = cases_yaml([case])
    assert text == reference.removesuffix("...\n" if reference.endswith("\n\n...\n") else "")
    for loader in (yaml.SafeLoader, getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
        back = yaml.load(text, Loader=loader)
        assert back == [case] or repr(back) == repr([case])  # (NaN is not equal to itself)


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.dictionaries(_KEYS, _VALUES, max_size=7))
def test_the_case_emitter_writes_what_yaml_dump_writes(case: dict[str, Any]) -> None:
    _written_as_yaml_dump_and_read_back(case)


def test_tricky_cases_are_written_as_yaml_dump_writes_them() -> None:
    tricky: list[Any] = [
        "", " ", "true", "null", "42", "1e3", "- x", "a: b", "a #b", "'q'", "x" * 150,
        "word " * 40, "l1\nl2", "l1\n", "l1\n\n", "\nl1", " l1\nl2", "l1 \nl2", "\u2028x",
        "x\u2028", "tab\there", "ü — ✓ \U0001F600", "...", "---", "<<", 1.0, 1e17, -0.0,
        float("nan"), float("inf"), 10**30, True, None, [], {}, [[]], [{}], {"a": []},
    ]
    for value in tricky:
        for case in ({"k": value}, {"k": [value, value]}, {"x" * 130: value},
                     {"k": {"n": value}}):
            _written_as_yaml_dump_and_read_back(case)
    shared: list[int] = [1]
    _written_as_yaml_dump_and_read_back({"a": shared, "b": shared})


# --- JSON written a piece at a time ------------------------------------------------------
def test_json_lists_written_item_by_item_are_json_dumps(tmp_path: Path) -> None:
    items: list[Any] = [{"a": 1, "b": [1, 2, {"c": "x\ny"}]}, [], {}, "s", 1.5, None]
    for level in (0, 1, 3):
        for count in (0, 1, len(items)):
            with _Output(tmp_path / "x.json") as out:
                listing = _JsonList(out, level)
                for item in items[:count]:
                    listing.add(item)
                listing.close()
            nested: Any = items[:count]
            for _ in range(level):
                nested = {"k": nested}
            expected = json.dumps(nested, indent=2)
            inner = expected
            for _ in range(level):
                inner = inner[inner.index(": ") + 2:inner.rindex("\n")]
            assert (tmp_path / "x.json").read_text() == inner
    data = {"a": 1, "rc": {"repeats": 2, "cases": "__eunomia_streamed_list__"}, "z": [1]}
    _write_json_streaming(tmp_path / "y.json", data, iter(items))
    assert (tmp_path / "y.json").read_text() == json.dumps(
        {**data, "rc": {"repeats": 2, "cases": items}}, indent=2)


# --- runs: snapshot in chunks, files written a case at a time ------------------------------
class _Provider:
    """Answers at once, deterministically; a judge verdict when asked for JSON."""

    name = "openai:fake"

    async def chat(self, request: ChatRequest) -> ChatResult:
        last = request.messages[-1].content
        k = sum(map(ord, last)) + (request.settings.seed or 0)
        if request.json_schema is not None:
            text = json.dumps({"score": k % 6, "feedback": "ok\nfine" if k % 2 else "ok"})
        else:
            text = ["The answer is 42.", "line one\nline two\n", "ü — ✓", ""][k % 4]
        return ChatResult(text=text, usage=Usage(input_tokens=k % 90, output_tokens=k % 9),
                          latency_s=(k % 97) / 100,
                          time_to_first_token_s=0.01 if request.stream else None,
                          model="fake")

    async def close(self) -> None:
        pass


async def _run(suites: list[TaskSuite], results: Path, name: str, **kwargs: Any) -> Any:
    provider = _Provider()
    return await run_tasks(
        suites, candidate=resolve_spec("openai:cand"), judge=resolve_spec("openai:judge"),
        run_name=name, results_dir=results, console=Console(quiet=True),
        options=RunOptions(4, RetryPolicy(retries=0, timeout_s=10)),
        providers=(provider, provider), **kwargs)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and p.name != "run.json"}


async def test_chunked_snapshot_and_streamed_files_are_the_whole_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_model_config: Path) -> None:
    suites, problems = load_suites([EXAMPLE_SUITE])
    assert problems == []
    report = await _run(suites, tmp_path / "a", "r", repeats=2, judge_repeats=2)
    monkeypatch.setattr(defaults, "TASK_SNAPSHOT_CHUNK_CASES", 2)
    again = await _run(suites, tmp_path / "b", "r", repeats=2, judge_repeats=2)
    assert _files(tmp_path / "a" / "r") == _files(tmp_path / "b" / "r")
    assert report.summary is not None and again.summary is not None
    assert report.summary.total == again.summary.total == 70
    db = RunStore(tmp_path / "b" / "eunomia.db")
    try:
        run = db.require_run("r")
        infos = db.suites(run)
        header = db.get_json(infos[0].definition)
        assert header["format"] == SNAPSHOT_FORMAT and len(header["chunks"]) == 3
        stored, records, prices = task_records(db, run)
        # each suite file is what writing it whole gives
        for suite in stored:
            mine = [r for r in records if r.suite == suite.name]
            text = (tmp_path / "b" / "r" / "tasks" / f"{suite.name}.yaml").read_text()
            assert text == suite_yaml(suite, mine)
        # a case's records need not come together (its first one gives its place)
        whole = summarize(records, candidate="c", judge="j", weights={"easy": 1.0},
                          judge_repeats=2, prices=prices)
        by_repeat = summarize(sorted(records, key=lambda r: r.repeat), candidate="c",
                              judge="j", weights={"easy": 1.0}, judge_repeats=2,
                              prices=prices)
        assert whole.overall == by_repeat.overall and whole.groups == by_repeat.groups
        assert whole.agreement == by_repeat.agreement
        assert whole.repeat_consistency is not None
        assert by_repeat.repeat_consistency is not None
        assert list(whole.repeat_consistency.cases) == list(by_repeat.repeat_consistency.cases)
        # the summary streamed from the store (no file) is the export's
        assert stored_summary(db, run, "openai:cand") == again.summary
    finally:
        db.close()


async def test_a_store_with_whole_suite_snapshots_exports_the_same(
        tmp_path: Path, no_model_config: Path) -> None:
    """Stores written before streaming hold each suite as one document."""
    suites, _ = load_suites([EXAMPLE_SUITE])
    await _run(suites, tmp_path, "r")
    before = _files(tmp_path / "r")
    db = RunStore(tmp_path / "eunomia.db")
    try:
        run = db.require_run("r")
        for info, suite in zip(db.suites(run), suites, strict=True):
            whole = {"name": suite.name, "path": suite.path, "shape": suite.shape,
                     "top_level_json": suite.top_level_json, "rubric": suite.rubric,
                     "rubric_path": suite.rubric_path, "invalid": suite.invalid,
                     "cases": [c.model_dump(mode="json", by_alias=True)
                               for c in suite.cases]}
            db.add_suite(run, info.name, info.path, whole, db.get_json(info.prices))
        assert json_bytes(db.get_json(db.suites(run)[0].definition)).startswith(b'{"cases"')
        shutil.rmtree(tmp_path / "r")
        export_task_run(db, db.require_run("r"), tmp_path)
    finally:
        db.close()
    assert _files(tmp_path / "r") == before
