"""What a test case changes in the example solution: a structural diff of two diagrams.

Elements are matched by what a reader sees, never by id (a student's diagram has ids of
its own): first by type, name and the name of what contains them; then within a family of
types (an event of another kind, an abstract class for a class: *retyped*); then by type
and name in another container (*moved*); then by type and container at the same place with
another name (*renamed*, a label removed or added). What is left is *removed* from the
solution or *added* by the case. A flow node whose box moved to another element's place (two
tasks swapped) is *moved* too; a gateway, event or task whose ``gatewayType``/``eventType``/
``taskType``/``marker`` differs is *retyped*.

Relationships are matched through their ends: the same ends and type (a changed
multiplicity, role or label is *changed*), the same ends and another type (*retyped*), the
ends swapped (*reversed*), one end kept (*moved*: reconnected). A change that follows from
another (the members and relationships of a removed class, the flows of a removed task) is
marked ``implied``, so counting by element type counts what the case is about.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from eunomia.apollon.mutate._doc import CLASSIFIERS, MEMBERS, Doc, JsonDict
from eunomia.apollon.mutate._select import EVENTS, FLOW_NODES, GATEWAYS, TASKS, flow_type

ChangeKind = Literal["added", "removed", "retyped", "renamed", "moved", "reversed", "changed"]
CHANGE_KINDS: tuple[ChangeKind, ...] = (
    "removed", "added", "retyped", "renamed", "moved", "reversed", "changed")

_FAMILIES: tuple[frozenset[str], ...] = (CLASSIFIERS, EVENTS, GATEWAYS, TASKS)
SUBTYPES = ("gatewayType", "eventType", "taskType", "marker")
"""Fields that make a BPMN element another kind of the same element type."""


@dataclass(frozen=True, slots=True)
class Change:
    """One difference between the example solution and a case."""

    kind: ChangeKind
    element_type: str
    """The Apollon type of what changed, as in the solution (as in the case when added);
    a BPMN flow's with its flow type: ``BPMNFlow (message)``."""
    name: str
    """The element's name, or a relationship's ends ``A -> B``."""
    detail: str = ""
    solution_id: str | None = None
    case_id: str | None = None
    anchors: tuple[str, ...] = ()
    """Ids of the case's elements a feedback item may name to point at this change: the
    element itself, a relationship's ends, or what surrounded a removed element."""
    implied: bool = False
    """It follows from another change of the same case (a removed class's attributes)."""
    relationship: bool = False

    def text(self) -> str:
        what = f"{self.kind} {self.element_type} {self.name}"
        return what + (f": {self.detail}" if self.detail else "")


@dataclass(frozen=True, slots=True)
class DiagramDiff:
    changes: tuple[Change, ...]

    @property
    def main(self) -> tuple[Change, ...]:
        """The changes the case is about (none implied by another)."""
        return tuple(c for c in self.changes if not c.implied)

    @property
    def element_types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.element_type for c in self.main))

    @property
    def kinds(self) -> tuple[ChangeKind, ...]:
        return tuple(dict.fromkeys(c.kind for c in self.main))

    @property
    def anchors(self) -> frozenset[str]:
        return frozenset(a for c in self.changes for a in c.anchors)

    def lines(self) -> list[str]:
        """One line per change, the implied ones after the others and marked."""
        out = [c.text() for c in self.main]
        out += [c.text() + " (follows)" for c in self.changes if c.implied]
        return out


def _type(e: JsonDict) -> str:
    return str(e.get("type") or "")


def _family(t: str) -> frozenset[str]:
    return next((f for f in _FAMILIES if t in f), frozenset({t}))


def _centre(doc: Doc, i: str) -> tuple[float, float]:
    x, y, w, h = doc.bounds(i)
    return x + w / 2, y + h / 2


class _Matcher:
    """Pairs of solution and case elements, found round by round, containers first."""

    def __init__(self, sol: Doc, case: Doc) -> None:
        self.sol, self.case = sol, case
        self.pairs: dict[str, str] = {}
        """Solution id -> case id."""
        self.back: dict[str, str] = {}
        """Case id -> solution id."""
        self.how: dict[str, ChangeKind | None] = {}
        """Solution id -> how it was matched (None: the same element)."""
        self.depths = {doc: _depths(doc) for doc in (sol, case)}
        """Each element's depth below the top (0: not contained), per diagram."""

    def where(self, doc: Doc, i: str) -> str:
        """The name of what contains an element, for people."""
        owner = doc.owner(i)
        if owner is None:
            return ""
        return doc.name(owner) or f"<{_type(doc.elements[owner])}>"

    def owner_key(self, doc: Doc, i: str) -> str:
        """What contains an element, as a solution id (a case's owner through its match)."""
        owner = doc.owner(i)
        if owner is None:
            return ""
        if doc is self.sol:
            return owner
        return self.back.get(owner, f"case:{owner}")

    def round(self, key: Callable[[Doc, str], Any], how: ChangeKind | None,
              depth: int | None = None, near: float | None = None) -> None:
        """Match the free elements (at ``depth`` below the top, or any) whose ``key`` is
        equal, nearest boxes first; ``near``: only boxes closer than this many times their
        size."""
        def free(doc: Doc, taken: dict[str, str]) -> list[str]:
            depths = self.depths[doc]
            return [i for i in doc.elements if i not in taken
                    and (depth is None or depths[i] == depth)]

        by_key: dict[Any, list[str]] = {}
        for c in free(self.case, self.back):
            k = key(self.case, c)
            if k is not None:
                by_key.setdefault(k, []).append(c)
        options: list[tuple[float, str, str]] = []
        for s in free(self.sol, self.pairs):
            k = key(self.sol, s)
            if k is None:
                continue
            for c in by_key.get(k, []):
                distance = math.dist(_centre(self.sol, s), _centre(self.case, c))
                if near is not None:
                    _, _, w, h = self.sol.bounds(s)
                    if distance > near * max(w, h, 1.0):
                        continue
                options.append((distance, s, c))
        for _, s, c in sorted(options):
            if s in self.pairs or c in self.back:
                continue
            self.pairs[s] = c
            self.back[c] = s
            self.how[s] = how


def _depths(doc: Doc) -> dict[str, int]:
    return {i: sum(1 for _ in doc.ancestors(i)) for i in doc.elements}


def _match(sol: Doc, case: Doc) -> _Matcher:
    m = _Matcher(sol, case)

    def named(d: Doc, i: str) -> str | None:
        return d.name(i) or None

    deepest = max((d for depths in m.depths.values() for d in depths.values()), default=0)
    for depth in range(deepest + 1):
        m.round(lambda d, i: (_type(d.elements[i]), d.name(i), m.owner_key(d, i)), None, depth)
        m.round(lambda d, i: (_family(_type(d.elements[i])), named(d, i), m.owner_key(d, i))
                if named(d, i) else None, "retyped", depth)
        m.round(lambda d, i: (_type(d.elements[i]), m.owner_key(d, i)), "renamed", depth,
                near=0.5)
        m.round(lambda d, i: (_family(_type(d.elements[i])), m.owner_key(d, i))
                if not named(d, i) else None, "retyped", depth, near=0.5)
    m.round(lambda d, i: (_type(d.elements[i]), d.name(i)) if d.name(i) else None, "moved")
    return m


def _subtype(e: JsonDict) -> str:
    return ", ".join(f"{k} {e[k]}" for k in SUBTYPES if e.get(k) not in (None, ""))


def _neighbours(m: _Matcher, doc: Doc, i: str) -> tuple[frozenset[str], frozenset[str]]:
    """An element's predecessors and successors along flows, as solution ids of elements
    found in both diagrams."""
    def known(e: str | None) -> str | None:
        if e is None:
            return None
        if doc is m.sol:
            return e if e in m.pairs else None
        return m.back.get(e)

    before, after = set(), set()
    for rid in doc.relationships_of(i):
        source, target = doc.ends(rid)
        if target == i and known(source):
            before.add(known(source))
        if source == i and known(target):
            after.add(known(target))
    return frozenset(x for x in before if x), frozenset(x for x in after if x)


def _element_changes(m: _Matcher) -> list[Change]:
    sol, case = m.sol, m.case
    out: list[Change] = []
    removed = [s for s in sol.elements if s not in m.pairs]
    added = [c for c in case.elements if c not in set(m.pairs.values())]
    removed_set, added_set = set(removed), set(added)
    for s, c in m.pairs.items():
        se, ce = sol.elements[s], case.elements[c]
        how = m.how[s]
        name = sol.label(s)
        if how == "retyped" or (how is None and _subtype(se) != _subtype(ce)):
            before = " ".join(x for x in (_type(se), f"({_subtype(se)})" if _subtype(se) else "")
                              if x)
            after = " ".join(x for x in (_type(ce), f"({_subtype(ce)})" if _subtype(ce) else "")
                             if x)
            out.append(Change("retyped", _type(se), name, f"{before} -> {after}", s, c, (c,)))
        elif how == "moved":
            out.append(Change("moved", _type(se), name,
                              f"from {m.where(sol, s) or 'top level'} to "
                              f"{m.where(case, c) or 'top level'}", s, c, (c,)))
        elif how == "renamed":
            new = case.name(c)
            detail = f"{sol.name(s)!r} -> {new!r}" if new and sol.name(s) else \
                "label removed" if not new else "label added"
            out.append(Change("renamed", _type(se), name, detail, s, c, (c,)))
        elif _type(se) in FLOW_NODES:
            _, _, w, h = sol.bounds(s)
            if math.dist(_centre(sol, s), _centre(case, c)) > max(w, h) / 2 \
                    and _neighbours(m, sol, s) != _neighbours(m, case, c):
                out.append(Change("moved", _type(se), name, "to another place in the flow",
                                  s, c, (c,)))
    back = {c: s for s, c in m.pairs.items()}
    for s in removed:
        owner = sol.owner(s)
        implied = owner in removed_set
        around = [m.pairs[o] for o in (owner,) if o is not None and o in m.pairs]
        for rid in sol.relationships_of(s):
            for end in sol.ends(rid):
                if end is not None and end != s and end in m.pairs:
                    around.append(m.pairs[end])
        where = m.where(sol, s)
        out.append(Change("removed", _type(sol.elements[s]), sol.label(s),
                          f"from {where}" if where and _type(sol.elements[s]) in MEMBERS
                          else "", s, None, tuple(dict.fromkeys(around)), implied))
    for c in added:
        owner = case.owner(c)
        where = m.where(case, c)
        out.append(Change("added", _type(case.elements[c]), case.label(c),
                          f"to {where}" if where and _type(case.elements[c]) in MEMBERS else "",
                          back.get(c), c, (c,), owner in added_set))
    return out


def _rel_type(rel: JsonDict) -> str:
    if rel.get("type") == "BPMNFlow":
        return f"BPMNFlow ({flow_type(rel)})"
    return str(rel.get("type") or "")


def _ends_label(doc: Doc, rid: str) -> str:
    source, target = doc.ends(rid)
    return f"{doc.label(source)} -> {doc.label(target)}"


def _end_details(s: JsonDict, c: JsonDict, sol: Doc, sid: str) -> str:
    parts = []
    if str(s.get("name") or "") != str(c.get("name") or ""):
        parts.append(f"label {s.get('name') or ''!r} -> {c.get('name') or ''!r}")
    for side in ("source", "target"):
        se, ce = s.get(side) or {}, c.get(side) or {}
        for key in ("multiplicity", "role"):
            a, b = str(se.get(key) or ""), str(ce.get(key) or "")
            if a.replace(" ", "") != b.replace(" ", ""):
                at = sol.label(sol.ends(sid)[0 if side == "source" else 1])
                parts.append(f"{key} at {at} {a or '(none)'} -> {b or '(none)'}")
    return "; ".join(parts)


def _relationship_changes(m: _Matcher, removed: set[str], added: set[str]) -> list[Change]:
    sol, case = m.sol, m.case
    back = {c: s for s, c in m.pairs.items()}

    def mapped(rid: str) -> tuple[str | None, str | None]:
        a, b = case.ends(rid)
        return (back.get(a) if a else None, back.get(b) if b else None)

    free_sol = list(sol.relationships)
    out: list[Change] = []
    pending: list[str] = []
    rounds: list[tuple[str, bool, bool]] = [("same", False, True), ("retyped", False, False),
                                            ("reversed", True, True), ("reversed", True, False)]
    matched: dict[str, tuple[str, str]] = {}
    for how, flip, same_type in rounds:
        for cid in case.relationships:
            if cid in matched:
                continue
            ends = mapped(cid)
            if flip:
                ends = (ends[1], ends[0])
            crel = case.relationships[cid]
            for sid in free_sol:
                srel = sol.relationships[sid]
                if sol.ends(sid) != ends or None in ends:
                    continue
                if same_type != (_rel_type(srel) == _rel_type(crel)):
                    continue
                if (srel.get("type") == "BPMNFlow") != (crel.get("type") == "BPMNFlow"):
                    continue
                matched[cid] = (sid, how if not (flip and not same_type) else "retyped")
                free_sol.remove(sid)
                break
    for cid in case.relationships:  # one end kept, the other moved: reconnected
        if cid in matched:
            continue
        a, b = mapped(cid)
        crel = case.relationships[cid]
        for sid in free_sol:
            srel = sol.relationships[sid]
            sa, sb = sol.ends(sid)
            if _rel_type(srel) == _rel_type(crel) and ((a is not None and sa == a)
                                                       or (b is not None and sb == b)):
                matched[cid] = (sid, "moved")
                free_sol.remove(sid)
                break
        else:
            pending.append(cid)
    for cid, (sid, how) in matched.items():
        srel, crel = sol.relationships[sid], case.relationships[cid]
        anchors: tuple[str, ...] = (cid, *(e for e in case.ends(cid) if e is not None))
        label = _ends_label(sol, sid)
        if how == "retyped":
            detail = f"{_rel_type(srel)} -> {_rel_type(crel)}"
            if sol.ends(sid) != mapped(cid):
                detail += ", ends swapped"
            out.append(Change("retyped", _rel_type(srel), label, detail, sid, cid, anchors,
                              relationship=True))
        elif how == "reversed" and srel.get("type") == "ClassBidirectional":
            flipped = {**crel, "source": crel.get("target"), "target": crel.get("source")}
            detail = _end_details(srel, flipped, sol, sid)
            if detail:
                out.append(Change("changed", _rel_type(srel), label, detail, sid, cid, anchors,
                                  relationship=True))
        elif how == "reversed":
            out.append(Change("reversed", _rel_type(srel), label,
                              f"now {_ends_label(case, cid)}", sid, cid, anchors,
                              relationship=True))
        elif how == "moved":
            gone = any(e in removed for e in sol.ends(sid) if e is not None)
            new = any(e in added for e in case.ends(cid) if e is not None)
            out.append(Change("moved", _rel_type(srel), label,
                              f"reconnected: now {_ends_label(case, cid)}", sid, cid, anchors,
                              gone or new, relationship=True))
        else:
            detail = _end_details(srel, crel, sol, sid)
            if detail:
                kind: ChangeKind = "renamed" if detail.startswith("label") and ";" not in \
                    detail else "changed"
                out.append(Change(kind, _rel_type(srel), label, detail, sid, cid, anchors,
                                  relationship=True))
    for sid in free_sol:
        ends = sol.ends(sid)
        around = tuple(m.pairs[e] for e in ends if e is not None and e in m.pairs)
        implied = any(e in removed for e in ends if e is not None)
        out.append(Change("removed", _rel_type(sol.relationships[sid]), _ends_label(sol, sid),
                          "", sid, None, around, implied, relationship=True))
    for cid in pending:
        ends = case.ends(cid)
        implied = any(e in added for e in ends if e is not None)
        out.append(Change("added", _rel_type(case.relationships[cid]),
                          _ends_label(case, cid), "", None, cid,
                          (cid, *(e for e in ends if e is not None)), implied,
                          relationship=True))
    return out


def diff_diagrams(solution: Any, case: Any) -> DiagramDiff:
    """What ``case`` changes in ``solution`` (both decoded Apollon JSON, version 3 or 2).

    Raises ``eunomia.apollon.mutate.DiagramError`` when either is not a diagram.
    """
    sol, cas = Doc(solution, copy=False), Doc(case, copy=False)
    m = _match(sol, cas)
    elements = _element_changes(m)
    removed = {c.solution_id for c in elements if c.kind == "removed" and c.solution_id}
    added = {c.case_id for c in elements if c.kind == "added" and c.case_id}
    changes = elements + _relationship_changes(m, removed, added)
    order = {k: i for i, k in enumerate(CHANGE_KINDS)}
    changes.sort(key=lambda c: (c.implied, order[c.kind], c.relationship, c.element_type,
                                c.name))
    return DiagramDiff(tuple(changes))
