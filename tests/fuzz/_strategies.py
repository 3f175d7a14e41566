"""Hypothesis strategies shared by the fuzz tests: garbage values and structural mutations."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from eunomia.errors import Diagnostic, Severity

Loc = tuple[int | str, ...]

CONFORMANCE = Path(__file__).resolve().parents[2].parent / "shared" / "conformance"

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(["", " ", "\t", "..", "../../etc/passwd", "/etc/passwd", "ünï©ødé ✓",
                     "\u202e", "1e400", "-0", "NaN", "null", "~", "yes", "{", "[1, 2", "a: b"]),
)
garbage = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=12,
)


def paths_of(data: Any, here: Loc = ()) -> list[Loc]:
    """Every key path of a JSON-like value (the root included)."""
    out: list[Loc] = [here]
    if isinstance(data, dict):
        for k, v in data.items():
            out += paths_of(v, (*here, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            out += paths_of(v, (*here, i))
    return out


def _parent(data: Any, loc: Loc) -> Any:
    for part in loc[:-1]:
        data = data[part]
    return data


@st.composite
def mutated(draw: st.DrawFn, base: Any, max_mutations: int = 3) -> Any:
    """``base`` with a few keys dropped, values replaced by garbage, keys added or ids copied."""
    data = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, max_mutations))):
        locs = paths_of(data)
        loc = draw(st.sampled_from(locs))
        op = draw(st.sampled_from(["drop", "replace", "add", "duplicate"]))
        if not loc:  # the root itself
            if op == "replace":
                data = draw(garbage)
            continue
        parent = _parent(data, loc)
        key = loc[-1]
        if op == "drop":
            del parent[key]
        elif op == "replace":
            parent[key] = draw(garbage)
        elif op == "add" and isinstance(parent, dict):
            parent[draw(st.text(min_size=1, max_size=10))] = draw(garbage)
        elif op == "add" and isinstance(parent, list):
            parent.append(draw(garbage))
        elif op == "duplicate" and isinstance(parent, list) and parent:
            parent.append(copy.deepcopy(parent[0]))
        elif op == "duplicate" and isinstance(parent, dict):
            other = draw(st.sampled_from(sorted(map(str, parent))))
            parent[key] = copy.deepcopy(parent.get(other))
    return data


@st.composite
def broken_text(draw: st.DrawFn, text: str) -> str:
    """``text`` with YAML syntax damage: tabs, stray characters, cuts, bad indentation."""
    lines = text.splitlines()
    for _ in range(draw(st.integers(1, 3))):
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["tab", "char", "cut", "dedent", "indent", "dup", "bytes"]))
        if op == "tab":
            lines[i] = "\t" + lines[i].lstrip(" ")
        elif op == "char":
            j = draw(st.integers(0, len(lines[i])))
            c = draw(st.sampled_from([":", "[", "{", '"', "'", "&", "*", "!", "%", "@", "`",
                                      "|", ">", "- ", "? ", "\x00", "\ufeff"]))
            lines[i] = lines[i][:j] + c + lines[i][j:]
        elif op == "cut":
            lines = [*lines[:i], lines[i][: draw(st.integers(0, len(lines[i])))]]
        elif op == "dedent":
            lines[i] = lines[i].lstrip()
        elif op == "indent":
            lines[i] = "   " + lines[i]
        elif op == "dup":
            lines.insert(i, lines[i])
        else:
            lines[i] = draw(st.text(max_size=20))
    return "\n".join(lines) + "\n"


_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load(text: str) -> Any:
    """Parse as Eunomia does (libyaml when present: it differs from PyYAML on edge cases)."""
    return yaml.load(text, Loader=_LOADER)


def dump(data: Any) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def errors(diags: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diags if d.severity is Severity.ERROR]


def assert_names_file(diags: list[Diagnostic], allowed: set[Path]) -> None:
    """Every diagnostic names one of the files it may be about, and shows it when printed."""
    for d in diags:
        assert d.file is not None, d
        assert d.file in allowed or d.file.parent in allowed, (d, allowed)
        assert str(d.file) in str(d)
        assert d.message.strip(), d
        assert "Traceback" not in d.message
