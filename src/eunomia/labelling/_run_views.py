"""The pages of ``eunomia label RUN``: the index of a judged task run's answers, and a page per
answer with the task, the reference and the candidate's answer, and a 0-5 score to give.

Blind as the scenario pages: the judge's score and the other labellers' show only once the
labeller has scored the answer (or when a save was refused because someone saved since).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from aiohttp import web

from eunomia.judge import SCORES
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
from eunomia.labelling._pages import NOTE_MAX, case_href, render
from eunomia.labelling._runbook import AnswerState, RunBook, RunSnapshot
from eunomia.labelling._store import Rated, save_score
from eunomia.tasks._labels import MEAN

RUNBOOK_KEY = web.AppKey("runbook", RunBook)
_CASE_PAGE = "run_case.html.j2"


def _fmt(value: float | None) -> str:
    return "–" if value is None else f"{value:g}" if float(value).is_integer() else f"{value:.2f}"


def _row(a: AnswerState) -> dict[str, Any]:
    return {"number": a.answer.index + 1, "name": a.answer.key, "href": case_href(a.answer.key),
            "state": a.state,
            "cells": [", ".join(f"{n} {s.score}" for n, s in a.scores.items()) or "–",
                      ", ".join(a.elsewhere) or "–", _fmt(a.human)]}


def _next_mine(snap: RunSnapshot, labeller: str) -> str | None:
    todo = [a for a in snap.answers if labeller not in a.scores and a.answer.result is not None]
    return case_href(todo[0].answer.key) if todo else None


async def index(request: web.Request) -> web.Response:
    book = request.app[RUNBOOK_KEY]
    labeller = labeller_of(request)
    snap = book.read()
    total = len(snap.answers)
    lines = []
    if labeller:
        mine = sum(labeller in a.scores for a in snap.answers)
        lines.append(f"You ({labeller}) scored {mine} of {total}.")
    policies = {", ".join(lab.policy) for lab in snap.labels.values()}
    lines.append(f"A case's human_score (what eval compares with {book.scorer_score}) is "
                 + ("the mean of its labellers' scores" if policies == {MEAN}
                    else "the score of the first of: " + "; ".join(sorted(policies)))
                 + " (key human_score of labels.yml); eval reads it the next time it runs "
                   "these suites (with the cache on, the same candidate gives the same answers "
                   "at no cost).")
    failed = sum(a.answer.result is None for a in snap.answers)
    if failed:
        lines.append(f"{failed} case(s) have no answer (the candidate failed): nothing to score.")
    agreement = [{"who": g.who, "n": g.n,
                  "qwk": "–" if g.qwk is None else f"{g.qwk.estimate:.2f}",
                  "interval": "–" if g.qwk is None else
                  f"[{g.qwk.low:.2f}, {g.qwk.high:.2f}] (n = {g.qwk.n})",
                  "mad": _fmt(g.mad)} for g in book.agreement(snap)]
    alpha, units = book.human_alpha(snap)
    return page(render(
        "run_index.html.j2", name=f"run {book.run}",
        subtitle=f"candidate {book.target} · judge {book.judge or 'none'}",
        labeller=labeller, can_change=not request.app[LABELLER_KEY],
        next_mine=_next_mine(snap, labeller) if labeller else None, banners=[],
        done=snap.labelled, total=total, unit="answers", unit_one="answer", progress_lines=lines,
        order_note="Answers the labellers disagree on (by 2 or more) first, then in the run's "
                   "order.",
        headers=[("#", True), ("Suite/case", False), ("State", False), ("Scores", False),
                 ("Scored another answer", False), ("human_score", False)],
        rows=[_row(a) for a in snap.ordered()],
        path=", ".join(str(p) for p in book.paths), agreement=agreement, scorer=book.scorer,
        alpha=_fmt(alpha), alpha_units=units, labellers=snap.labellers()))


def _context(request: web.Request, book: RunBook, snap: RunSnapshot, state: AnswerState,
             labeller: str, *, score: int | None = None, note: str | None = None,
             revision: int | None = None, reveal: bool = False) -> dict[str, Any]:
    a = state.answer
    mine = state.scores.get(labeller)
    reveal = reveal or mine is not None
    task = a.task
    result = a.result
    turns = []
    if result is not None and result.turns:
        turns = [{"user": t.user, "reply": t.response, "point": t.eval_point or ""}
                 for t in result.turns]
    before, after = book.neighbours(a.key)
    others = [(n, s) for n, s in state.scores.items() if n != labeller] if reveal else []
    earlier = sum(1 for lab in snap.labels.values() for h in lab.history
                  if h.suite == a.suite and h.case == a.case)
    banners: list[tuple[str, str]] = []
    gone = state.elsewhere.get(labeller)
    if gone is not None:
        banners.append(("warn", f"You scored another answer to this case ({gone.score}, run "
                                f"{gone.run or '?'}, candidate {gone.target or '?'}); this "
                                "answer is a different text: score it anew."))
    return {
        "name": a.key, "suite": f"run {book.run}", "state": state.state,
        "number": a.index + 1, "total": len(snap.answers), "done": snap.labelled,
        "unit_one": "answer", "labeller": labeller, "can_change": not request.app[LABELLER_KEY],
        "previous": case_href(before) if before else None,
        "next": case_href(after) if after else None, "here": case_href(a.key),
        "system_prompt": str(task.get("system_prompt") or ""),
        "instruction": str(task.get("instruction") or ""), "turns": turns,
        "reference": str(task.get("expected_response") or ""),
        "challenges": _text(task.get("potential_challenges") or task.get("challenges")),
        "answer": a.text, "failed": a.error or "" if result is None else "",
        "checks": [(c.name, c.passed) for c in result.all_checks()] if result else [],
        "target": book.target, "token": request.app[TOKEN_KEY],
        "scale": [(s, book.scale.get(s, "")) for s in reversed(SCORES)],
        "chosen": score if score is not None else (mine.score if mine else None),
        "note": note if note is not None else (mine.note if mine else ""),
        "revision": revision if revision is not None else (mine.revision if mine else 0),
        "note_max": NOTE_MAX, "reveal": reveal,
        "judge": _fmt(a.judge_score) if reveal else "", "scorer": book.scorer,
        "judge_feedback": result.feedback if reveal and result is not None else "",
        "others": [(n, s.score, s.note) for n, s in others],
        "mine": mine,
        "history": f"{earlier} earlier score(s) of this case are kept in labels.yml "
                   "(history)." if earlier else "",
        "banners": banners,
    }


def _text(value: Any) -> str:
    if isinstance(value, list):
        return "\n".join(f"- {v}" for v in value)
    return str(value or "")


def _saved(snap: RunSnapshot, i: int, labeller: str) -> str | None:
    mine = snap.answers[i].scores.get(labeller)
    return None if mine is None else \
        f"Saved your score of {snap.answers[i].answer.key}: {mine.score} (revision " \
        f"{mine.revision})."


async def case_page(request: web.Request) -> web.Response:
    book = request.app[RUNBOOK_KEY]
    return show_case(request, book, _CASE_PAGE,
                     f"No answer {request.match_info['name']!r} in run {book.run}.",
                     partial(_context, request, book), _saved)


async def case_save(request: web.Request) -> web.Response:
    book = request.app[RUNBOOK_KEY]
    found = await posted_case(request, book, f"No answer {request.match_info['name']!r}.")
    if isinstance(found, web.Response):
        return found
    posted, state = found
    if state.answer.result is None:
        return error_page(400, "This case has no answer to score (the candidate failed).")
    score = str(posted.form.get("score", ""))
    if score not in {str(s) for s in SCORES}:
        return error_page(400, "Choose a score from 0 to 5.")
    if posted.restarted:
        return _refused(request, book, posted.labeller, int(score), posted.note,
                        posted.revision, RESTARTED)
    a = state.answer
    saved = save_score(a.path, a.suite, a.case, posted.labeller, int(score), posted.note,
                       posted.revision, Rated(book.run, book.target, a.sha256))
    if saved.saved:
        return after_save(posted, a.key, book.neighbours(a.key)[1])
    newer, who = saved.label, posted.labeller
    return _refused(request, book, who, int(score), posted.note,
                    newer.revision if newer is not None else 0,
                    f"Not saved: {who}'s score of this answer was saved again (now "
                    f"{newer.score}, revision {newer.revision}, "
                    f"{newer.at[:19].replace('T', ' ')} UTC) after this page was opened, in "
                    "another tab or window. Your score is still in the form: save again to "
                    "replace it." if newer is not None else
                    f"Not saved: {who}'s score of this answer was removed from labels.yml "
                    "after this page was opened. Your score is still in the form: save again "
                    "to keep it.")


def _refused(request: web.Request, book: RunBook, labeller: str, score: int, note: str,
             revision: int, message: str) -> web.Response:
    """The answer's page again, with the refused form's score and why it was not saved."""
    return refused(request, book, _CASE_PAGE,
                   partial(_context, request, book, score=score, note=note, revision=revision,
                           reveal=True), labeller, message)
