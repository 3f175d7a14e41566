"""Reading matrix files: paths relative to the file, model entries, every problem listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from eunomia.errors import EunomiaError
from eunomia.matrix import MatrixModel, load_scenario_matrix, load_task_matrix
from eunomia.models import ModelsConfig


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_task_matrix_entries_paths_and_options(tmp_path: Path) -> None:
    write(tmp_path / "suites" / "gk.yaml", "[]\n")
    write(tmp_path / "rubric.txt", "rubric\n")
    matrix = load_task_matrix(write(tmp_path / "plan" / "matrix.yml", """\
suites: [../suites/gk.yaml]
models:
  - openai:gpt-4o-mini
  - name: mini-warm
    spec: openai:gpt-4o-mini
    settings: {temperature: 0.8, max_tokens: 50}
judge: none
judge_repeats: 2
weights: {hard: 5}
rubric: ../rubric.txt
repeat: 3
cases: ["gk/*"]
"""), ModelsConfig())
    assert matrix.suite_paths() == [tmp_path / "plan" / ".." / "suites" / "gk.yaml"]
    assert matrix.rubric_path() == tmp_path / "plan" / ".." / "rubric.txt"
    assert (matrix.repeat, matrix.judge_repeats, matrix.weights) == (3, 2, {"hard": 5.0})
    (plain_name, plain), (warm_name, warm) = (m.resolve() for m in matrix.models)
    assert plain_name == "openai:gpt-4o-mini" and plain.settings.temperature == 0.0
    assert warm_name == "mini-warm" and warm.spec == "openai:gpt-4o-mini"
    assert (warm.settings.temperature, warm.settings.max_tokens) == (0.8, 50)
    assert warm.settings.seed == plain.settings.seed  # unset settings keep the spec's
    # what a run stores to be resumed rebuilds the same model
    stored = matrix.models[1].to_json()
    assert stored == {"spec": "openai:gpt-4o-mini", "name": "mini-warm",
                      "settings": {"temperature": 0.8, "max_tokens": 50}}
    assert MatrixModel.model_validate(stored).resolve() == (warm_name, warm)
    assert matrix.models[0].to_json() == {"spec": "openai:gpt-4o-mini"}


def test_every_problem_is_listed_with_its_line(tmp_path: Path) -> None:
    path = write(tmp_path / "m.yml", """\
suites: [missing_a, missing_b]
models:
  - openai:x
  - {name: openai:x, spec: openai:y}
judge: nobody
rubric: none.txt
""")
    with pytest.raises(EunomiaError) as caught:
        load_task_matrix(path, ModelsConfig())
    where = [(d.key, d.line) for d in caught.value.diagnostics]
    assert where == [("suites[0]", 1), ("suites[1]", 1), ("models[1].name", 4),
                     ("judge", 5), ("rubric", 6)]
    assert all(d.file == path for d in caught.value.diagnostics)


def test_scenario_matrix(tmp_path: Path) -> None:
    (tmp_path / "scenarios").mkdir()
    matrix = load_scenario_matrix(write(tmp_path / "m.yml", """\
scenarios: [scenarios]
targets: [example, "athena:http://127.0.0.1:5100/x"]
concurrency: 4
timeout: 30
"""))
    assert matrix.scenario_paths() == [tmp_path / "scenarios"]
    assert matrix.targets == ["example", "athena:http://127.0.0.1:5100/x"]
    assert (matrix.concurrency, matrix.timeout, matrix.repeat) == (4, 30.0, None)
    with pytest.raises(EunomiaError) as caught:
        load_scenario_matrix(write(tmp_path / "bad.yml", "targets: ['athena:ftp://x']\n"))
    (problem,) = caught.value.diagnostics
    assert problem.key == "targets[0]" and "http" in problem.message


@pytest.mark.parametrize(("text", "key", "message"), [
    ("", "", "the file is empty"),
    ("- a\n- b\n", "", "valid dictionary"),
    ("suites: [\n", "", "invalid YAML"),
    ("repeat: 0\n", "repeat", "greater than or equal to 1"),
    ("run_name: 'has space'\n", "run_name", "should match pattern"),
    ("weights: {extreme: 2}\n", "weights.extreme.[key]", "'easy', 'medium' or 'hard'"),
])
def test_malformed_task_matrix(text: str, key: str, message: str, tmp_path: Path) -> None:
    path = write(tmp_path / "m.yml", text)
    with pytest.raises(EunomiaError, match="invalid matrix file") as caught:
        load_task_matrix(path, ModelsConfig())
    (problem,) = caught.value.diagnostics
    assert problem.file == path and problem.key == key and message in problem.message
