"""The manifest's ``expected_credits`` and ``cases`` keys, checked and resolved: credit
expectations by numeric instruction id, tutor grades in points, recorded feedback items.

Every problem is a diagnostic with the manifest's file, line and key path; unknown keys are
warned about, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from eunomia import defaults
from eunomia.errors import Diagnostic, Severity
from eunomia.scenarios._grades import (
    CreditExpectation,
    RecordedFeedback,
    RecordedItem,
    TutorGrade,
)
from eunomia.scenarios._manifest import Manifest, ManifestFeedbackItem
from eunomia.scenarios._model import Instruction
from eunomia.yamlfile import YamlDocument, diag_at

Loc = tuple[int | str, ...]
Credits = tuple[tuple[int, CreditExpectation], ...]


@dataclass(frozen=True, slots=True)
class CaseData:
    """What the manifest says of one test case beside its diagram."""

    expected_credits: Credits = ()
    tutor: TutorGrade | None = None
    recorded: RecordedFeedback | None = None


class CaseDataReader:
    """Reads ``expected_credits`` and ``cases`` of a validated manifest."""

    def __init__(self, doc: YamlDocument, manifest: Manifest,
                 by_textual: Mapping[str, Instruction], diags: list[Diagnostic]) -> None:
        self.doc = doc
        self.m = manifest
        self.by_textual = by_textual
        self.diags = diags

    def _say(self, loc: Loc, message: str, severity: Severity = Severity.ERROR) -> None:
        self.diags.append(diag_at(self.doc, loc, message, severity))

    def _unknown_keys(self, loc: Loc, extra: Mapping[str, object] | None, what: str) -> None:
        for key in extra or {}:
            self._say((*loc, key), f"unknown key {key!r} in {what} is ignored",
                      Severity.WARNING)

    def _credits(self, loc: Loc, given: Mapping[str, CreditExpectation] | None) -> Credits:
        out: list[tuple[int, CreditExpectation]] = []
        for tid, expectation in (given or {}).items():
            ins = self.by_textual.get(tid)
            if ins is None:
                self._say((*loc, tid), f"unknown instruction id {tid!r}")
            else:
                out.append((ins.id, expectation))
        return tuple(out)

    def _items(self, loc: Loc, items: Sequence[ManifestFeedbackItem]) -> tuple[RecordedItem, ...]:
        out: list[RecordedItem] = []
        for k, item in enumerate(items):
            iloc = (*loc, k)
            self._unknown_keys(iloc, item.model_extra, "a feedback item")
            instruction: int | None = None
            if item.instruction is not None:
                ins = self.by_textual.get(item.instruction)
                if ins is None:
                    self._say((*iloc, "instruction"),
                              f"unknown instruction id {item.instruction!r}")
                else:
                    instruction = ins.id
            if not item.title.strip() and not item.description.strip():
                self._say(iloc, "a feedback item with neither title nor description",
                          Severity.WARNING)
            out.append(RecordedItem(item.title, item.description, item.credits, instruction,
                                    item.element, dict(item.meta)))
        return tuple(out)

    def _tutor(self, loc: Loc, name: str) -> TutorGrade | None:
        tutor = self.m.cases[name].tutor
        if tutor is None:
            return None
        self._unknown_keys(loc, tutor.model_extra, "a tutor grade")
        ex = self.m.exercise
        most = ex.max_points + ex.bonus_points
        points: float | None = None
        if tutor.points is not None and tutor.percent is not None:
            self._say(loc, "give the tutor's grade as points or as percent, not both")
        elif tutor.points is not None:
            points = tutor.points
            if points > most + defaults.SCORE_TOLERANCE:
                self._say((*loc, "points"), f"{points:g} points is more than the exercise's "
                          f"max_points + bonus_points ({most:g})")
        elif tutor.percent is not None:
            if ex.max_points <= 0:
                self._say((*loc, "percent"), "max_points is 0, so a percent of it is no "
                          "grade: give points")
            else:
                points = tutor.percent * ex.max_points / 100.0
                if points > most + defaults.SCORE_TOLERANCE:
                    self._say((*loc, "percent"),
                              f"{tutor.percent:g}% of max_points is {points:g} points, more "
                              f"than max_points + bonus_points ({most:g})")
        feedback = None if tutor.feedback is None else RecordedFeedback(
            tutor.source or "tutor", self._items((*loc, "feedback"), tutor.feedback))
        if points is None:
            if tutor.points is None and tutor.percent is None and feedback is not None:
                self._say(loc, "the tutor's feedback is kept, but no grade is given (points "
                          "or percent): this case has no tutor grade", Severity.WARNING)
            elif tutor.points is None and tutor.percent is None:
                self._say(loc, "a tutor entry needs points or percent (or feedback)")
            return None
        return TutorGrade(points, tutor.percent, feedback)

    def read(self, case_names: set[str],
             expected_of: Callable[[str], set[int]] | None) -> tuple[Credits, dict[str, CaseData]]:
        """The scenario-wide credit expectations, and each named case's data.
        ``expected_of(name)``: the instructions a case expects (None: unlabelled)."""
        common = self._credits(("expected_credits",), self.m.expected_credits)
        out: dict[str, CaseData] = {}
        for name, entry in self.m.cases.items():
            loc: Loc = ("cases", name)
            if not name.strip():
                self._say(loc, "an empty test case name")
                continue
            if name not in case_names:
                self._say(loc, f"test case {name!r} has no file "
                               f"{defaults.TEST_CASES_DIR}/{name}.json")
            self._unknown_keys(loc, entry.model_extra, "a test case entry")
            own = dict(common)
            own.update(self._credits((*loc, "expected_credits"), entry.expected_credits))
            recorded = None if entry.recorded is None else RecordedFeedback(
                entry.recorded.source,
                self._items((*loc, "recorded", "feedback"), entry.recorded.feedback))
            if entry.recorded is not None:
                self._unknown_keys((*loc, "recorded"), entry.recorded.model_extra,
                                   "recorded feedback")
            out[name] = CaseData(tuple(own.items()), self._tutor((*loc, "tutor"), name),
                                 recorded)
        if expected_of is not None:
            self._check_expected(common, out, case_names, expected_of)
        return common, out

    def _check_expected(self, common: Credits, cases: Mapping[str, CaseData],
                        case_names: set[str], expected_of: Callable[[str], set[int]]) -> None:
        """Warn about an expectation on credits of an instruction the case does not expect."""
        textual = {i.id: t for t, i in self.by_textual.items()}
        for name in sorted(case_names):
            data = cases.get(name)
            credits = data.expected_credits if data is not None else common
            expected = expected_of(name)
            for ins, _ in credits:
                if ins not in expected:
                    where: Loc = ("cases", name, "expected_credits", textual[ins]) \
                        if data is not None and (ins, _) not in common \
                        else ("expected_credits", textual[ins])
                    self._say(where, f"test case {name!r} does not expect instruction "
                                     f"{textual[ins]!r}, yet its credits are expected "
                                     "(the expectation fails unless it is returned)",
                              Severity.WARNING)
