"""Malformed manifests and test case files: a clear diagnostic, never a crash or a hang."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.fuzz._strategies import (
    assert_names_file,
    broken_text,
    dump,
    errors,
    garbage,
    load,
    mutated,
)

from eunomia.scenarios import load_scenario

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"
BASE_TEXT = (EXAMPLE / "manifest.yml").read_text(encoding="utf-8")
BASE = yaml.safe_load(BASE_TEXT)

FUZZ = settings(max_examples=60, deadline=2000, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def scenario_dir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "fuzzed"
        shutil.copytree(EXAMPLE, folder, ignore=shutil.ignore_patterns("_generate.py"))
        yield folder


def _load(folder: Path, text: str) -> tuple[Any, list[Any]]:
    (folder / "manifest.yml").write_text(text, encoding="utf-8")
    return load_scenario(folder)


@FUZZ
@given(data=mutated(BASE))
def test_mutated_manifest_gives_diagnostics_naming_file_and_key(
    scenario_dir: Path, data: Any
) -> None:
    manifest = scenario_dir / "manifest.yml"
    scenario, diags = _load(scenario_dir, dump(data))
    allowed = {manifest, scenario_dir / "test_cases", scenario_dir}
    assert_names_file(diags, allowed)
    manifest_errors = [d for d in errors(diags) if d.file == manifest]
    if scenario is None:
        assert errors(diags), "refused without saying why"
    else:  # only the mutation rules' errors never block a run (docs/mutate.md)
        assert [d for d in manifest_errors if not d.key.startswith("mutations")] == []
        assert len(scenario.test_cases) + len(scenario.invalid_cases) == 14
    if isinstance(data, dict):
        # a problem inside a mapping is always pinned to a key path and a line
        for d in manifest_errors:
            assert d.key, d
            assert d.line is not None and d.line >= 1, d
            assert f"[{d.key}]" in str(d)


@FUZZ
@given(text=broken_text(BASE_TEXT))
def test_syntax_broken_manifest_is_one_clear_error(scenario_dir: Path, text: str) -> None:
    manifest = scenario_dir / "manifest.yml"
    scenario, diags = _load(scenario_dir, text)
    assert_names_file(diags, {manifest, scenario_dir / "test_cases", scenario_dir})
    try:
        load(text)
    except yaml.YAMLError:
        # bad YAML: exactly one error, with the file and the line
        assert scenario is None
        (d,) = diags
        assert d.file == manifest and "invalid YAML" in d.message
        assert d.line is not None and 1 <= d.line <= text.count("\n") + 1, d
        assert f"{manifest}:{d.line}" in str(d)


def test_tab_indentation_is_named(scenario_dir: Path) -> None:
    text = BASE_TEXT.replace("\n  title:", "\n\ttitle:", 1)
    scenario, diags = _load(scenario_dir, text)
    assert scenario is None
    (d,) = diags
    assert d.line == BASE_TEXT[: BASE_TEXT.index("\n  title:") + 1].count("\n") + 1
    assert "tab" in d.message


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda m: m.update(default_expected=["classes_correct", "classes_correct"]),
         "default_expected[1]"),
        (lambda m: m["criteria"][0]["instructions"][1].update(id="classes_correct"),
         "criteria[0].instructions[1].id"),
        (lambda m: m["criteria"][1].update(id="classes"), "criteria[1].id"),
        (lambda m: m["exercise"].update(max_points=10**400), "exercise.max_points"),
        (lambda m: m["exercise"].update(max_points="ünï©ødé"), "exercise.max_points"),
        (lambda m: m.update(criteria={"a": 1}), "criteria"),
        (lambda m: m.update(test_case_diffs=[1, 2]), "test_case_diffs"),
        (lambda m: m["criteria"][2]["instructions"][0].pop("credits"),
         "criteria[2].instructions[0].credits"),
    ],
)
def test_known_bad_manifests_name_the_key(scenario_dir: Path, edit: Any, key: str) -> None:
    data = json.loads(json.dumps(BASE))
    edit(data)
    try:
        text = dump(data)
    except (OverflowError, yaml.YAMLError):
        text = BASE_TEXT.replace("max_points: 8", "max_points: 1" + "0" * 400, 1)
    scenario, diags = _load(scenario_dir, text)
    assert scenario is None
    assert any(d.key == key for d in errors(diags)), [str(d) for d in diags]


# --- test case JSON --------------------------------------------------------------------------


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=20)),
    lambda c: st.one_of(st.lists(c, max_size=4), st.dictionaries(st.text(max_size=8), c,
                                                                  max_size=4)),
    max_leaves=10,
)
case_bytes = st.one_of(
    st.binary(max_size=300),
    json_values.map(lambda v: json.dumps(v).encode()),
    st.sampled_from([b"", b"\xef\xbb\xbf{}", b'{"type": "ClassDiagram",', b"\xff\xfe{}",
                     b'{"type": "ClassDiagram", "elements": {}}', b"[]", b"null", b"NaN",
                     b'{"elements": [1, 2]}', b'{"a": 1}{"b": 2}']),
)


@FUZZ
@given(raw=case_bytes)
def test_any_test_case_bytes_load_or_are_invalid_with_a_reason(
    scenario_dir: Path, raw: bytes
) -> None:
    (scenario_dir / "manifest.yml").write_text(BASE_TEXT, encoding="utf-8")
    path = scenario_dir / "test_cases" / "zz_fuzzed.json"
    path.write_bytes(raw)
    try:
        scenario, diags = load_scenario(scenario_dir)
    finally:
        path.unlink()
    assert scenario is not None, diags  # one bad case never blocks the scenario
    good = [c for c in scenario.test_cases if c.name == "zz_fuzzed"]
    bad = [b for b in scenario.invalid_cases if b.name == "zz_fuzzed"]
    assert len(good) + len(bad) == 1
    about = [d for d in diags if d.file == path]
    if bad:
        assert bad[0].reason.strip()
        assert any(d.severity == "error" and bad[0].reason in d.message for d in about)
    else:
        assert isinstance(json.loads(good[0].submission), dict)
    assert len(scenario.test_cases) + len(scenario.invalid_cases) == 15


@FUZZ
@given(value=garbage)
def test_garbage_manifest_root_never_crashes(scenario_dir: Path, value: Any) -> None:
    try:
        text = dump(value)
    except (yaml.YAMLError, OverflowError):
        return
    scenario, diags = _load(scenario_dir, text)
    assert scenario is None
    assert errors(diags)
    assert_names_file(diags, {scenario_dir / "manifest.yml"})


# --- ids (issue 31): any scalar that is not text with something in it is refused, named -------

not_text_ids = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
    st.text(alphabet=" \t", max_size=3))


@FUZZ
@given(value=not_text_ids, where=st.sampled_from(["criterion", "instruction", "expected"]))
def test_an_id_that_is_not_text_is_refused_with_its_key(scenario_dir: Path, value: Any,
                                                        where: str) -> None:
    data = json.loads(json.dumps(BASE))
    key = {"criterion": "criteria[2].id", "instruction": "criteria[1].instructions[0].id",
           "expected": "default_expected[3]"}[where]
    if where == "criterion":
        data["criteria"][2]["id"] = value
    elif where == "instruction":
        data["criteria"][1]["instructions"][0]["id"] = value
    else:
        data["default_expected"][3] = value
    scenario, diags = _load(scenario_dir, dump(data))
    assert scenario is None
    found = [d for d in errors(diags) if d.key == key]
    assert len(found) == 1, [str(d) for d in diags]
    assert found[0].file == scenario_dir / "manifest.yml" and found[0].line is not None
    assert "empty" in found[0].message or "YAML reads this id as" in found[0].message
