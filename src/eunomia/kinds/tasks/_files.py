"""The result files of a task run, regenerated from the run store.

``results/<run>/``
  ``tasks/<suite>.yaml``           each suite as written (same shape, same key order) with
                                   the candidate's response, score and judge feedback appended
  ``tables/cases.csv``             one row per case and repeat
  ``tables/summary.csv``           per kind, category, sub-category, difficulty and suite: flat
                                   and difficulty-weighted mean score with 95% bootstrap CIs
  ``tables/judge_agreement.csv``   judge self-agreement (alpha, ICC) and judge–human (QWK, MAD)
  ``tables/judge_check_verdicts.csv`` with ``eval --judge-check``: the check's verdicts
  ``tables/floor.csv``             the candidate beside the controls (``--controls``): means,
                                   paired difference with its 95% CI, "no better than"
  ``tables/repeat_consistency.csv`` with ``--repeat``: each case's scores across repeats
  ``tables/inference_speed.csv``   latency, time to first token, words, words/s, adherence
  ``inference_speed.svg``          latency against output length, with the fitted line
  ``tasks_results.json``           the summary in JSON; ``failures.json`` every unscored case

Written as the store is read, in one pass: each suite in file order, a chunk of its cases
at a time (their stored results fetched by name, each read and validated once), its YAML
file written as it goes. The tables, ``failures.json`` and the summary take the cases in
the store's order (suite, target, case, repeat) as before: what they need of each record
(its row, its figures: small plain values) waits by key (``_reorder.Parked``: in memory,
or in a temporary file for a large suite) until the suite's YAML is written, then is fed
in that order — so the summary's intervals are those of the same records fed the same way.
Every file is written incrementally (through a temporary file, renamed when complete), so
an export holds a chunk of cases, the summary's compact arrays, a name -> case index of
one suite and what waits of its records (~6 MB at most, then ~80 bytes each),
whatever the size of the run. A row met twice (a name two cases share) sends its suite's
tables back to the store's own order, reading those rows' answers again, and so do rows
no case of their suite names (a case taken out of the suite file since, on ``--resume``:
the store holds more rows of the suite than were met).
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from eunomia import defaults
from eunomia.exports import (
    CsvOutput,
    JsonList,
    Output,
    SuiteYaml,
    write_csv_dicts,
    write_json_streaming,
)
from eunomia.files import file_safe
from eunomia.kinds import Exported
from eunomia.kinds._task_suites import baseline_note
from eunomia.kinds.judge_check import (
    VERDICT_COLUMNS,
    check_json,
    check_messages,
    stored_check,
    verdict_rows,
)
from eunomia.kinds.tasks._controls import (
    FLOOR_COLUMNS,
    WORDS,
    floor_json,
    floor_messages,
    floor_properties,
    floor_rows,
    read_floor,
)
from eunomia.kinds.tasks._figures import CaseFigures, case_figures
from eunomia.kinds.tasks._reorder import Parked
from eunomia.kinds.tasks._summary import TasksSummary
from eunomia.kinds.tasks._summary_builder import SummaryBuilder
from eunomia.kinds.tasks._tables import (
    CASE_COLUMNS,
    PROB_LABEL,
    REPEAT_COLUMNS,
    SPEED_COLUMNS,
    SUMMARY_COLUMNS,
    agreement_rows,
    case_fields,
    failure_json,
    power_text,
    prob_text,
    repeat_case_json,
    repeat_row,
    speed_row,
    speed_svg_lines,
    summary_json,
    summary_row,
    table_row,
)
from eunomia.kinds.tasks._warnings import run_warnings
from eunomia.pricing import PriceTable
from eunomia.stats import ci_text
from eunomia.store import CaseRow, RunInfo, RunStore, SuiteInfo
from eunomia.tasks import (
    CaseMeta,
    CaseRecord,
    CaseResult,
    Entry,
    StoredCases,
    TaskSuite,
    iter_entries,
    read_suite,
)
from eunomia.tasks._snapshot import EntryMetas


def task_records(store: RunStore, run: RunInfo, target: str | None = None
                 ) -> tuple[list[TaskSuite], list[CaseRecord], PriceTable]:
    """The run's suites, its case records (of one candidate, with ``target``) and prices.

    Every record at once, in memory: for small runs and tests (exports stream instead).
    """
    suites: list[TaskSuite] = []
    records: list[CaseRecord] = []
    prices = PriceTable()
    for info in store.suites(run):
        suite = read_suite(store, info)
        prices = PriceTable.from_json(store.get_json(info.prices))
        suites.append(suite)
        by_name = {c.name: c for c in suite.cases}
        for row in store.iter_cases(run, info.name, target):
            result = None
            if row.response:
                result = CaseResult.model_validate(store.get_json(row.response))
            records.append(CaseRecord(
                suite=info.name, case_name=row.case_name, repeat=row.repeat,
                status=row.status,  # type: ignore[arg-type]
                case=by_name.get(row.case_name), result=result, error=row.error,
                cost=row.cost, cached=row.cached, attempts=row.attempts,
            ))
    return suites, records, prices


def export_tasks(store: RunStore, run: RunInfo,
                 results_dir: Path) -> list[Exported[TasksSummary]]:
    """Write every result file of a task run from the store; one summary per candidate.

    With several candidate models (a matrix run) each gets the files below in its own
    folder, ``results/<run>/<model>/``, like a scenario run's ``<run>/<target>/<scenario>``.
    """
    base = results_dir / run.name
    targets = run.targets or ["?"]
    if len(targets) == 1:
        return [_export_candidate(store, run, targets[0], None, base)]
    return [_export_candidate(store, run, t, t, base / file_safe(t)) for t in targets]


def _export_candidate(store: RunStore, run: RunInfo, candidate: str, target: str | None,
                      base: Path) -> Exported[TasksSummary]:
    """The files of one candidate's cases (every case of the run when ``target`` is None),
    written while the store is read: see the module's docstring."""
    infos = store.suites(run)
    builder = _builder(store, run, candidate, target, infos)
    tables = base / "tables"
    yaml_files: list[Path] = []
    with Output(tables / "cases.csv") as cases, \
            Output(base / "failures.json") as failures_out:
        sink = _Tables(store, run, builder, csv.writer(cases), JsonList(failures_out))
        for info in infos:
            suite = read_suite(store, info)
            targets = [target] if target is not None else store.targets_of(run, info.name)
            yaml_files.append(sink.suite(suite, targets, target,
                                         base / "tasks" / f"{suite.name}.yaml"))
        sink.failures.close()
    summary = builder.finish()
    summary.floor = floor = read_floor(store, run, candidate, target)
    floor_notes, floor_warnings = floor_messages(floor)
    baseline = baseline_spec(run, candidate)
    check = stored_check(run)
    check_notes, check_warnings = check_messages(check)
    warnings = floor_warnings + check_warnings + run_warnings(summary, baseline)
    out = Exported(candidate, base, summary, failed=summary.failed + summary.invalid,
                   warnings=warnings, notes=floor_notes + check_notes)
    if baseline is not None:
        out.notes.append(baseline_note(candidate, baseline))
    weighted = prob_text(summary)
    if weighted is not None:
        out.figures.append((PROB_LABEL, weighted))
    if summary.overall is not None:  # the mean's interval (or too few) and the MDE
        out.figures.append((f"Mean {summary.score_name} (0-5) [95% CI]",
                            ci_text(summary.overall.mean)))
        out.figures.append(("Could detect (a future comparison of equal size)",
                            power_text(summary)))
    human = summary.agreement.human if summary.agreement else None
    if human is not None:  # what people's scores are set beside: the judge's, or the checks'
        out.figures.append((f"{summary.scorer} vs human scores", human.text()))
    out.properties += floor_properties(floor)
    for f in floor.lines if floor is not None else ():
        if f.suite is None:
            out.figures.append((f"Beside {WORDS[f.control]}", f.line()))
    out.files += yaml_files
    out.files.append(tables / "cases.csv")
    out.files.append(write_csv_dicts(tables / "summary.csv", SUMMARY_COLUMNS,
                          [summary_row(g) for g in
                           ([summary.overall] if summary.overall else []) + summary.groups]))
    out.files.append(write_csv_dicts(tables / "judge_agreement.csv", ("metric", "value"),
                          agreement_rows(summary)))
    if check is not None:
        out.files.append(write_csv_dicts(tables / "judge_check_verdicts.csv", VERDICT_COLUMNS,
                                         verdict_rows(check)))
    if floor is not None:
        out.files.append(write_csv_dicts(tables / "floor.csv", FLOOR_COLUMNS,
                                         floor_rows(floor)))
    rc = summary.repeat_consistency
    if rc is not None:
        with CsvOutput(tables / "repeat_consistency.csv", REPEAT_COLUMNS) as table:
            for c in rc.cases:
                table.row(repeat_row(c))
        out.files.append(table.path)
    if summary.speed:
        with CsvOutput(tables / "inference_speed.csv", SPEED_COLUMNS) as table:
            for r in summary.speed:
                table.row(speed_row(r))
        out.files.append(table.path)
        with Output(base / "inference_speed.svg") as svg:
            for line in speed_svg_lines(summary):
                svg.write(line + "\n")
        out.files.append(svg.path)
    out.files.append(write_json_streaming(
        base / "tasks_results.json", {**summary_json(summary, run, streamed=True,
                                                     warnings=warnings),
                                      "judge_check": check_json(check),
                                      "controls": floor_json(floor)},
        (repeat_case_json(c) for c in rc.cases) if rc is not None else None))
    out.files.append(base / "failures.json")
    return out


_Key = tuple[str, str, int]
"""A stored row's place in the store's order within its suite: target, case, repeat."""


class _Rows(Protocol):
    """A CSV writer (``csv.writer``)."""

    def writerow(self, row: Iterable[Any], /) -> Any: ...


class _Tables:
    """``cases.csv``, ``failures.json`` and the summary of an export, fed in the store's order
    from the records met in each suite's file order (each record read once)."""

    def __init__(self, store: RunStore, run: RunInfo, builder: SummaryBuilder,
                 cases: _Rows, failures: JsonList) -> None:
        self.store = store
        self.run = run
        self.builder = builder
        self.cases = cases
        """``cases.csv``: what ``CsvOutput`` writes, values in column order (no dict)."""
        cases.writerow(CASE_COLUMNS)
        self.failures = failures
        self.entry_metas = EntryMetas()

    def suite(self, suite: TaskSuite, targets: Sequence[str], target: str | None, path: Path
              ) -> Path:
        """Write ``path`` (the suite's YAML) and feed the suite's records in the store's order
        (as the store gives its rows when some were not met: those no case names)."""
        store, run, name = self.store, self.run, suite.name
        metas: dict[str, CaseMeta] = {}  # the suite's cases by name (for the tables)
        again: set[str] = set()  # names met twice in the suite (the tables take the last)
        with Parked[_Key]() as parked:
            park = partial(_park, self.builder, parked, {t: t for t in targets})
            write_suite_yaml(store, run, suite, targets, path, metas, self.entry_metas, park,
                             again)
            # the rows of its unusable cases (not in its chunks)
            unusable = [n for n in dict.fromkeys(n for n, _ in suite.invalid) if n not in metas]
            for t in targets if unusable else ():
                for row in store.cases_named(run, name, t, unusable):
                    record = stored_record(store, name, row, None)
                    park(row.case_name, row, record, case_figures(record))
            if not again and len(parked) == store.count_cases(run, name, target):
                # every stored row was met: the store's order is that of the keys
                for key, (line, f) in parked.in_order():
                    self._feed(name, key[1], metas.get(key[1]), line, CaseFigures._make(f))
                return path
            # rows no case of the suite names or a name met twice: the store's rows give
            # the order
            for row in store.iter_cases(run, name, target):
                meta = metas.get(row.case_name)
                found = parked.take((row.target, row.case_name, row.repeat))
                if found is None:
                    record = stored_record(store, name, row, meta)
                    f = case_figures(record)
                    line = _digest(self.builder, record, f)
                else:
                    line, f = found[0], CaseFigures._make(found[1])
                    if row.case_name in again:  # its row as the case's last entry gives it
                        line = table_row(stored_record(store, name, row, meta), f)
                self._feed(name, row.case_name, meta, line, f)
        return path

    def _feed(self, suite: str, name: str, meta: CaseMeta | None, line: Sequence[Any],
              f: CaseFigures) -> None:
        self.builder.add_figures(suite, name, meta, f)
        self.cases.writerow(line)
        if f.reason is not None:
            self.failures.add(failure_json((suite, name, f.repeat, f.status, f.reason)))


def baseline_spec(run: RunInfo, candidate: str) -> str | None:
    """The spec of the trivial baseline ``candidate`` is in ``run`` (None: a model)."""
    found = (run.settings.get("baselines") or {}).get(candidate)
    return str(found) if found is not None else None


def _builder(store: RunStore, run: RunInfo, candidate: str, target: str | None,
             infos: Sequence[SuiteInfo]) -> SummaryBuilder:
    """The summary of the run's stored cases (of ``target``), to be fed in store order."""
    prices = PriceTable.from_json(store.get_json(infos[-1].prices)) if infos else PriceTable()
    settings = run.settings
    top = store.max_repeat(run, target)
    return SummaryBuilder(
        candidate=candidate, judge=str(settings.get("judge", "?")),
        weights=settings.get("weights") or {},
        judge_repeats=int(settings.get("judge_repeats", 1)), prices=prices,
        repeats=1 + (top or 0))


def stored_summary(store: RunStore, run: RunInfo, candidate: str,
                   target: str | None = None) -> TasksSummary:
    """One candidate's summary (every case of the run when ``target`` is None), read from
    the store a case at a time like an export, without writing any file, in bounded
    memory."""
    infos = store.suites(run)
    builder = _builder(store, run, candidate, target, infos)
    entry_metas = EntryMetas()
    for info in infos:
        metas = {entry[0]: entry_metas.of(entry) for entry in iter_entries(read_suite(store, info))}
        for row in store.iter_cases(run, info.name, target):
            builder.add(stored_record(store, info.name, row, metas.get(row.case_name)))
    summary = builder.finish()
    summary.floor = read_floor(store, run, candidate, target)
    return summary


def _park(builder: SummaryBuilder, parked: Parked[_Key], targets: dict[str, str],
          name: str, row: CaseRow, record: CaseRecord, f: CaseFigures) -> None:
    """Keep what the tables and the summary need of ``record`` until the store's order asks
    for it, under its key made of strings already held (``name`` as the suite gives it, the
    target of ``targets``): a parked row costs only its own tuple."""
    key = (targets.get(row.target, row.target), name, row.repeat)
    parked.put(key, (_digest(builder, record, f), tuple(f)))


def _digest(builder: SummaryBuilder, r: CaseRecord, f: CaseFigures) -> tuple[Any, ...]:
    """The row of ``r`` in ``cases.csv`` (``f``: its figures); its answer is counted at once
    (in any order: :meth:`SummaryBuilder.answer`)."""
    if r.result is not None and r.status not in ("failed", "invalid"):
        builder.answer(r.result.response)
    return table_row(r, f)


def stored_record(store: RunStore, suite: str, row: CaseRow, meta: CaseMeta | None,
                  blobs: Mapping[str, bytes] | None = None) -> CaseRecord:
    """A stored case with its result (read from its response blob, in ``blobs`` when
    given)."""
    result = None
    if row.response:
        data = blobs[row.response] if blobs is not None else store.get_blob(row.response)
        result = CaseResult.model_validate_json(data)
    return CaseRecord(
        suite=suite, case_name=row.case_name, repeat=row.repeat,
        status=row.status,  # type: ignore[arg-type]
        case=None, result=result, error=row.error, cost=row.cost, cached=row.cached,
        attempts=row.attempts, meta=meta)


def _chunks(suite: TaskSuite) -> Iterator[list[Entry]]:
    """The suite's cases as entries, a stored chunk (or as many cases) at a time."""
    if isinstance(suite.source, StoredCases):
        for digest in suite.source.chunks:
            part = StoredCases(suite.source.store, (digest,))
            yield list(part.entries())
        return
    chunk: list[Entry] = []
    for case in suite.cases:
        chunk.append((case.name, case.kind, case.index, case.line, case.raw_json))
        if len(chunk) >= defaults.TASK_SNAPSHOT_CHUNK_CASES:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def write_suite_yaml(store: RunStore, run: RunInfo, suite: TaskSuite, targets: Sequence[str],
                     path: Path, metas: dict[str, CaseMeta] | None = None,
                     entry_metas: EntryMetas | None = None,
                     each: Callable[[str, CaseRow, CaseRecord, CaseFigures], None] | None = None,
                     again: set[str] | None = None) -> Path:
    """``tasks/<suite>.yaml``: the suite in file order, a chunk of cases at a time with the
    stored records of those cases (of ``targets``); the same bytes as :func:`suite_yaml`.
    Fills ``metas`` (case name -> what the tables need of it) and gives ``each`` every
    stored row of those cases with its case's name and its record (the result read once);
    a name met again (``again``) gives its rows to the file only."""
    if entry_metas is None:
        entry_metas = EntryMetas()
    with Output(path) as out:
        writer = SuiteYaml(out, suite.shape, suite.top_level)
        for chunk in _chunks(suite):
            names = [e[0] for e in chunk]
            rows: dict[str, list[CaseRow]] = defaultdict(list)
            for t in targets:
                for row in store.cases_named(run, suite.name, t, names):
                    rows[row.case_name].append(row)
            blobs = store.get_blobs(r.response for found in rows.values() for r in found
                                    if r.response)
            for entry in chunk:
                name = entry[0]
                raw = json.loads(entry[4])
                meta = None
                given = each
                if metas is not None:
                    if name in metas:  # met again: its rows went to each already
                        given = None
                        if again is not None:
                            again.add(name)
                    meta = metas[name] = entry_metas.of(entry, raw)  # before raw grows
                mine: list[tuple[CaseRecord, CaseFigures]] = []
                for row in rows.get(name, ()):
                    record = stored_record(store, suite.name, row, meta, blobs)
                    f = case_figures(record)
                    if given is not None:
                        given(name, row, record, f)
                    mine.append((record, f))
                if len(mine) > 1:
                    mine.sort(key=_repeat)
                writer.add(case_fields(raw, [m[0] for m in mine], [m[1] for m in mine]))
        writer.close()
    return path


def _repeat(mine: tuple[CaseRecord, CaseFigures]) -> int:
    return mine[0].repeat
