"""Pydantic models of Apollon diagrams, version 3 (dicts) and version 2 (arrays).

Only the fields Eunomia reads are typed; everything else is kept as extra data,
so a diagram round-trips unchanged and unknown element types are never dropped.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator


class Bounds(BaseModel):
    model_config = ConfigDict(extra="allow")
    x: float = 0
    y: float = 0
    width: float = 0
    height: float = 0


class Element(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    name: str = ""
    type: str
    owner: str | None = None
    bounds: Bounds = Field(default_factory=Bounds)
    attributes: list[str] = Field(default_factory=list)
    methods: list[str] = Field(default_factory=list)

    def extra(self, key: str, default: Any = None) -> Any:
        """A type-specific field such as ``taskType``, ``eventType`` or ``gatewayType``."""
        return (self.model_extra or {}).get(key, default)


class Endpoint(BaseModel):
    model_config = ConfigDict(extra="allow")

    element: str
    direction: str | None = None
    multiplicity: str | None = None
    role: str | None = None


class Relationship(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    name: str = ""
    type: str
    owner: str | None = None
    source: Endpoint
    target: Endpoint

    def extra(self, key: str, default: Any = None) -> Any:
        return (self.model_extra or {}).get(key, default)


def _by_id(value: Any) -> Any:
    """Version 2 stores arrays; index them by id like version 3."""
    if isinstance(value, list):
        return {str(item.get("id")): item for item in value if isinstance(item, dict)}
    return value


class ApollonDiagram(BaseModel):
    model_config = ConfigDict(extra="allow")

    version: str = "3.0.0"
    type: str
    elements: dict[str, Element] = Field(default_factory=dict)
    relationships: dict[str, Relationship] = Field(default_factory=dict)

    _v_elements = field_validator("elements", "relationships", mode="before")(_by_id)

    def children(self, owner_id: str) -> list[Element]:
        return [e for e in self.elements.values() if e.owner == owner_id]

    def name_of(self, element_id: str) -> str:
        element = self.elements.get(element_id)
        if element is None:
            return f"<missing {element_id}>"
        return element.name or f"<unnamed {element.type}>"


def parse_diagram(data: Any) -> ApollonDiagram:
    """Validate a decoded Apollon JSON document (raises ``pydantic.ValidationError``)."""
    return ApollonDiagram.model_validate(data)
