"""docs/architecture.md's map of folders stays true: a row for every top-level package and
module of ``src/eunomia``, in the layer ``tests/test_layers.py`` checks it in."""

from __future__ import annotations

import re
from pathlib import Path

from tests.test_layers import LAYERS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"


def _doc_layers() -> list[list[str]]:
    """The names of each layer of the doc's folder table, top first (``cli/`` -> ``cli``)."""
    text = DOC.read_text(encoding="utf-8")
    table = text[text.index("## Folders"):].split("\n\n")[2]
    layers: list[list[str]] = []
    for row in table.splitlines()[2:]:
        layer, place = (cell.strip() for cell in row.strip("|").split("|")[:2])
        if layer:
            layers.append([])
        layers[-1] += [re.sub(r"(/|\.py)$", "", name) for name in re.findall(r"`([^`]+)`", place)]
    return layers


def test_every_top_level_package_and_module_has_its_row() -> None:
    on_disk = {p.stem if p.is_file() else p.name for p in (ROOT / "src" / "eunomia").iterdir()
               if (p.is_dir() and (p / "__init__.py").is_file()) or p.suffix == ".py"}
    documented = {name for layer in _doc_layers() for name in layer}
    assert on_disk - {"__init__"} <= documented, sorted(on_disk - documented - {"__init__"})
    assert documented <= on_disk, sorted(documented - on_disk)


def test_the_doc_has_the_layers_that_are_checked() -> None:
    expected = [sorted(set(names) - {"__init__"}) for names in LAYERS]
    assert [sorted(names) for names in _doc_layers()] == expected
