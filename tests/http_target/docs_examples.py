"""The examples of docs/http-targets.md, read from the document itself, so that every example
a user copies is one a test ran."""

from __future__ import annotations

import re
from pathlib import Path

DOC = Path(__file__).resolve().parents[2] / "docs" / "http-targets.md"
_BLOCK = re.compile(r"```yaml\n(?P<text>.*?)```", re.DOTALL)
_NAME = re.compile(r"\(example: (?P<name>[\w-]+)\)")
_URL = re.compile(r"^(?P<key>\s*url:\s*)https://[^/\s]+", re.MULTILINE)


def doc_examples(doc: Path = DOC) -> dict[str, str]:
    """The named ``models.yml`` examples of the document: name -> YAML text."""
    out: dict[str, str] = {}
    for block in _BLOCK.finditer(doc.read_text(encoding="utf-8")):
        text = block.group("text")
        named = _NAME.search(text.splitlines()[0]) if text.strip() else None
        if named is not None:
            out[named.group("name")] = text
    return out


def example_at(name: str, base_url: str) -> str:
    """Example ``name`` with its system's URL moved to ``base_url`` (scheme and host only; the
    route stays the document's)."""
    text = doc_examples()[name]
    moved, count = _URL.subn(lambda m: m.group("key") + base_url, text)
    assert count == 1, f"example {name} should have one url"
    return moved


def write_models(folder: Path, *names: str, base_url: str) -> Path:
    """A ``models.yml`` in ``folder`` with the ``models:`` of the named examples."""
    bodies = []
    for name in names:
        text = example_at(name, base_url)
        lines = [line for line in text.splitlines() if not line.startswith("#")]
        assert lines[0] == "models:", f"example {name} should start with models:"
        bodies.extend(lines[1:])
    path = folder / "models.yml"
    path.write_text("models:\n" + "\n".join(bodies) + "\n", encoding="utf-8")
    return path
