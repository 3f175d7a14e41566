"""Structured-grading scenarios from Python: :func:`run_scenarios` (loaded scenarios on built
targets) and :func:`run_command` (what ``eunomia run`` does: scenario folders and target specs,
a matrix file, a resumed run, the CI outputs)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from rich.console import Console
from rich.markup import escape

from eunomia.athena import check_id_base
from eunomia.errors import EunomiaError, has_errors, print_diagnostics
from eunomia.executors import TargetRecipe
from eunomia.kinds.scenarios import (
    LoadedScenario,
    ScenarioPlan,
    ScenarioSummary,
    load_scenarios,
    selected_cases,
    selected_invalid,
)
from eunomia.metering import usage_url
from eunomia.run import run_evaluation, run_result, run_to_resume
from eunomia.scenarios import discover
from eunomia.scheduler import RunOptions
from eunomia.targets import (
    FeedbackTarget,
    TargetConfig,
    build_target,
    spec_base,
    spec_kind,
    split_options,
    takes_options,
)

AskRunName = Callable[[], str]
"""Asks a person at a terminal for the run's name."""
AskCases = Callable[[Sequence[LoadedScenario]], tuple[str, ...]]
"""Shows the loaded scenarios to a person at a terminal; asks which cases to run (globs)."""

if TYPE_CHECKING:
    from eunomia.run import RunArgs, RunReport, RunRequest, RunResult


async def run_scenarios(
    loaded: Sequence[LoadedScenario],
    target: FeedbackTarget | Sequence[FeedbackTarget],
    *,
    run_name: str,
    results_dir: Path,
    options: RunOptions,
    recipes: Mapping[str, TargetRecipe] | None = None,
    **run: Unpack[RunArgs],
) -> RunReport[ScenarioSummary]:
    """Evaluate every selected case of every scenario on every target (``repeats`` times);
    ``run``: the engine's options (:class:`eunomia.run.RunArgs`: selection, repeats,
    resume, cache, executor...).

    ``recipes`` (target name -> spec and config) let a remote ``executor`` rebuild each
    target on its workers.
    """
    targets = [target] if not isinstance(target, Sequence) else list(target)
    return await run_evaluation(ScenarioPlan(loaded, targets, recipes or {}),
                                run_name=run_name, results_dir=results_dir, options=options,
                                **run)


@dataclass(frozen=True, slots=True)
class ScenarioRequest:
    """What ``eunomia run`` evaluates beyond the shared run options: scenario folders and
    the systems under test (``--target`` specs; none: ``athena``)."""

    paths: tuple[Path, ...] = ()
    targets: tuple[str, ...] = ()
    server_url: str | None = None
    """The feedback URL of every scenario (``--target athena`` only)."""
    secret_env: str = "ATHENA_SECRET"
    x_server_url: str = "http://localhost"
    athena_id_base: int | None = None
    prompt_dir: Path | None = None
    matrix: Path | None = None
    """A matrix file: its scenarios and targets are added, its options used where the
    shared options were not given on purpose."""
    llm_usage: str | None = None
    """Meter the LLM traffic of every Athena and HTTP target at this ``eunomia serve-model``
    (``--llm-usage``); a target's own ``?llm_usage=`` overrides it."""
    athena_graded: bool | None = None
    """``isGraded`` of every Athena target's requests (``--athena-graded true|false``; None:
    true); a target's own ``?graded=`` overrides it."""
    ask_run_name: AskRunName | None = field(default=None, compare=False)
    ask_cases: AskCases | None = field(default=None, compare=False)

    @property
    def target_specs(self) -> list[str]:
        return list(self.targets) or ["athena"]

    def resumed(self, settings: dict[str, Any]) -> ScenarioRequest:
        """The scenarios and targets of the stored run (nothing is asked)."""
        return replace(
            self, paths=tuple(Path(p) for p in settings.get("paths", [])),
            targets=tuple(settings.get("targets", ["athena"])),
            server_url=settings.get("server_url"),
            secret_env=settings.get("secret_env", self.secret_env),
            x_server_url=settings.get("x_server_url", self.x_server_url),
            prompt_dir=Path(settings["prompt_dir"]) if settings.get("prompt_dir") else None,
            athena_id_base=settings.get("athena_id_base", self.athena_id_base),
            llm_usage=settings.get("llm_usage"), athena_graded=settings.get("athena_graded"),
            ask_run_name=None, ask_cases=None)

    @property
    def metered(self) -> list[str]:
        """The target specs whose LLM traffic is metered (``--llm-usage`` or ``llm_usage=``)."""
        return [spec for spec in self.target_specs if takes_options(spec) and (
            self.llm_usage or "llm_usage" in split_options(spec)[1])]

    def checked(self) -> TargetConfig:
        """The options that apply to some targets only, refused where none takes them; the
        targets' shared configuration (without the run's own parts) they give."""
        specs = self.target_specs
        if self.server_url and "athena" not in map(spec_base, specs):
            raise EunomiaError("--server-url applies to --target athena (also with options, "
                               "athena?graded=false) only; use --target athena:<url> to name "
                               "a URL per target")
        if self.athena_graded is not None and "athena" not in map(spec_kind, specs):
            raise EunomiaError("--athena-graded applies to athena targets only (isGraded of "
                               "Athena's feedback requests)")
        if self.llm_usage is not None:
            usage_url(self.llm_usage)  # a URL, or an error naming --llm-usage
            if not any(map(takes_options, specs)):
                raise EunomiaError("--llm-usage meters the LLM traffic of athena and http: "
                                   "targets only; none is given (llm: targets report their "
                                   "own usage)")
        return TargetConfig(server_url=self.server_url, secret_env=self.secret_env,
                            x_server_url=self.x_server_url, prompt_dir=self.prompt_dir,
                            id_base=self.athena_id_base,
                            athena_graded=self.athena_graded is not False,
                            llm_usage=self.llm_usage)


def _prepared(what: ScenarioRequest, run: RunRequest) -> tuple[ScenarioRequest, RunRequest]:
    """The matrix file merged in, or the stopped run's settings read back."""
    if what.matrix is not None:
        from eunomia.matrix import load_scenario_matrix  # YAML only when a file is given

        m = load_scenario_matrix(what.matrix, what.targets)
        run = run.with_matrix(m, "targets, scenarios")
        in_file: dict[str, object] = {
            "llm_usage": m.llm_usage, "athena_graded": m.athena_graded,
            "server_url": m.server_url, "x_server_url": m.x_server_url,
            "secret_env": m.secret_env, "athena_id_base": m.athena_id_base,
            "prompt_dir": m.prompt_path()}
        what = replace(  # an option given on the command line wins over the file's
            what, paths=(*m.scenario_paths(), *what.paths),
            targets=(*m.target_specs(), *what.targets),
            **{name: run.given(name, getattr(what, name), value)
               for name, value in in_file.items()})
    run.check()
    if run.resume is not None:
        # Everything that defines the run comes from the store; operational options
        # (concurrency, timeout, retries) may be changed.
        stored = run_to_resume(run.store_path, run.resume, "scenarios").settings
        what, run = what.resumed(stored), run.resumed(stored)
    return what, run


def _targets(what: ScenarioRequest, run: RunRequest, loaded: Sequence[LoadedScenario],
             remote: bool, out: Console
             ) -> tuple[list[FeedbackTarget], TargetConfig, RunRequest]:
    """The targets built and checked against the scenarios before any request (a URL
    missing, shared Athena ids); the concurrency lowered for one that answers one at a
    time."""
    config = replace(what.checked(), max_connections=run.concurrency,
                     id_seed=run.run_name or "")
    built = [build_target(spec, config) for spec in what.target_specs]
    for tgt in built:
        limit = getattr(tgt, "max_concurrency", None)
        if isinstance(limit, int) and remote:
            out.print(f"[yellow]note:[/] {escape(tgt.name)} answers one request at a time "
                      "on each worker")
        elif isinstance(limit, int) and run.concurrency > limit:
            out.print(f"[yellow]note:[/] {escape(tgt.name)} answers one request at a time; "
                      f"concurrency lowered from {run.concurrency} to {limit}")
            run = replace(run, concurrency=limit)
        url_for = getattr(tgt, "url_for", None)
        if url_for is not None:  # fail before any request when a URL is missing or bad
            for item in loaded:
                url_for(item.scenario)
        check_ids = getattr(tgt, "check_ids", None)
        if check_ids is not None:  # two scenarios must never share Athena submission ids
            check_ids(item.scenario for item in loaded)
        warn = getattr(tgt, "warnings", None)
        if callable(warn):
            for text in warn([item.scenario for item in loaded]):
                out.print(f"[yellow]warning:[/] {escape(text)}")
    return built, config, run


def _selection(what: ScenarioRequest, run: RunRequest,
               loaded: Sequence[LoadedScenario], out: Console) -> RunRequest:
    """The run's name and cases (asked for at a terminal when not given); a pattern that
    matches no case is refused."""
    if run.run_name is None and what.ask_run_name is not None:
        run = replace(run, run_name=what.ask_run_name())
    run = run.named("run")
    if not run.case and what.ask_cases is not None:
        run = replace(run, case=what.ask_cases(loaded))
    selection = run.selection
    if run.case and not any(
        selected_cases(item.scenario, selection) or selected_invalid(item.scenario, selection)
        for item in loaded
    ):
        raise EunomiaError(f"no test case matches {', '.join(run.case)}")
    return run


def run_command(what: ScenarioRequest, run: RunRequest,
                console: Console | None = None) -> RunResult[ScenarioSummary]:
    """What ``eunomia run`` does: load the scenarios, build the targets, run (or resume) the
    evaluation, write the CI outputs asked for. Problems in the files are printed to
    ``console``; blocking ones raise :class:`EunomiaError` before anything is asked."""
    out = console or Console(stderr=True, quiet=True)
    outputs = run.outputs()
    what, run = _prepared(what, run)
    if not what.paths:
        raise EunomiaError("give at least one scenario folder (or --resume RUN)")
    what.checked()  # options that apply to some targets only, before anything starts
    if (run.executor or "local") != "local" and what.metered:
        raise EunomiaError(
            f"{what.metered[0]!r}: metering LLM calls (--llm-usage, llm_usage=) needs "
            f"--executor local, not {run.executor}: calls are matched to requests on one "
            "clock, and every remote worker would meter alone and take the other workers' "
            "calls for its own")
    if what.athena_id_base is not None:
        try:
            check_id_base(what.athena_id_base)
        except ValueError as exc:
            raise EunomiaError(f"--athena-id-base: {exc}") from None
    calls_on = run.open_executor()  # fails fast
    sources, problems = discover(list(what.paths))
    if has_errors(problems):
        raise EunomiaError("nothing to run", problems)
    loaded, diagnostics = load_scenarios(sources)
    print_diagnostics(out, diagnostics)
    run = _selection(what, run, loaded, out)
    built, config, run = _targets(what, run, loaded, calls_on.remote, out)
    settings: dict[str, Any] = {
        "paths": [str(p) for p in what.paths],
        "targets": what.target_specs,
        "server_url": what.server_url,
        "secret_env": what.secret_env,
        "x_server_url": what.x_server_url,
        "prompt_dir": str(what.prompt_dir) if what.prompt_dir else None,
        "cache_systems": run.cache,
        "athena_id_base": what.athena_id_base,
        "llm_usage": what.llm_usage,
        "athena_graded": what.athena_graded,
        **run.kept_settings(), **calls_on.settings(),
    }
    recipes = {t.name: TargetRecipe(spec, config)
               for spec, t in zip(what.target_specs, built, strict=True)}
    assert run.run_name is not None
    try:
        report = asyncio.run(run_evaluation(
            ScenarioPlan(loaded, built, recipes), run_name=run.run_name,
            results_dir=run.results, options=run.options, console=out, settings=settings,
            executor=calls_on, **run.engine_args()))
    finally:
        calls_on.close()
    return run_result(report, "case(s) failed; see failures.json", outputs, run.results)

