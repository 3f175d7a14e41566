"""A mutable Apollon document: the raw JSON of a diagram (version 3 dicts or version 2
arrays), indexed by id, written back in the version it came in.

Operators change it in place; every field they do not touch is kept as it was (colours,
assessments of surviving elements, unknown keys), so a mutant differs from its source only
where a mutation put a difference.
"""

from __future__ import annotations

import copy
import random
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import orjson

JsonDict = dict[str, Any]

CLASSIFIERS = frozenset({"Class", "AbstractClass", "Interface", "Enumeration"})
MEMBERS = frozenset({"ClassAttribute", "ClassMethod"})


class DiagramError(ValueError):
    """The document is not an Apollon diagram the operators can work on."""


def _index(value: Any, what: str) -> tuple[dict[str, JsonDict], bool]:
    """``{id: item}`` of a version-3 dict or a version-2 array, and whether it was an array."""
    if value is None:
        return {}, False
    if isinstance(value, list):
        out: dict[str, JsonDict] = {}
        for i, item in enumerate(value):
            if not isinstance(item, dict) or not isinstance(item.get("id"), str):
                raise DiagramError(f"{what}[{i}] is not an object with a string id")
            out[item["id"]] = item
        return out, True
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(item, dict):
                raise DiagramError(f"{what}[{key!r}] is not an object")
        return {str(k): v for k, v in value.items()}, False
    raise DiagramError(f"{what} is neither an object nor an array")


class Doc:
    """One diagram, deep-copied from its JSON; :meth:`to_json` gives the JSON back."""

    def __init__(self, data: Any, *, copy: bool = True) -> None:
        """``copy=False`` reads ``data`` in place (only for a document nobody changes)."""
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise DiagramError("not an Apollon diagram (an object with 'type' and 'elements')")
        self.data: JsonDict = _copied(data) if copy else data
        self.elements, self.v2 = _index(self.data.get("elements"), "elements")
        self.relationships, _ = _index(self.data.get("relationships"), "relationships")
        self.removed: set[str] = set()
        """Ids removed so far (their assessments and interactive flags go with them)."""

    @property
    def type(self) -> str:
        return str(self.data["type"])

    # --- reading --------------------------------------------------------------------------
    def get(self, element_id: str | None) -> JsonDict | None:
        if element_id is None:
            return None
        return self.elements.get(element_id)

    def name(self, element_id: str | None) -> str:
        found = self.get(element_id)
        return "" if found is None else str(found.get("name") or "")

    def label(self, element_id: str | None) -> str:
        """The element's name, or ``<unnamed Type>``: for descriptions."""
        found = self.get(element_id)
        if found is None:
            return f"<missing {element_id}>"
        return str(found.get("name") or "") or f"<unnamed {found.get('type')}>"

    def owner(self, element_id: str) -> str | None:
        found = self.get(element_id)
        owner = None if found is None else found.get("owner")
        return owner if isinstance(owner, str) else None

    def ancestors(self, element_id: str) -> Iterator[str]:
        seen = {element_id}
        owner = self.owner(element_id)
        while owner is not None and owner not in seen:
            seen.add(owner)
            yield owner
            owner = self.owner(owner)

    def children(self, owner_id: str | None) -> list[str]:
        return [i for i, e in self.elements.items() if e.get("owner") == owner_id]

    def of_types(self, types: Iterable[str]) -> list[str]:
        wanted = frozenset(types)
        return [i for i, e in self.elements.items() if e.get("type") in wanted]

    def relationships_of(self, element_id: str) -> list[str]:
        return [r for r, rel in self.relationships.items()
                if element_id in (_end(rel, "source"), _end(rel, "target"))]

    def ends(self, rel_id: str) -> tuple[str | None, str | None]:
        rel = self.relationships[rel_id]
        return _end(rel, "source"), _end(rel, "target")

    def bounds(self, element_id: str) -> tuple[float, float, float, float]:
        b = (self.get(element_id) or {}).get("bounds") or {}
        return (_num(b.get("x")), _num(b.get("y")), _num(b.get("width")), _num(b.get("height")))

    # --- writing --------------------------------------------------------------------------
    def new_id(self, rng: random.Random) -> str:
        """A fresh id (a UUID drawn from ``rng``: the same seed, the same ids)."""
        while True:
            made = str(uuid.UUID(int=rng.getrandbits(128), version=4))
            if made not in self.elements and made not in self.relationships:
                return made

    def add_element(self, element: JsonDict) -> None:
        self.elements[element["id"]] = element
        self._flag(element["id"], "elements")

    def add_relationship(self, rel: JsonDict) -> None:
        self.relationships[rel["id"]] = rel
        self._flag(rel["id"], "relationships")

    def _flag(self, new_id: str, section: str) -> None:
        """A new element is interactive like the others of its section (version 3)."""
        interactive = self.data.get("interactive")
        if isinstance(interactive, dict) and isinstance(interactive.get(section), dict) \
                and interactive[section]:
            interactive[section][new_id] = False

    def remove_relationship(self, rel_id: str) -> None:
        if self.relationships.pop(rel_id, None) is not None:
            self.removed.add(rel_id)

    def remove_element(self, element_id: str) -> set[str]:
        """Remove an element with everything owned by it and every relationship touching
        them; a removed class member leaves its class's ``attributes``/``methods`` list.
        The ids removed."""
        doomed = {element_id}
        grew = True
        while grew:
            grew = False
            for i, e in self.elements.items():
                if i not in doomed and e.get("owner") in doomed:
                    doomed.add(i)
                    grew = True
        gone = set(doomed)
        for i in doomed:
            element = self.elements.pop(i, None)
            if element is None:
                continue
            owner = self.get(element.get("owner"))
            if owner is not None:
                for key in ("attributes", "methods"):
                    if isinstance(owner.get(key), list) and i in owner[key]:
                        owner[key] = [m for m in owner[key] if m != i]
        for rel_id in [r for r, rel in self.relationships.items()
                       if _end(rel, "source") in doomed or _end(rel, "target") in doomed]:
            self.remove_relationship(rel_id)
            gone.add(rel_id)
        self.removed |= gone
        return gone

    def to_json(self) -> JsonDict:
        """The diagram in the version it came in, without what was removed."""
        out = dict(self.data)
        if self.v2:
            out["elements"] = list(self.elements.values())
            out["relationships"] = list(self.relationships.values())
        else:
            out["elements"] = dict(self.elements)
            out["relationships"] = dict(self.relationships)
        live = set(self.elements) | set(self.relationships)
        interactive = out.get("interactive")
        if isinstance(interactive, dict):
            kept: JsonDict = {}
            for section, flags in interactive.items():
                if isinstance(flags, dict):
                    kept[section] = {k: v for k, v in flags.items() if k in live}
                elif isinstance(flags, list):
                    kept[section] = [k for k in flags if k in live]
                else:
                    kept[section] = flags
            out["interactive"] = kept
        assessments = out.get("assessments")
        if isinstance(assessments, dict):
            out["assessments"] = {k: v for k, v in assessments.items() if k in live}
        elif isinstance(assessments, list):
            out["assessments"] = [a for a in assessments if not isinstance(a, dict)
                                  or a.get("modelElementId", a.get("id")) in live]
        return out


def _copied(data: JsonDict) -> JsonDict:
    """A deep copy of decoded JSON: through orjson, ten times faster than ``copy.deepcopy``
    (which takes what orjson refuses: integers beyond 64 bits, say)."""
    try:
        out: JsonDict = orjson.loads(orjson.dumps(data))
    except (orjson.JSONEncodeError, orjson.JSONDecodeError):
        out = copy.deepcopy(data)
    return out


def _end(rel: JsonDict, side: str) -> str | None:
    end = rel.get(side)
    element = end.get("element") if isinstance(end, dict) else None
    return element if isinstance(element, str) else None


def _num(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) \
        else 0.0
