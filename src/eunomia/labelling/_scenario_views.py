"""The pages of ``eunomia label SCENARIO``: the index of the cases, and a page per case with
the submission drawn beside the example solution and a form with the criteria.

Labels are blind: a case page shows the other labellers' choices (and the manifest's) only
once the labeller has labelled the case completely, or when a save was refused because
someone saved since.
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any

from aiohttp import web
from multidict import MultiDictProxy

from eunomia.labelling._book import Book, CaseState, Snapshot
from eunomia.labelling._case_page import posted_case, refused, show_case
from eunomia.labelling._http import (
    LABELLER_KEY,
    RESTARTED,
    TOKEN_KEY,
    after_save,
    error_page,
    labeller_of,
    page,
)
from eunomia.labelling._pages import NOTE_MAX, case_href, drawing, fmt_kappa, render
from eunomia.labelling._store import save_case_label
from eunomia.scenarios import Instruction
from eunomia.scenarios._labels import CANNOT_TELL

BOOK_KEY = web.AppKey("book", Book)
_CASE_PAGE = "scenario_case.html.j2"


def _credits(value: float) -> str:
    return f"{value:g} point" + ("" if value == 1 else "s")


def _description(instruction: Instruction, title: str) -> str:
    """The instruction's description, unless it only restates the criterion's title (which
    the legend shows) or its grading scale (which the choice shows)."""
    text = instruction.instruction_description.strip()
    plain = text.rstrip(".").lower()
    heading = title.strip().rstrip(".").lower()
    if plain == instruction.grading_scale.strip().lower() or (heading and heading in plain):
        return ""
    return text


def _shown(book: Book, choice: str | None) -> str:
    if choice is None:
        return "–"
    if choice == CANNOT_TELL:
        return "cannot tell"
    ins: Instruction | None = book.scenario.by_textual_id.get(choice)
    return f"{ins.grading_scale or ins.textual_id}" if ins is not None else f"{choice} (unknown)"


def _next_mine(book: Book, snap: Snapshot, labeller: str, after: int = -1) -> str | None:
    """The first case after ``after`` (then from the start) ``labeller`` has not labelled."""
    todo = [c for c in snap.cases if labeller not in c.labellers]
    later = [c for c in todo if c.index > after]
    chosen = (later or todo)[:1]
    return case_href(chosen[0].name) if chosen else None


def _progress(book: Book, snap: Snapshot, labeller: str) -> list[str]:
    total = len(snap.cases)
    per = Counter(n for c in snap.cases for n in c.labellers)
    lines = []
    if labeller:
        lines.append(f"You ({labeller}) labelled {per.get(labeller, 0)} of {total}.")
    if per:
        lines.append("Complete labels per labeller: "
                     + ", ".join(f"{n} {k}" for n, k in sorted(per.items())) + ".")
    drafts = sum(1 for c in snap.cases if c.drafts)
    if drafts:
        lines.append(f"{drafts} case(s) have a draft (a criterion left open): a draft does not "
                     "count until every criterion has a choice.")
    disagreeing = sum(c.disagreeing for c in snap.cases)
    if disagreeing:
        lines.append(f"Labellers disagree on {disagreeing} case(s): they come first below.")
    lines.append(f"Expected instructions come from {book.policy_text(snap.labels)} "
                 f"(key 'expected' of labels.yml): {snap.resolved} of {total} cases resolved.")
    if book.scenario.labelled:
        lines.append("Cases without a resolved label keep what the manifest expects.")
    else:
        lines.append("Runs measure correctness on the resolved cases and leave the others out "
                     "(the manifest expects nothing).")
    for bad in book.scenario.invalid_cases:
        lines.append(f"Not shown: {bad.name} ({bad.reason}).")
    return lines


def _row(book: Book, c: CaseState) -> dict[str, Any]:
    numbers = {cr.textual_id: str(k) for k, cr in enumerate(book.scenario.criteria, start=1)}
    used = ("yes" if c.resolution.expected is not None
            else c.resolution.why or ("the manifest's" if c.manifest is not None else "–"))
    return {
        "number": c.index + 1, "name": c.name, "href": case_href(c.name), "state": c.state,
        "cells": [", ".join(c.labellers) or "–", ", ".join(c.drafts) or "–",
                  ", ".join(numbers[k] for k in c.resolution.disagree) or "–",
                  ", ".join(c.cannot_tell()) or "–", used],
    }


async def index(request: web.Request) -> web.Response:
    book = request.app[BOOK_KEY]
    labeller = labeller_of(request)
    snap = book.read()
    labellers = [n for n in snap.labellers()]
    agreement = []
    for a in book.agreement(snap):
        r = a.agreement
        interval = r.interval if r is not None else None
        agreement.append({
            "title": f"{book.scenario.criteria.index(a.criterion) + 1}. {a.criterion.title}",
            "n": r.items if r is not None else 0,
            "kappa": fmt_kappa(r.kappa) if r is not None else "–",
            "interval": (f"[{interval.low:.2f}, {interval.high:.2f}] (n = {interval.n})"
                         if interval is not None else "–"),
            "percent": f"{100 * r.percent:.0f}%" if r is not None and r.percent is not None
            else "–",
        })
    return page(render(
        "scenario_index.html.j2", name=book.scenario.name,
        subtitle=f"{book.scenario.exercise.title} · {len(book.scenario.criteria)} criteria",
        labeller=labeller, can_change=not request.app[LABELLER_KEY],
        next_mine=_next_mine(book, snap, labeller) if labeller else None,
        banners=[], done=snap.labelled, total=len(snap.cases), unit="cases", unit_one="case",
        progress_lines=_progress(book, snap, labeller),
        order_note="Cases the labellers disagree on first, then in the scenario's order.",
        headers=[("#", True), ("Case", False), ("State", False), ("Labelled by", False),
                 ("Drafts", False), ("Disagree on criteria", False), ("Cannot tell", False),
                 ("Counts as expected", False)],
        rows=[_row(book, c) for c in snap.ordered()], path=str(book.path),
        labeller_count=len(labellers), labellers=labellers, agreement=agreement))


def _case_context(request: web.Request, book: Book, snap: Snapshot, state: CaseState,
                  labeller: str, *, chosen: dict[str, str] | None = None,
                  note: str | None = None, revision: int | None = None,
                  reveal: bool = False) -> dict[str, Any]:
    mine = state.labels.get(labeller)
    chosen = chosen if chosen is not None else (dict(mine.choices) if mine else {})
    reveal = reveal or labeller in state.labellers
    criteria = []
    for c in book.scenario.criteria:
        others: list[tuple[str, str, bool]] = []
        if reveal:
            for who, lab in state.labels.items():
                if who != labeller:
                    theirs = lab.choices.get(c.textual_id)
                    others.append((who, _shown(book, theirs),
                                   theirs is not None and theirs != chosen.get(c.textual_id)))
            if state.manifest is not None:
                expects = next((i for i in state.manifest
                                if book.scenario.instructions[i].criterion_id == c.id), None)
                name = book.scenario.instructions[expects].textual_id if expects else None
                others.append(("the manifest", _shown(book, name),
                               name is not None and name != chosen.get(c.textual_id)))
        criteria.append({
            "id": c.textual_id, "title": c.title or c.textual_id,
            "chosen": chosen.get(c.textual_id), "others": others,
            "instructions": [{"id": i.textual_id, "scale": i.grading_scale or i.textual_id,
                              "credits": _credits(i.credits),
                              "description": _description(i, c.title)} for i in c.instructions],
        })
    table = []
    if reveal:
        for who, lab in state.labels.items():
            table.append({"who": who, "note": lab.note or "–", "at": lab.at[:19].replace("T", " "),
                          "cells": [(_shown(book, lab.choices.get(c.textual_id)),
                                     c.textual_id in state.resolution.disagree)
                                    for c in book.scenario.criteria]})
    earlier = sum(1 for h in snap.labels.history if h.case == state.name)
    before, after = book.neighbours(state.name)
    stacked = request.query.get("layout") == "stacked"
    ex = book.scenario.exercise
    return {
        "name": state.name, "suite": book.scenario.name, "state": state.state,
        "number": state.index + 1, "total": len(snap.cases), "done": snap.labelled,
        "unit_one": "case", "labeller": labeller,
        "can_change": not request.app[LABELLER_KEY],
        "previous": case_href(before) if before else None,
        "next": case_href(after) if after else None, "here": case_href(state.name),
        "exercise_title": ex.title, "problem_statement": ex.problem_statement,
        "grading_instructions": ex.grading_instructions, "stacked": stacked,
        "submission": drawing(book.cases[state.index].submission, "submission"),
        "example": drawing(ex.example_solution, "example solution"),
        "token": request.app[TOKEN_KEY], "criteria": criteria, "note_max": NOTE_MAX,
        "revision": revision if revision is not None else (mine.revision if mine else 0),
        "note": note if note is not None else (mine.note if mine else ""),
        "table": table,
        "history": f"{earlier} earlier version(s) of labels of this case are kept in "
                   "labels.yml (history)." if earlier else "",
        "banners": [],
    }


def _saved(snap: Snapshot, i: int, labeller: str) -> str | None:
    done = snap.cases[i]
    mine = done.labels.get(labeller)
    if mine is None:
        return None
    what = "complete" if labeller in done.labellers else "a draft: a criterion is still open"
    return f"Saved your label of {done.name} (revision {mine.revision}, {what})."


async def case_page(request: web.Request) -> web.Response:
    book = request.app[BOOK_KEY]
    return show_case(request, book, _CASE_PAGE,
                     f"No case named {request.match_info['name']!r} in this scenario.",
                     partial(_case_context, request, book), _saved)


def _form_choices(book: Book, form: MultiDictProxy[Any]) -> dict[str, str] | str:
    """The choices of the form, or what is wrong with them."""
    out: dict[str, str] = {}
    for c in book.scenario.criteria:
        value = form.get(f"choice:{c.textual_id}")
        if value is None:
            continue
        if not isinstance(value, str) or (
                value != CANNOT_TELL and value not in {i.textual_id for i in c.instructions}):
            return f"{value!r} is not an instruction of criterion {c.textual_id!r}"
        out[c.textual_id] = value
    return out


async def case_save(request: web.Request) -> web.Response:
    book = request.app[BOOK_KEY]
    found = await posted_case(request, book, f"No case named {request.match_info['name']!r}.")
    if isinstance(found, web.Response):
        return found
    posted, state = found
    choices = _form_choices(book, posted.form)
    if isinstance(choices, str):
        return error_page(400, choices)
    if posted.restarted:
        return _refused(request, book, posted.labeller, choices, posted.note, posted.revision,
                        RESTARTED)
    saved = save_case_label(book.path, state.name, posted.labeller, choices, posted.note,
                            posted.revision)
    if saved.saved:
        return after_save(posted, state.name, book.neighbours(state.name)[1])
    newer, who = saved.label, posted.labeller
    return _refused(request, book, who, choices, posted.note,
                    newer.revision if newer is not None else 0,
                    f"Not saved: {who}'s label of this case was saved again (revision "
                    f"{newer.revision}, {newer.at[:19].replace('T', ' ')} UTC) after this page "
                    "was opened, in another tab or window. The label saved now is in the "
                    "table below; your choices are still in the form: save again to replace "
                    "it with them." if newer is not None else
                    f"Not saved: {who}'s label of this case was removed from labels.yml "
                    "after this page was opened. Your choices are still in the form: save "
                    "again to keep them.")


def _refused(request: web.Request, book: Book, labeller: str, choices: dict[str, str],
             note: str, revision: int, message: str) -> web.Response:
    """The case page again, with the refused form's choices and why it was not saved."""
    return refused(request, book, _CASE_PAGE,
                   partial(_case_context, request, book, chosen=choices, note=note,
                           revision=revision, reveal=True), labeller, message)
