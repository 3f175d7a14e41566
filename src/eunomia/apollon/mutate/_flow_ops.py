"""Operators on process diagrams (BPMN, and UML activity diagrams where their element types
allow the same): delete a node and join the flow around it, delete or retype a flow, retype
a gateway or an event, swap two tasks, add a task.

A *sequence flow* is a ``BPMNFlow`` whose ``flowType`` is ``sequence`` (or missing) or an
``ActivityControlFlow``; message flows and associations are never reconnected.
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from eunomia.apollon.mutate._base import Apply, Choice, MutationError, Operator, SpecError
from eunomia.apollon.mutate._doc import Doc, JsonDict
from eunomia.apollon.mutate._layout import GAP, free_spot, place, route
from eunomia.apollon.mutate._select import (
    EVENTS,
    FLOWS,
    GATEWAYS,
    TASKS,
    OpSpec,
    flow_type,
    name_matches,
    named,
    select_elements,
    select_relationships,
)

GATEWAY_TYPES = ("exclusive", "parallel", "inclusive", "event-based", "complex")
"""``gatewayType`` values of a ``BPMNGateway``."""
ACTIVITY_GATEWAYS = {"decision": "ActivityDecisionNode", "merge": "ActivityMergeNode",
                     "fork": "ActivityForkNode",
                     "fork_horizontal": "ActivityForkNodeHorizontal"}
"""What ``retype_gateway`` makes of an activity diagram's decision, merge or fork node."""
EVENT_TYPES: dict[str, tuple[str, ...]] = {
    "BPMNStartEvent": ("default", "message", "timer", "conditional", "signal"),
    "BPMNIntermediateEvent": (
        "default", "message-catch", "message-throw", "timer-catch", "escalation-throw",
        "conditional-catch", "link-catch", "link-throw", "compensation-throw", "signal-catch",
        "signal-throw"),
    "BPMNEndEvent": ("default", "message", "escalation", "error", "compensation", "signal",
                     "terminate"),
}
"""``eventType`` values Apollon offers per kind of BPMN event."""
EVENT_KINDS = {"start": "BPMNStartEvent", "intermediate": "BPMNIntermediateEvent",
               "end": "BPMNEndEvent"}
"""``retype_event`` ``to`` values that change the kind of event (its ``eventType`` becomes
``default``)."""
PROCESS = frozenset({"BPMN", "ActivityDiagram"})
CONTAINERS = frozenset({"BPMNPool", "BPMNSwimlane", "Activity"})


def is_sequence(rel: JsonDict) -> bool:
    return rel.get("type") == "ActivityControlFlow" or (
        rel.get("type") == "BPMNFlow" and flow_type(rel) == "sequence")


def _flows(doc: Doc, node: str) -> tuple[list[str], list[str]]:
    """The sequence flows into and out of a node."""
    into, out = [], []
    for rid in doc.relationships_of(node):
        if not is_sequence(doc.relationships[rid]):
            continue
        source, target = doc.ends(rid)
        if target == node and source != node:
            into.append(rid)
        elif source == node and target != node:
            out.append(rid)
    return into, out


def _linked(doc: Doc, source: str, target: str) -> bool:
    return any(doc.ends(r) == (source, target) and is_sequence(doc.relationships[r])
               for r in doc.relationships)


def _join(doc: Doc, rid: str, side: str, element: str) -> None:
    """Point one end of a flow at another element, or drop the flow when that would make a
    loop on one element or repeat a flow that is there already."""
    source, target = doc.ends(rid)
    new = (element, target) if side == "source" else (source, element)
    if new[0] == new[1] or (new[0] is not None and new[1] is not None
                            and _linked(doc, new[0], new[1])):
        doc.remove_relationship(rid)
        return
    doc.relationships[rid][side]["element"] = element
    route(doc, rid)


def _remove_node(doc: Doc, node: str, reconnect: bool, rng: random.Random) -> None:
    """Delete a flow node; with ``reconnect``, what came into it flows on to what it led to."""
    if reconnect:
        into, out = _flows(doc, node)
        if len(into) == 1:
            before, _ = doc.ends(into[0])
            doc.remove_relationship(into[0])
            for rid in out:
                if before is not None:
                    _join(doc, rid, "source", before)
        elif len(out) == 1:
            _, after = doc.ends(out[0])
            doc.remove_relationship(out[0])
            for rid in into:
                if after is not None:
                    _join(doc, rid, "target", after)
        elif into and out:
            for i in into:
                for o in out:
                    s, _ = doc.ends(i)
                    _, t = doc.ends(o)
                    if s is None or t is None or s == t or _linked(doc, s, t):
                        continue
                    copy: JsonDict = {**doc.relationships[o], "id": doc.new_id(rng),
                                      "source": dict(doc.relationships[o]["source"]),
                                      "target": dict(doc.relationships[o]["target"])}
                    copy["source"]["element"] = s
                    doc.add_relationship(copy)
                    route(doc, copy["id"])
            for rid in (*into, *out):
                doc.remove_relationship(rid)
    doc.remove_element(node)


def _delete_node(kind: str, family: frozenset[str]) -> Operator:
    def candidates(doc: Doc, spec: OpSpec) -> list[Choice]:
        out = []
        for node in select_elements(doc, spec, family):
            touched = {node, *doc.relationships_of(node)}
            into, outgoing = _flows(doc, node)
            joined = spec.reconnect and bool(into) and bool(outgoing)

            def apply(d: Doc, rng: random.Random, node: str = node) -> None:
                _remove_node(d, node, spec.reconnect, rng)

            how = ", the flow joined around it" if joined else ""
            out.append(Choice(f"delete_{kind}", f"delete_{kind}:{node}:{spec.reconnect}",
                              f"delete {kind} {doc.label(node)}{how}", frozenset(touched),
                              apply))
        return out

    article = "an" if kind[0] in "aeiou" else "a"
    return Operator(f"delete_{kind}", f"delete {article} {kind} and join the flow around it "
                    "(reconnect: false leaves the hole)", PROCESS, candidates)


def _flow_text(doc: Doc, rid: str) -> str:
    rel = doc.relationships[rid]
    source, target = doc.ends(rid)
    kind = f"{flow_type(rel)} flow" if rel.get("type") == "BPMNFlow" else "control flow"
    return f"{kind} {doc.label(source)} -> {doc.label(target)}"


def _delete_flow(doc: Doc, spec: OpSpec) -> list[Choice]:
    out = []
    for rid in select_relationships(doc, spec, FLOWS):
        def apply(d: Doc, rng: random.Random, rid: str = rid) -> None:
            d.remove_relationship(rid)

        out.append(Choice("delete_flow", f"delete_flow:{rid}", f"delete {_flow_text(doc, rid)}",
                          frozenset({rid}), apply))
    return out


def _flow_to(new: str, old: str) -> Operator:
    """``to_<new>_flow``: a BPMN flow of type ``old`` made one of type ``new``."""
    name = f"to_{new}_flow"

    def candidates(doc: Doc, spec: OpSpec) -> list[Choice]:
        out = []
        for rid in select_relationships(doc, spec, {"BPMNFlow"}):
            if flow_type(doc.relationships[rid]) != old:
                continue

            def apply(d: Doc, rng: random.Random, rid: str = rid) -> None:
                d.relationships[rid]["flowType"] = new

            out.append(Choice(name, f"{name}:{rid}",
                              f"make the {_flow_text(doc, rid)} a {new} flow",
                              frozenset({rid}), apply))
        return out

    return Operator(name, f"turn a {old} flow into a {new} flow", frozenset({"BPMN"}),
                    candidates)


TASK_TYPES = ("default", "user", "send", "receive", "manual", "business-rule", "script")
"""``taskType`` values of a ``BPMNTask``."""
MARKERS = ("none", "parallel multi instance", "sequential multi instance", "loop")
"""``marker`` values of a ``BPMNTask``."""


def _retype_task(doc: Doc, spec: OpSpec) -> list[Choice]:
    _check_values(spec.to, [*TASK_TYPES, *MARKERS], "task type or marker")
    out = []
    for node in select_elements(doc, spec, {"BPMNTask"}):
        element = doc.elements[node]
        for to in dict.fromkeys(spec.to):
            field = "taskType" if to in TASK_TYPES else "marker"
            was = str(element.get(field) or ("default" if field == "taskType" else "none"))
            if was == to:
                continue
            out.append(Choice("retype_task", f"retype_task:{node}:{to}",
                              f"give task {doc.label(node)} {field} {to} instead of {was}",
                              frozenset({node}), _setting(node, field, to)))
    return out


def _setting(node: str, field: str, value: str) -> Apply:
    """The change that sets ``field`` of element ``node`` to ``value``."""
    def apply(d: Doc, rng: random.Random) -> None:
        d.elements[node][field] = value
    return apply


def _check_values(values: Iterable[str], known: Iterable[str], what: str) -> None:
    allowed = list(known)
    for value in values:
        if value not in allowed:
            raise SpecError(f"unknown {what} {value!r}; use one of {', '.join(allowed)}")


def _retype_gateway(doc: Doc, spec: OpSpec) -> list[Choice]:
    _check_values(spec.to, [*GATEWAY_TYPES, *ACTIVITY_GATEWAYS], "gateway type")
    out = []
    for node in select_elements(doc, spec, GATEWAYS):
        element = doc.elements[node]
        for to in dict.fromkeys(spec.to):
            if element.get("type") == "BPMNGateway":
                if to not in GATEWAY_TYPES or element.get("gatewayType") == to:
                    continue
                field, value, was = "gatewayType", to, str(element.get("gatewayType"))
            else:
                new_type = ACTIVITY_GATEWAYS.get(to)
                if new_type is None or element.get("type") == new_type:
                    continue
                field, value, was = "type", new_type, str(element.get("type"))
            out.append(Choice("retype_gateway", f"retype_gateway:{node}:{to}",
                              f"make gateway {doc.label(node)} {value} instead of {was}",
                              frozenset({node}), _setting(node, field, value)))
    return out


def _retype_event(doc: Doc, spec: OpSpec) -> list[Choice]:
    every = [*EVENT_KINDS, *dict.fromkeys(v for vs in EVENT_TYPES.values() for v in vs)]
    _check_values(spec.to, every, "event type")
    out = []
    for node in select_elements(doc, spec, set(EVENT_TYPES)):
        element = doc.elements[node]
        for to in dict.fromkeys(spec.to):
            if to in EVENT_KINDS:
                new_type, new_event = EVENT_KINDS[to], "default"
            elif to in EVENT_TYPES.get(str(element.get("type")), ()):
                new_type, new_event = str(element.get("type")), to
            else:
                continue  # this event type belongs to another kind of event
            if (new_type, new_event) == (element.get("type"), element.get("eventType")):
                continue

            def apply(d: Doc, rng: random.Random, node: str = node, new_type: str = new_type,
                      new_event: str = new_event) -> None:
                d.elements[node]["type"] = new_type
                d.elements[node]["eventType"] = new_event

            was = f"{element.get('type')} ({element.get('eventType')})"
            out.append(Choice("retype_event", f"retype_event:{node}:{to}",
                              f"make event {doc.label(node)} {new_type} ({new_event}) instead "
                              f"of {was}", frozenset({node}), apply))
    return out


SWAPPED = ("name", "taskType", "marker")
"""What two swapped tasks exchange: the boxes stay, the tasks change places."""


def _swap_tasks(doc: Doc, spec: OpSpec) -> list[Choice]:
    first = select_elements(doc, spec, TASKS)
    out = []
    seen: set[frozenset[str]] = set()
    for a in first:
        partners = [t for name in spec.to for t in named(doc, name, TASKS)] if spec.to \
            else [t for t in doc.of_types(TASKS) if doc.owner(t) == doc.owner(a)]
        for b in partners:
            pair = frozenset({a, b})
            if a == b or pair in seen or doc.name(a) == doc.name(b):
                continue
            seen.add(pair)

            def apply(d: Doc, rng: random.Random, a: str = a, b: str = b) -> None:
                ea, eb = d.elements[a], d.elements[b]
                for key in SWAPPED:
                    if key in ea or key in eb:
                        ea[key], eb[key] = eb.get(key, ""), ea.get(key, "")

            x, y = sorted((a, b))
            out.append(Choice("swap_tasks", f"swap_tasks:{x}:{y}",
                              f"swap tasks {doc.label(a)} and {doc.label(b)}",
                              frozenset(pair), apply))
    return out


def _task_template(doc: Doc) -> tuple[str, float, float, JsonDict]:
    """The type, size and type-specific fields of a new task, copied from the diagram."""
    for tid in doc.of_types(TASKS):
        element = doc.elements[tid]
        _, _, w, h = doc.bounds(tid)
        extra: JsonDict = {k: element[k] for k in ("taskType", "marker") if k in element}
        if "taskType" in extra:
            extra["taskType"] = "default"
        if "marker" in extra:
            extra["marker"] = "none"
        return str(element["type"]), w or 140.0, h or 60.0, extra
    if doc.type == "ActivityDiagram":
        return "ActivityActionNode", 140.0, 60.0, {}
    return "BPMNTask", 140.0, 60.0, {"taskType": "default", "marker": "none"}


def _add_task(doc: Doc, spec: OpSpec) -> list[Choice]:
    if spec.within is not None:
        containers: list[str | None] = list(named(doc, spec.within, CONTAINERS))
        if not containers:
            raise SpecError(f"in: no pool, lane or activity named {spec.within!r}")
    elif spec.after is not None:  # beside the element it follows
        containers = list(dict.fromkeys(
            doc.owner(n) for n in doc.elements if name_matches(doc.elements[n], spec.after)))
    else:
        lanes = doc.of_types({"BPMNSwimlane"})
        with_lanes = {doc.owner(lane) for lane in lanes}
        containers = [*lanes, *(p for p in doc.of_types({"BPMNPool", "Activity"})
                                if p not in with_lanes)] or [None]
    after: list[str] = []
    if spec.after is not None:
        after = [n for n in doc.elements if name_matches(doc.elements[n], spec.after)]
        if not after:
            raise SpecError(f"after: no element named {spec.after!r}")
    task_type, width, height, extra = _task_template(doc)
    out = []
    for container in containers:
        if free_spot(doc, container, width, height) is None:
            continue
        for name in spec.to:
            links = [(n, rid) for n in after for rid in _flows(doc, n)[1]] if after \
                else [(None, None)]
            for node, flow in links:
                def apply(d: Doc, rng: random.Random, container: str | None = container,
                          name: str = name, node: str | None = node,
                          flow: str | None = flow) -> None:
                    near = None
                    if node is not None and node in d.elements:
                        nx, ny, nw, nh = d.bounds(node)
                        near = (nx + nw + GAP + width / 2, ny + nh / 2)
                    box = free_spot(d, container, width, height, near)
                    if box is None:
                        raise MutationError(f"no room left for task {name!r}")
                    tid = d.new_id(rng)
                    task: JsonDict = {"id": tid, "name": name, "type": task_type,
                                      "owner": container, "bounds": {}, **extra}
                    place(task, box)
                    d.add_element(task)
                    if node is None or flow is None:
                        return
                    _, target = d.ends(flow)
                    d.relationships[flow]["target"]["element"] = tid
                    route(d, flow)
                    new_flow: JsonDict = {
                        **d.relationships[flow], "id": d.new_id(rng), "name": "",
                        "source": {**d.relationships[flow]["source"], "element": tid},
                        "target": {**d.relationships[flow]["target"], "element": target}}
                    d.add_relationship(new_flow)
                    route(d, new_flow["id"])

                where = f" in {doc.label(container)}" if container is not None else ""
                inserted = "" if node is None else f" after {doc.label(node)}"
                touched = {f"new:task:{name}", *(x for x in (container, node, flow) if x)}
                out.append(Choice("add_task", f"add_task:{container}:{name}:{flow}",
                                  f"add a task {name}{where}{inserted}", frozenset(touched),
                                  apply))
    return out


FLOW_OPERATORS: tuple[Operator, ...] = (
    _delete_node("task", TASKS),
    _delete_node("event", EVENTS),
    _delete_node("gateway", GATEWAYS),
    Operator("delete_flow", "delete a sequence or message flow (nothing is joined)",
             PROCESS, _delete_flow),
    Operator("retype_gateway", "make a gateway another type (to: exclusive, parallel, "
             "inclusive, event-based, complex; activity diagrams: decision, merge, fork)",
             PROCESS, _retype_gateway, needs_to=True),
    Operator("retype_event", "make an event another kind (to: start, intermediate, end) or "
             "give it another eventType (message, timer, ...)", frozenset({"BPMN"}),
             _retype_event, needs_to=True),
    Operator("retype_task", "give a task another taskType (user, send, receive, manual, "
             "business-rule, script) or marker (loop, parallel multi instance, sequential "
             "multi instance)", frozenset({"BPMN"}), _retype_task, needs_to=True),
    Operator("swap_tasks", "swap two tasks (to: the partners; default the other tasks of "
             "the same pool or lane)", PROCESS, _swap_tasks),
    _flow_to("message", "sequence"),
    _flow_to("sequence", "message"),
    Operator("add_task", "add a task that was not asked for (to: its names; in: the pool or "
             "lane; after: insert it into the flow after this element)", PROCESS, _add_task,
             needs_to=True),
)
