"""The matrix file (YAML): several targets or candidate models on the same suites, one run.

Scenarios, for ``eunomia run --matrix FILE``::

    scenarios: [examples/scenarios]       # scenario folders, relative to this file
    targets:                              # as --target: athena[:<url>], example, llm:<spec>
      - example
      - athena:http://localhost:5100/modules/modeling/module_modeling_llm
      - spec: athena:http://localhost:5008/feedback_suggestions
        llm_usage: http://127.0.0.1:8000  # this target's ?llm_usage= (--llm-usage)
        athena_graded: false              # this target's ?graded= (--athena-graded)
      - llm:openai:gpt-4o-mini
    llm_usage: http://127.0.0.1:8000      # --llm-usage: every athena and http: target
    athena_graded: false                  # --athena-graded: every athena target
    repeat: 3                             # and server_url, x_server_url, secret_env,
                                          # athena_id_base, prompt_dir (as their options)

Judged task suites, for ``eunomia eval --matrix FILE``::

    suites: [examples/tasks/ecommerce]    # suite files or folders, relative to this file
    models:                               # as --model, or a mapping
      - openai:gpt-4o-mini
      - name: mini-warm                   # its name in the results (default: the spec)
        spec: openai:gpt-4o-mini
        settings: {temperature: 0.8}      # generation settings, as in models.yml
    judge: local                          # and judge_repeats, weights, rubric,
                                          # judge_feedback, judge_check, pass_score,
                                          # controls, control_cases
    repeat: 2

Both take the run options ``run_name``, ``repeat``, ``cases``, ``max_cases``,
``concurrency``, ``timeout``, ``retries``, ``retry_500`` and ``max_response_mb`` (the
command line's ``--max-response-mb``). Every problem is reported with the file, the key path
and the line; nothing is run until the whole file is valid.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import parse_qsl, urlencode

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, model_validator

from eunomia import defaults
from eunomia.bounds import Concurrency, Repeats, Timeout, Url
from eunomia.errors import Diagnostic, EunomiaError
from eunomia.models import ModelsConfig, ModelSpec, SettingsOverride, load_config, resolve_spec
from eunomia.yamlfile import YamlDocument, diag_at, read_named_yaml, validate_document

_RUN_NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$"
_EXTRA = "Extra inputs are not permitted"
_NO_JUDGE = "none"


class _Options(BaseModel):
    """The run options both kinds of matrix may set (the command line overrides them)."""

    model_config = ConfigDict(extra="forbid")

    run_name: str | None = Field(default=None, pattern=_RUN_NAME)
    repeat: Repeats | None = None
    cases: list[str] | None = None
    """Case globs, as ``--case``."""
    max_cases: int | None = Field(default=None, ge=1)
    concurrency: Concurrency | None = None
    timeout: Timeout | None = None
    retries: int | None = Field(default=None, ge=0, le=defaults.MAX_RETRIES)
    retry_500: StrictBool | None = None
    """``--retry-500``: also retry HTTP 500."""
    max_response_mb: Annotated[float, Field(
        gt=0, le=defaults.MAX_RESPONSE_MB_LIMIT, allow_inf_nan=False)] | None = None
    """``--max-response-mb``: the largest answer read, in megabytes."""
    _path: Path = PrivateAttr(default=Path("matrix.yml"))
    _doc: YamlDocument | None = PrivateAttr(default=None)

    @property
    def path(self) -> Path:
        """The file this matrix was read from."""
        return self._path

    def refused(self, key: str, message: str) -> EunomiaError:
        """The error of a value the file gives that a command refuses (checked where it is
        used): naming the file, the key and its line."""
        if self._doc is None:
            return EunomiaError(f"invalid matrix file {self._path}: {key}: {message}")
        return EunomiaError(f"invalid matrix file {self._path}",
                            [diag_at(self._doc, (key,), message)])

    def resolve(self, relative: str) -> Path:
        """A path written in the file: relative ones are relative to the file's folder."""
        path = Path(relative).expanduser()
        return path if path.is_absolute() else self._path.parent / path


class MatrixTarget(BaseModel):
    """A system under test: a spec as ``--target``, optionally with the options of that
    target alone (its ``?llm_usage=`` and ``?graded=``, written as keys)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str = Field(min_length=1)
    llm_usage: Url | None = None
    """Meter this target's LLM traffic at this ``eunomia serve-model`` (athena, http:)."""
    athena_graded: StrictBool | None = None
    """``isGraded`` of this Athena target's requests."""

    @model_validator(mode="before")
    @classmethod
    def _plain_spec(cls, data: Any) -> Any:
        return {"spec": data} if isinstance(data, str) else data

    def options(self) -> dict[str, str]:
        """The options given as keys, as the spec writes them (``graded``, ``llm_usage``)."""
        out: dict[str, str] = {}
        if self.athena_graded is not None:
            out["graded"] = str(self.athena_graded).lower()
        if self.llm_usage is not None:
            out["llm_usage"] = self.llm_usage
        return out

    def in_spec(self) -> set[str]:
        """The options the spec itself gives after ``?``."""
        return {key for key, _ in parse_qsl(self.spec.partition("?")[2])}

    def as_spec(self) -> str:
        """The spec as ``--target`` takes it (stored with the run, so ``--resume`` builds
        the same target): ``athena:<url>?graded=false&llm_usage=<url>``."""
        options = self.options()
        if not options:
            return self.spec
        return self.spec + ("&" if "?" in self.spec else "?") + urlencode(options, safe=":/")


class ScenarioMatrix(_Options):
    """``eunomia run --matrix``: scenario folders × targets."""

    scenarios: list[str] = Field(default_factory=list)
    targets: list[MatrixTarget] = Field(default_factory=list)
    llm_usage: Url | None = None
    """``--llm-usage``: meter every athena and http: target (a target's own wins)."""
    athena_graded: StrictBool | None = None
    """``--athena-graded``: ``isGraded`` of every athena target (a target's own wins)."""
    server_url: Url | None = None
    """``--server-url``: the feedback URL of plain ``athena`` targets."""
    x_server_url: Url | None = None
    """``--x-server-url``: the ``X-Server-URL`` header of Athena requests."""
    secret_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,99}$")
    """``--secret-env``: the environment variable holding Athena's secret."""
    athena_id_base: int | None = None
    """``--athena-id-base``: where the ids sent to Athena start."""
    prompt_dir: str | None = Field(default=None, min_length=1)
    """``--prompt-dir``: prompt templates of ``llm:`` targets (relative to this file)."""

    def scenario_paths(self) -> list[Path]:
        return [self.resolve(p) for p in self.scenarios]

    def prompt_path(self) -> Path | None:
        return self.resolve(self.prompt_dir) if self.prompt_dir is not None else None

    def target_specs(self) -> list[str]:
        """The targets as ``--target`` specs, each with its own options."""
        return [t.as_spec() for t in self.targets]


class MatrixModel(BaseModel):
    """A candidate model: a spec (``openai:gpt-4o-mini``, an alias of ``models.yml``...),
    optionally its name in the run and generation settings applied on top of the spec's."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spec: str = Field(min_length=1)
    name: str | None = Field(default=None, min_length=1, max_length=100)
    settings: SettingsOverride = SettingsOverride()

    @model_validator(mode="before")
    @classmethod
    def _plain_spec(cls, data: Any) -> Any:
        return {"spec": data} if isinstance(data, str) else data

    def resolve(self, config: ModelsConfig | None = None) -> tuple[str, ModelSpec]:
        """(name in the run, resolved spec with the settings applied); raises EunomiaError."""
        spec = resolve_spec(self.spec, config)
        spec = dataclasses.replace(spec, settings=self.settings.apply(spec.settings))
        return self.name or spec.spec, spec

    def to_json(self) -> dict[str, Any]:
        """What is stored with a run so ``--resume`` rebuilds the same model."""
        return self.model_dump(mode="json", exclude_unset=True)


class TaskMatrix(_Options):
    """``eunomia eval --matrix``: task suites × candidate models, with one judge."""

    suites: list[str] = Field(default_factory=list)
    models: list[MatrixModel] = Field(default_factory=list)
    judge: str | None = Field(default=None, min_length=1)
    judge_repeats: Repeats | None = None
    weights: dict[Literal["easy", "medium", "hard"],
                  Annotated[float, Field(ge=0, le=1e6, allow_inf_nan=False)]] | None = None
    rubric: str | None = Field(default=None, min_length=1)
    judge_feedback: StrictBool | None = None
    """``--judge-feedback``: a local judge writes its feedback too."""
    judge_check: StrictBool | None = None
    """``--judge-check``: check the judge on these suites first."""
    pass_score: Annotated[float, Field(ge=0, le=5, allow_inf_nan=False)] | None = None
    """``--pass-score``: a case passes (JUnit, JSON Lines, summary) at this mean score."""
    controls: str | None = Field(default=None, min_length=1)
    """``--controls``: ``none``, or the controls scored beside the candidates (names
    checked by the eval)."""
    control_cases: Annotated[int, Field(ge=1)] | Literal["all"] | None = None
    """``--control-cases``: cases per suite whose controls are scored, or ``all``."""

    def suite_paths(self) -> list[Path]:
        return [self.resolve(p) for p in self.suites]

    def rubric_path(self) -> Path | None:
        return self.resolve(self.rubric) if self.rubric is not None else None


M = TypeVar("M", bound=_Options)
_ENTRIES: dict[str, type[BaseModel]] = {"targets": MatrixTarget, "models": MatrixModel}
"""The lists whose entries may be mappings, by key."""


def _known(key: str, model: type[BaseModel]) -> str:
    """The keys known where ``key`` (a key path) is: of a list's entry (``targets[1].x``),
    else of the file."""
    head, _, rest = key.partition("[")
    entry = _ENTRIES.get(head)
    if entry is not None and rest.count(".") == 1 and "[" not in rest:
        return ", ".join(entry.model_fields)
    return ", ".join(model.model_fields)


def _read(path: Path, model: type[M], other: type[_Options], command: str
          ) -> tuple[YamlDocument, M]:
    kind, other_kind = ("scenario", "task") if model is ScenarioMatrix else ("task", "scenario")
    doc = read_named_yaml(path, "matrix file")
    if doc.data is None:
        raise EunomiaError(f"invalid matrix file {path}", [diag_at(
            doc, (), "the file is empty; see 'eunomia run --help' or 'eunomia eval --help'")])
    matrix, problems = validate_document(doc, model)
    foreign = set(other.model_fields) - set(model.model_fields)
    problems = [
        dataclasses.replace(d, message=(
            f"not a key of a {kind} matrix but of a {other_kind} one: run the file with "
            f"'{command}'" if d.key in foreign else f"unknown key (known: {_known(d.key, model)})"))
        if d.message == _EXTRA else d
        for d in problems
    ]
    if matrix is None:
        raise EunomiaError(f"invalid matrix file {path}", problems)
    matrix._path = path
    matrix._doc = doc
    return doc, matrix


def _missing_paths(doc: YamlDocument, matrix: _Options, key: str,
                   values: list[str]) -> list[Diagnostic]:
    return [diag_at(doc, (key, i), f"no such file or folder: {matrix.resolve(p)}")
            for i, p in enumerate(values) if not matrix.resolve(p).exists()]


def _target_options(doc: YamlDocument, i: int, target: MatrixTarget) -> list[Diagnostic]:
    """A target's own options where its spec takes them, and not given twice."""
    from eunomia.targets import spec_kind, takes_options

    problems = []
    for key, option, applies, to in (
            ("llm_usage", "llm_usage", takes_options(target.spec), "athena and http: targets"),
            ("athena_graded", "graded", spec_kind(target.spec) == "athena", "athena targets")):
        if getattr(target, key) is None:
            continue
        if not applies:
            problems.append(diag_at(doc, ("targets", i, key), f"applies to {to} only, not "
                                                              f"to {target.spec!r}"))
        elif option in target.in_spec():
            problems.append(diag_at(doc, ("targets", i, key), f"given twice: also as "
                                                              f"?{option}= in the spec"))
    return problems


def _run_options(doc: YamlDocument, matrix: ScenarioMatrix,
                 more_targets: Sequence[str]) -> list[Diagnostic]:
    """``llm_usage``, ``athena_graded`` and ``server_url`` of the whole matrix refused where
    no target (of the file or ``more_targets``, the command line's) takes them; the id base
    in range, the prompt folder there."""
    from eunomia.athena import check_id_base
    from eunomia.targets import spec_base, spec_kind, takes_options

    specs = [*matrix.target_specs(), *more_targets]
    if not specs:  # the targets are the command's default (athena)
        specs = ["athena"]
    problems = []
    if matrix.llm_usage is not None and not any(map(takes_options, specs)):
        problems.append(diag_at(doc, ("llm_usage",), "meters the LLM traffic of athena and "
                                                     "http: targets only; none is given "
                                                     "(llm: targets report their own usage)"))
    if matrix.athena_graded is not None and "athena" not in map(spec_kind, specs):
        problems.append(diag_at(doc, ("athena_graded",), "applies to athena targets only "
                                                         "(isGraded of Athena's feedback "
                                                         "requests); none is given"))
    if matrix.server_url is not None and "athena" not in map(spec_base, specs):
        problems.append(diag_at(doc, ("server_url",), "applies to plain athena targets only "
                                                      "(also with options, athena?graded="
                                                      "false); give athena:<url> to name a "
                                                      "URL per target"))
    if matrix.athena_id_base is not None:
        try:
            check_id_base(matrix.athena_id_base)
        except ValueError as exc:
            problems.append(diag_at(doc, ("athena_id_base",), str(exc)))
    prompts = matrix.prompt_path()
    if prompts is not None and not prompts.is_dir():
        problems.append(diag_at(doc, ("prompt_dir",), f"no such folder: {prompts}"))
    return problems


def load_scenario_matrix(path: Path, more_targets: Sequence[str] = ()) -> ScenarioMatrix:
    """Read and check a scenario matrix (paths exist, every target spec can be built with
    the file's options, each option where a target takes it; ``more_targets``: the
    command line's, which the file's options apply to too).

    Raises :class:`EunomiaError` listing every problem (file, key path, line).
    """
    from eunomia.targets import TargetConfig, build_target

    doc, matrix = _read(path, ScenarioMatrix, TaskMatrix, "eunomia eval --matrix")
    problems = _missing_paths(doc, matrix, "scenarios", matrix.scenarios)
    problems += _run_options(doc, matrix, more_targets)
    config = TargetConfig(athena_graded=matrix.athena_graded is not False,
                          llm_usage=matrix.llm_usage)
    seen: dict[str, int] = {}
    for i, target in enumerate(matrix.targets):
        own = _target_options(doc, i, target)
        if own:
            problems += own
            continue
        try:
            name = build_target(target.as_spec(), config).name
        except EunomiaError as exc:
            problems.append(diag_at(doc, ("targets", i), exc.message))
            continue
        if name in seen:
            problems.append(diag_at(doc, ("targets", i), f"target {name!r} is listed twice "
                                                         f"(also targets[{seen[name]}])"))
        seen.setdefault(name, i)
    if problems:
        raise EunomiaError(f"invalid matrix file {path}", problems)
    return matrix


def load_task_matrix(path: Path, config: ModelsConfig | None = None) -> TaskMatrix:
    """Read and check a task matrix (paths exist, every model spec resolves against
    ``config`` — default: ``models.yml`` in the working folder — names are distinct).

    Raises :class:`EunomiaError` listing every problem (file, key path, line).
    """
    doc, matrix = _read(path, TaskMatrix, ScenarioMatrix, "eunomia run --matrix")
    config = config if config is not None else load_config()
    problems = _missing_paths(doc, matrix, "suites", matrix.suites)
    raw = doc.data.get("models") if isinstance(doc.data, dict) else None
    seen: dict[str, int] = {}
    for i, entry in enumerate(matrix.models):
        plain = isinstance(raw, list) and i < len(raw) and isinstance(raw[i], str)
        try:
            name, _ = entry.resolve(config)
        except EunomiaError as exc:
            loc: tuple[int | str, ...] = ("models", i) if plain else ("models", i, "spec")
            problems.append(diag_at(doc, loc, f"unknown model spec: {exc.message}"))
            continue
        if name in seen:
            loc = ("models", i, "name") if entry.name else ("models", i)
            problems.append(diag_at(doc, loc, f"model {name!r} is listed twice (also "
                                              f"models[{seen[name]}]); give each entry a "
                                              "distinct 'name'"))
        seen.setdefault(name, i)
    if matrix.judge is not None and matrix.judge.strip().lower() != _NO_JUDGE:
        try:
            resolve_spec(matrix.judge, config)
        except EunomiaError as exc:
            problems.append(diag_at(doc, ("judge",), f"unknown model spec: {exc.message}"))
    rubric = matrix.rubric_path()
    if rubric is not None and not rubric.is_file():
        problems.append(diag_at(doc, ("rubric",), f"no such file: {rubric}"))
    if problems:
        raise EunomiaError(f"invalid matrix file {path}", problems)
    return matrix
