"""The trivial candidates of task suites: what a system that knows nothing answers.

``baseline:reference``  each case is answered with another case's expected response: the
                        previous case of its suite that has one (a case before the first
                        such case takes the first's; the first takes the second's) —
                        fluent, on the suite's subject, wrong here. The same answer as
                        judge-check's ``other``, fixed by the suite alone, whatever cases
                        are selected (so its judge calls are cached from run to run).
``baseline:empty``      ``""`` to every case, and to every turn of a conversation.
``baseline:content-free`` a fluent answer that says nothing checkable (restates the request,
                        gives generic assurances: :func:`eunomia.tasks.content_free`, a
                        template chosen per case by a hash of its id), to every case and every
                        turn. ``eval`` scores it beside every candidate as its content-free
                        control (:mod:`eunomia.kinds.tasks._controls`).

They make no model call and cost nothing; the judge scores their answers like any other,
so a candidate's score can be read against what "knowing nothing" scores.

Not applicable (the case is recorded as *unscored* with the reason, never a score of 0):
``baseline:reference`` on a conversation (its turns are judged against evaluation points,
there is no other case's answer to give turn by turn) and on a suite with no other case that
has an expected response. Inference-speed cases are answered and judged, but their speed
figures are left out: nothing was generated, so there is no latency to measure.

A model provider cannot do this (it sees one request, not the suite): the spec
``baseline:<name>`` resolves to a model spec of kind ``baseline`` (``eunomia.models``), and
the run answers for it here, case by case, from the suite it is reading anyway.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from eunomia.errors import EunomiaError
from eunomia.judge import Verdict
from eunomia.kinds import Selection
from eunomia.kinds._task_suites._controls import with_others
from eunomia.models import ChatResult, ModelSpec
from eunomia.tasks import CallRecord, Entry, TaskSuite, content_free, loaded_case

REFERENCE = "reference"
EMPTY = "empty"
CONTENT_FREE = "content-free"
BASELINES = (REFERENCE, EMPTY, CONTENT_FREE)
NOT_APPLICABLE = "not applicable"
"""How the reason of a case a baseline cannot answer starts."""


def baseline_of(spec: ModelSpec) -> str | None:
    """The baseline a candidate spec names (``reference``, ``empty``, ``content-free``), or
    None for a model."""
    if spec.backend != "baseline":
        return None
    if spec.model not in BASELINES:
        raise EunomiaError(f"unknown baseline {spec.spec!r}: choose "
                           + " or ".join(f"baseline:{b}" for b in BASELINES))
    return spec.model


@dataclass(frozen=True, slots=True)
class BaselineAnswer:
    """What a baseline answers to one case: ``text`` (to every turn), or None with the
    reason when it cannot answer the case."""

    spec: str
    text: str | None
    reason: str = ""

    def result(self) -> tuple[ChatResult, CallRecord]:
        """The answer as a model's, and its call record: no request, no tokens, no cost."""
        return (ChatResult(text=self.text or "", model=self.spec),
                CallRecord(role="candidate", model=self.spec, attempts=0))

    def not_applicable(self) -> Verdict:
        """The verdict of a case it cannot answer: unscored, with the reason (never 0)."""
        return Verdict(score=None, status="unscored", feedback=self.reason, raw=self.reason,
                       attempts=0)


def answer(spec: ModelSpec, entry: Entry, conversation: bool, own: str | None,
           other: str | None) -> BaselineAnswer:
    """What the baseline ``spec`` answers to the case ``entry`` (its reference ``own``)."""
    kind = baseline_of(spec)
    if kind == EMPTY:
        return BaselineAnswer(spec.spec, "")
    if kind == CONTENT_FREE:
        return BaselineAnswer(spec.spec, content_free(loaded_case(entry), own).text)
    if conversation:
        return BaselineAnswer(spec.spec, None, (
            f"{NOT_APPLICABLE}: {spec.spec} answers with another case's expected response; a "
            "conversation is judged turn by turn against its evaluation points, so there is "
            "none to give"))
    if other is None:
        return BaselineAnswer(spec.spec, None, (
            f"{NOT_APPLICABLE}: {spec.spec} answers with another case's expected response, "
            "and no other case of this suite has one"))
    return BaselineAnswer(spec.spec, other)


def selected_answers(suite: TaskSuite, selection: Selection, spec: ModelSpec
                     ) -> Iterator[tuple[Entry, BaselineAnswer]]:
    """The selected cases of ``suite`` (as ``selected_entries`` selects them) with the
    baseline's answer to each."""
    taken = 0
    for entry, conversation, own, other in with_others(suite):
        if selection.max_cases is not None and taken >= selection.max_cases:
            return
        if selection.matches(suite.name, entry[0], entry[1]):
            taken += 1
            yield entry, answer(spec, entry, conversation, own, other)


def baseline_note(label: str, spec: str) -> str:
    """What a reader of a baseline's results should know."""
    what = ("answers each case with another case's expected response" if spec.endswith(
        REFERENCE) else "answers each case with a fluent sentence that says nothing "
        "checkable" if spec.endswith(CONTENT_FREE) else 'answers "" to every case')
    return (f"{label} is a trivial baseline ({spec}): it {what}, without asking any model; "
            "its score is what an answer that knows nothing scores with this judge. Cases it "
            f"cannot answer are unscored ({NOT_APPLICABLE}); it has no speed figures.")
