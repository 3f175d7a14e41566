"""Reading matrix files: paths relative to the file, model entries, every problem listed."""

from __future__ import annotations

from pathlib import Path

import pytest

from eunomia.errors import EunomiaError
from eunomia.matrix import MatrixModel, load_scenario_matrix, load_task_matrix
from eunomia.models import ModelsConfig
from eunomia.run import RunRequest
from eunomia.targets import split_options


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
    assert matrix.target_specs() == ["example", "athena:http://127.0.0.1:5100/x"]
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


def test_scenario_matrix_sets_what_the_command_line_can(tmp_path: Path) -> None:
    """``--max-response-mb``, ``--retry-500``, ``--llm-usage`` and ``--athena-graded`` for
    the whole matrix; a target's own ``llm_usage`` and ``athena_graded`` as keys, folded into
    its spec as ``--target`` takes them (and the run stores them)."""
    matrix = load_scenario_matrix(write(tmp_path / "m.yml", """\
targets:
  - baseline:default
  - spec: athena:http://127.0.0.1:5100/x?keep=1
    llm_usage: http://127.0.0.1:8000/v1
    athena_graded: false
  - example
llm_usage: http://127.0.0.1:8001
athena_graded: true
max_response_mb: 2.5
retry_500: true
"""), more_targets=())
    specs = matrix.target_specs()
    assert specs[0] == "baseline:default" and specs[2] == "example"
    base, options = split_options(specs[1])
    assert base == "athena:http://127.0.0.1:5100/x?keep=1"
    assert options == {"graded": "false", "llm_usage": "http://127.0.0.1:8000/v1"}
    assert (matrix.llm_usage, matrix.athena_graded) == ("http://127.0.0.1:8001", True)
    run = RunRequest().with_matrix(matrix, "targets")
    assert (run.max_response_mb, run.retry_500) == (2.5, True)
    assert run.options.policy.max_response_bytes == 2_500_000 and run.options.policy.retry_500
    # given on the command line (on purpose), the option wins over the file's
    mine = RunRequest(max_response_mb=1.0, explicit=frozenset({"max_response_mb"}))
    assert mine.with_matrix(matrix, "targets").max_response_mb == 1.0


@pytest.mark.parametrize(("text", "key", "message"), [
    ("max_response_mb: 1e999\n", "max_response_mb", "finite number"),
    ("max_response_mb: .inf\n", "max_response_mb", "finite number"),
    ("max_response_mb: 0\n", "max_response_mb", "greater than 0"),
    ("max_response_mb: -1\n", "max_response_mb", "greater than 0"),
    ("max_response_mb: 1e6\n", "max_response_mb", "less than or equal to 100000"),
    ("retry_500: maybe\n", "retry_500", "valid boolean"),
    ("retries: 1000\n", "retries", "less than or equal to 100"),
    ("targets: [athena:http://127.0.0.1:9/f]\nllm_usage: localhost:8000\n", "llm_usage",
     "only absolute http:// or https:// URLs"),
    ("targets: [athena:http://127.0.0.1:9/f]\nathena_graded: maybe\n", "athena_graded",
     "valid boolean"),
    ("targets: [{spec: 'athena:http://127.0.0.1:9/f', llm_usage: nowhere}]\n",
     "targets[0].llm_usage", "only absolute http:// or https:// URLs"),
    ("targets: [{spec: 'athena:http://127.0.0.1:9/f', graded: false}]\n",
     "targets[0].graded", "unknown key (known: spec, llm_usage, athena_graded)"),
    ("targets: [{spec: example, llm_usage: 'http://127.0.0.1:8000'}]\n",
     "targets[0].llm_usage", "applies to athena and http: targets only, not to 'example'"),
    ("targets: [{spec: 'http:bot', athena_graded: false}]\n",
     "targets[0].athena_graded", "applies to athena targets only"),
    ("targets: [{spec: 'athena:http://127.0.0.1:9/f?graded=true', athena_graded: false}]\n",
     "targets[0].athena_graded", "given twice: also as ?graded= in the spec"),
    ("targets: [baseline:default, example]\nllm_usage: 'http://127.0.0.1:8000'\n",
     "llm_usage", "athena and http: targets only; none is given"),
    ("targets: [baseline:default]\nathena_graded: false\n", "athena_graded",
     "applies to athena targets only"),
])
def test_malformed_scenario_matrix_options(text: str, key: str, message: str,
                                           tmp_path: Path) -> None:
    path = write(tmp_path / "m.yml", text)
    with pytest.raises(EunomiaError, match="invalid matrix file") as caught:
        load_scenario_matrix(path)
    (problem,) = caught.value.diagnostics
    assert problem.file == path and problem.key == key and message in problem.message
    assert problem.line is not None


def test_the_command_lines_targets_take_the_matrix_options(tmp_path: Path) -> None:
    """``llm_usage`` of a matrix without a target that takes it applies to ``--target``
    given beside the file; without any target, the command's default (athena) takes it."""
    path = write(tmp_path / "m.yml", "llm_usage: 'http://127.0.0.1:8000'\n"
                                     "athena_graded: false\n")
    assert load_scenario_matrix(path, ["athena:http://127.0.0.1:9/f"]).llm_usage
    assert load_scenario_matrix(path).athena_graded is False
    with pytest.raises(EunomiaError) as caught:
        load_scenario_matrix(path, ["example"])
    assert [d.key for d in caught.value.diagnostics] == ["llm_usage", "athena_graded"]


def test_a_resumed_run_keeps_its_answer_limit_unless_given_again() -> None:
    stored = RunRequest(max_response_mb=0.5, retry_500=True).kept_settings()
    resumed = RunRequest(resume="r").resumed(stored)
    assert (resumed.max_response_mb, resumed.retry_500) == (0.5, True)
    again = RunRequest(resume="r", max_response_mb=3.0,
                       explicit=frozenset({"max_response_mb"})).resumed(stored)
    assert (again.max_response_mb, again.retry_500) == (3.0, True)
    old = RunRequest(resume="r").resumed({})  # a run stored before they were kept
    assert old.max_response_mb == RunRequest().max_response_mb and not old.retry_500
