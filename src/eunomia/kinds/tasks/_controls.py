"""An eval's controls: answers with no content, scored by the eval's judge beside every
candidate, so that a candidate's score is read against the judge's floor, not against 0.

``content-free``     ``baseline:content-free``: a fluent answer that says nothing checkable
                     (:func:`eunomia.tasks.content_free`); scored by default
``other-reference``  ``baseline:reference``: another case's reference answer (asked for with
                     ``--controls content-free,other-reference``)

The controls are scored once per judge and suite, whatever the candidates: as their own
stored run, ``<eval run>-controls`` (kind ``tasks``, the control baselines as its
candidates, each on a seeded sample of :data:`~eunomia.defaults.CONTROL_SAMPLE` selected
cases per suite, every case of a smaller suite: :func:`eunomia.tasks.control_sample`),
cached like every judge call, its cost apart from the candidates'. The eval run keeps a link
to it in its settings (:data:`SETTING`: :class:`StoredControls`), and every output of the
eval reads the comparison from the store: per candidate and control, over all suites and per
suite, the candidate's mean beside the control's on the cases both have, the paired
difference with its 95% interval, and "no better than a content-free answer" when that
interval reaches 0 (:func:`eunomia.judge.compare_to_floor`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.judge import (
    CONTENT_FREE,
    FloorComparison,
    FloorVerdict,
    compare_to_floor,
    kind_figures,
    lenient_verdict,
)
from eunomia.kinds import Selection
from eunomia.kinds._task_suites import Candidate, selected_entries
from eunomia.models import ModelSpec, resolve_spec
from eunomia.store import RunInfo, RunStore
from eunomia.tasks import TaskSuite, control_sample

SETTING = "controls"
"""The key of the eval run's settings that holds :class:`StoredControls`."""
SUFFIX = "-controls"
"""The controls of the eval run ``R`` are the run ``R-controls``."""
NONE = "none"
CONTROLS: dict[str, str] = {"content-free": "baseline:content-free",
                            "other-reference": "baseline:reference"}
"""Each control (``--controls``) and the baseline that answers it (its target)."""
DEFAULT_CONTROLS = ("content-free",)
CONTROLS_SETTING, CONTROLS_SUFFIX = SETTING, SUFFIX
WORDS: dict[str, str] = {"content-free": "a content-free answer",
                         "other-reference": "another case's reference"}
CONTROL_WORDS = WORDS


def parse_controls(text: str | None) -> tuple[str, ...]:
    """``--controls``: ``none``, or control names separated by commas (default:
    content-free)."""
    if text is None:
        return DEFAULT_CONTROLS
    names = [p.strip().lower() for p in text.split(",") if p.strip()]
    if names == [NONE]:
        return ()
    unknown = [n for n in names if n not in CONTROLS]
    if unknown or not names:
        raise EunomiaError(f"--controls {text!r}: choose {NONE}, or one or more of "
                           f"{', '.join(CONTROLS)} separated by commas")
    return tuple(dict.fromkeys(names))


def parse_sample(text: str | None) -> int | None:
    """``--control-cases``: a number of cases per suite (at least 1), or ``all``."""
    if text is None:
        return defaults.CONTROL_SAMPLE
    if text.strip().lower() == "all":
        return None
    try:
        size = int(text)
    except ValueError:
        raise EunomiaError(f"--control-cases {text!r}: give a number of cases per suite "
                           "(at least 1) or 'all'") from None
    if size < 1:
        raise EunomiaError(f"--control-cases {size}: give at least 1 (or --controls none)")
    return size


class StoredControls(BaseModel):
    """The link from an eval run to its controls' run."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    run: str
    judge: str
    controls: list[str] = Field(min_length=1)
    sample: int | None
    """Cases per suite whose controls are scored (None: every selected case)."""
    answers: int = 0
    """Control answers the judge scored (each judge repeat counted once)."""
    cost: float | None = None
    """What the judge's calls on the controls cost (in no candidate's cost)."""
    failed: int = 0

    def to_settings(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def stored_controls(run: RunInfo) -> StoredControls | None:
    """The controls linked from an eval run (None: none were scored)."""
    raw = run.settings.get(SETTING)
    if not isinstance(raw, dict):
        return None
    try:
        return StoredControls.model_validate(raw)
    except ValidationError:
        return None


def control_candidates(suites: Sequence[TaskSuite], selection: Selection,
                       controls: Sequence[str], sample: int | None
                       ) -> tuple[list[Candidate], int]:
    """The candidates of the controls' run (each control's baseline, on the seeded sample of
    each suite's selected cases) and how many answers they give."""
    samples: dict[str, frozenset[str]] = {}
    for suite in suites:
        names = [e[0] for e in selected_entries(suite, selection)]
        chosen = control_sample(names, sample or max(len(names), 1)) if names else []
        samples[suite.name] = frozenset(names[i] for i in chosen)
    candidates = [Candidate(_spec(c), CONTROLS[c], samples) for c in controls]
    return candidates, len(controls) * sum(len(s) for s in samples.values())


def _spec(control: str) -> ModelSpec:
    return resolve_spec(CONTROLS[control])


@dataclass(frozen=True, slots=True)
class FloorLine:
    """A candidate beside one control, over all suites (``suite`` None) or one suite."""

    control: str
    suite: str | None
    comparison: FloorComparison

    @property
    def no_better(self) -> bool:
        return bool(self.comparison.no_better)

    def line(self) -> str:
        where = "" if self.suite is None else f" on {self.suite}"
        return self.comparison.text + where

    def short(self) -> str:
        """In a few words (the report's card): the verdict, the means, the difference."""
        c, d = self.comparison, self.comparison.delta
        if d is None or c.candidate_mean is None or c.control_mean is None:
            return f"too few cases ({c.cases})"
        said = "no better" if c.no_better else "above"
        return (f"{said}: {c.candidate_mean:.2f} vs {c.control_mean:.2f}, Δ "
                f"{d.mean_delta:+.2f} [{d.low:+.2f}, {d.high:+.2f}]")


@dataclass(frozen=True, slots=True)
class Floor:
    """What a candidate's summary holds of the controls: its comparisons and the judge's
    floor measured in the controls' run (lenient or not)."""

    link: StoredControls
    lines: list[FloorLine]
    verdict: FloorVerdict | None

    def overall(self, control: str = "content-free") -> FloorLine | None:
        return next((f for f in self.lines if f.suite is None and f.control == control),
                    None)

    def on_suite(self, suite: str) -> list[FloorLine]:
        """Each control's line on ``suite`` (the overall one when the run has one suite)."""
        own = [f for f in self.lines if f.suite == suite]
        return own or [f for f in self.lines if f.suite is None]


def case_means(store: RunStore, run: RunInfo, suite: str, target: str | None
               ) -> dict[str, float]:
    """Each scored case's mean score over its repeats (of ``target``; None: every row)."""
    found: dict[str, list[float]] = defaultdict(list)
    for row in store.iter_cases(run, suite, target):
        if row.status == "scored" and row.score is not None:
            found[row.case_name].append(row.score)
    return {k: sum(v) / len(v) for k, v in found.items()}


def read_floor(store: RunStore, run: RunInfo, candidate: str, target: str | None
               ) -> Floor | None:
    """``candidate`` (the rows of ``target``; None: every row of the run) beside each control
    of the run's controls' run, over all suites, then per suite (with several); None when
    the eval scored no control (or its run is gone)."""
    link = stored_controls(run)
    if link is None:
        return None
    controls_run = store.get_run(link.run)
    if controls_run is None:
        return Floor(link, [], None)
    suites = [i.name for i in store.suites(run)]
    lines: list[FloorLine] = []
    floor_scores: list[float] = []
    for control in link.controls:
        mine_all: dict[str, float] = {}
        theirs_all: dict[str, float] = {}
        per_suite: list[FloorLine] = []
        for suite in suites:
            mine = case_means(store, run, suite, target)
            theirs = case_means(store, controls_run, suite, CONTROLS[control])
            if control == "content-free":
                floor_scores += theirs.values()
            mine_all.update({f"{suite}\0{k}": v for k, v in mine.items()})
            theirs_all.update({f"{suite}\0{k}": v for k, v in theirs.items()})
            if len(suites) > 1:
                per_suite.append(FloorLine(control, suite, compare_to_floor(
                    mine, theirs, candidate_name=candidate, control_name=WORDS[control])))
        lines.append(FloorLine(control, None, compare_to_floor(
            mine_all, theirs_all, candidate_name=candidate, control_name=WORDS[control])))
        lines += per_suite
    verdict = None
    if "content-free" in link.controls:
        figures = kind_figures([{CONTENT_FREE: s} for s in floor_scores], [CONTENT_FREE])
        verdict = lenient_verdict(figures[CONTENT_FREE], "these suites")
    return Floor(link, lines, verdict)


def floor_messages(floor: Floor | None) -> tuple[list[str], list[str]]:
    """(notes, warnings): a candidate no better than a control is a warning (over all
    suites; else on each suite where it is), and so is a lenient judge; too few cases to
    compare, a judge that is not lenient are notes (a candidate above the controls is said
    by the summaries' figures and tables)."""
    if floor is None:
        return [], []
    notes: list[str] = []
    warnings: list[str] = []
    overall = {f.control: f.no_better for f in floor.lines if f.suite is None}
    for f in floor.lines:
        if f.no_better and (f.suite is None or not overall.get(f.control)):
            warnings.append(f.line())
        elif f.suite is None and f.comparison.no_better is None:  # too few cases
            notes.append(f.line())
    v = floor.verdict
    if v is not None:
        text = f"the judge's floor ({floor.link.judge}, controls run {floor.link.run}): " \
               f"{v.text}" + (f"; {v.evidence}" if v.evidence else "")
        (warnings if v.holds else notes).append(text)
    if floor.link.failed:
        warnings.append(f"{floor.link.failed} control answer(s) could not be judged (failed "
                        f"calls; see run {floor.link.run})")
    return notes, warnings


FLOOR_COLUMNS = ("candidate", "control", "suite", "cases", "candidate_mean", "control_mean",
                 "difference", "ci_low", "ci_high", "no_better", "verdict", "controls_run")


def _num(value: float | None) -> float | str:
    return "" if value is None else round(value, 4)


def floor_rows(floor: Floor) -> list[dict[str, Any]]:
    """``tables/floor.csv``: one row per control, over all suites and per suite."""
    out = []
    for f in floor.lines:
        c = f.comparison
        d = c.delta
        out.append({"candidate": c.candidate, "control": f.control,
                    "suite": f.suite if f.suite is not None else "(all suites)",
                    "cases": c.cases, "candidate_mean": _num(c.candidate_mean),
                    "control_mean": _num(c.control_mean),
                    "difference": _num(d.mean_delta if d else None),
                    "ci_low": _num(d.low if d else None), "ci_high": _num(d.high if d else None),
                    "no_better": "" if c.no_better is None else c.no_better,
                    "verdict": f.line(), "controls_run": floor.link.run})
    return out


def floor_json(floor: Floor | None) -> dict[str, Any] | None:
    """The controls in ``tasks_results.json``."""
    if floor is None:
        return None
    v = floor.verdict
    rows = floor_rows(floor)
    for r in rows:
        r["suite"] = None if r["suite"] == "(all suites)" else r["suite"]
        for k in ("candidate_mean", "control_mean", "difference", "ci_low", "ci_high",
                  "no_better"):
            r[k] = None if r[k] == "" else r[k]
    return {**floor.link.model_dump(mode="json"), "comparisons": rows,
            "floor": None if v is None else {"lenient": v.holds, "level": v.level,
                                             "text": v.text, "evidence": v.evidence}}


def floor_properties(floor: Floor | None) -> list[tuple[str | None, str, str]]:
    """JUnit properties (suite or None for every suite, name, value) of the comparisons:
    ``floor.<control>.<figure>`` of the test suite's own suite, and with several suites
    ``floor.<control>.all_suites.<figure>`` over all of them."""
    out: list[tuple[str | None, str, str]] = []
    lines = floor.lines if floor is not None else []
    several = any(f.suite is not None for f in lines)
    for f in lines:
        c = f.comparison
        key = f"floor.{f.control}" + (".all_suites" if several and f.suite is None else "")
        out += [(f.suite, f"{key}.cases", str(c.cases))]
        if c.control_mean is not None:
            out.append((f.suite, f"{key}.control_mean", f"{c.control_mean:.4g}"))
        if c.delta is not None:
            out += [(f.suite, f"{key}.difference", f"{c.delta.mean_delta:.4g}"),
                    (f.suite, f"{key}.ci_low", f"{c.delta.low:.4g}"),
                    (f.suite, f"{key}.ci_high", f"{c.delta.high:.4g}")]
        if c.no_better is not None:
            out.append((f.suite, f"{key}.no_better", str(c.no_better).lower()))
        out.append((f.suite, f"{key}.verdict", f.line()))
    return out
