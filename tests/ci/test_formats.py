"""The output formats are one registry (``eunomia.exports.FORMATS``): the commands' options,
``export --format``, the step summary and docs/ci.md follow it, and a format added there is
written by ``run``/``eval``'s outputs and ``export`` with nothing else changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import typer.main
from tests.ci.conftest import ScenarioRuns, read_jsonl
from typer.testing import CliRunner

from eunomia.cli._app import app
from eunomia.cli._options import RUN_WORDS, output_options, run_options
from eunomia.cli._store_cmds import ExportFormat
from eunomia.exports import FORMATS, Format, RecordSink, RunFacts, TextSink, formats_table
from eunomia.exports import ResultRecord as Record
from eunomia.run import CiOutputs, RunRequest, ci_outputs, export_format, write_outputs
from eunomia.store import RunStore

DOCS = Path(__file__).resolve().parents[2] / "docs" / "ci.md"


def _options(command: str) -> set[str]:
    group = typer.main.get_command(app)
    assert isinstance(group, typer.main.TyperGroup)
    return {opt for p in group.commands[command].params for opt in getattr(p, "opts", [])}


def test_docs_ci_md_holds_the_table_of_the_formats() -> None:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("<!-- formats:")
    block = text[text.index("\n", start) + 1:text.index("<!-- /formats -->")]
    assert block == formats_table(), f"docs/ci.md's table is out of date; it is:\n{formats_table()}"


def test_the_commands_offer_every_format() -> None:
    for command in ("run", "eval"):
        assert {f.option for f in FORMATS.values()} <= _options(command), command
    assert {f.option for f in FORMATS.values() if f.comparison} <= _options("compare")
    assert [m.value for m in ExportFormat] == ["csv", *FORMATS]
    assert {f.field for f in FORMATS.values()} == {"jsonl", "junit", "summary_md"}


class _Names:
    """A format of a test: each record's case name, a line each, and a count at the end."""

    def __init__(self, out: TextSink, facts: RunFacts) -> None:
        self.out = out
        self.count = 0
        self.out.write(f"# {facts.name}\n")

    def add(self, record: Record) -> None:
        self.out.write(f"{record.case}\n")
        self.count += 1

    def close(self) -> None:
        self.out.write(f"{self.count} records\n")


def _names(out: TextSink, facts: RunFacts) -> RecordSink:
    return _Names(out, facts)


def _write_names(out: TextSink, comparison: object, report: str | None) -> None:
    out.write("compared\n")


def test_a_format_added_to_the_registry_is_an_option_of_the_commands(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CI options are the registry's: a format with an option is one on every evaluating
    command (on ``compare`` with a comparison writer), handed over as the run's output
    files; a format without one is ``export --format``'s alone."""
    monkeypatch.setitem(FORMATS, "names", Format("names", "--case-names", "names.txt",
                                                 "the names of the cases", _names,
                                                 comparison=_write_names,
                                                 comparison_about="the word compared"))
    monkeypatch.setitem(FORMATS, "quiet", Format("quiet", None, "quiet.txt", "nothing", _names))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    seen: list[object] = []
    commands = typer.Typer()

    @commands.command()
    @run_options(RUN_WORDS)
    def evaluate(*, run: RunRequest) -> None:
        seen.append(run)

    @commands.command()
    @output_options()
    def compared(*, outputs: dict[str, Path]) -> None:
        seen.append(outputs)

    runner = CliRunner()
    names, junit = tmp_path / "n.txt", tmp_path / "j.xml"
    result = runner.invoke(commands, ["evaluate", "--case-names", str(names),
                                      "--junit", str(junit)])
    assert result.exit_code == 0, result.output
    run = seen.pop()
    assert isinstance(run, RunRequest)
    assert run.output_files == {"case_names": names, "junit": junit}
    assert run.outputs() == CiOutputs(files={"names": names, "junit": junit})
    result = runner.invoke(commands, ["compared", "--case-names", str(names)])
    assert result.exit_code == 0, result.output
    assert seen.pop() == {"case_names": names}
    evaluate_help = " ".join(  # the help's words, whatever the box and the line breaks
        runner.invoke(commands, ["evaluate", "--help"]).output.replace("│", " ").split())
    assert "the names of the cases" in evaluate_help and "Passing: fully correct" in evaluate_help
    assert "the word compared" in runner.invoke(commands, ["compared", "--help"]).output
    for command in ("evaluate", "compared"):
        result = runner.invoke(commands, [command, "--quiet", str(tmp_path / "q.txt")])
        assert result.exit_code == 2 and "No such option" in result.output, command
    # compare offers only what it writes: --jsonl has no comparison writer
    result = runner.invoke(commands, ["compared", "--jsonl", str(tmp_path / "c.jsonl")])
    assert result.exit_code == 2


def test_a_format_added_to_the_registry_is_written_with_nothing_else_changed(
        scenario_runs: ScenarioRuns, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(FORMATS, "names", Format("names", "--names", "names.txt",
                                                 "the names of the cases", _names))
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    outputs = ci_outputs(names=tmp_path / "n.txt", jsonl=tmp_path / "c.jsonl")
    assert outputs == CiOutputs(files={"names": tmp_path / "n.txt",
                                       "jsonl": tmp_path / "c.jsonl"})
    store = RunStore(scenario_runs.results / "eunomia.db")
    try:
        run = store.require_run("good")
        written = write_outputs(store, run, [], outputs, scenario_runs.results)
        default = export_format(store, run, "names", None, scenario_runs.results)
    finally:
        store.close()
    assert written == [tmp_path / "c.jsonl", tmp_path / "n.txt"]  # in the registry's order
    lines = (tmp_path / "n.txt").read_text(encoding="utf-8").splitlines()
    records = read_jsonl(tmp_path / "c.jsonl")
    assert lines == ["# good", *(r["case"] for r in records), f"{len(records)} records"]
    assert default == scenario_runs.results / "good" / "names.txt"
    assert default.read_text(encoding="utf-8") == (tmp_path / "n.txt").read_text("utf-8")
    with pytest.raises(TypeError, match="no output format for nope"):
        ci_outputs(nope=tmp_path / "x")


def test_the_step_summary_gets_each_step_summary_format(
        scenario_runs: ScenarioRuns, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    step = tmp_path / "step.md"
    monkeypatch.setitem(os.environ, "GITHUB_STEP_SUMMARY", str(step))
    outputs = ci_outputs()
    assert outputs.wanted and [f.name for f in outputs.formats()] == ["md"]
    store = RunStore(scenario_runs.results / "eunomia.db")
    try:
        written = write_outputs(store, store.require_run("good"), [], outputs,
                                scenario_runs.results)
    finally:
        store.close()
    assert written == [step]
    assert step.read_text(encoding="utf-8").startswith("## Eunomia")
