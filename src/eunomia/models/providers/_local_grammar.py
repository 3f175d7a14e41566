"""llama.cpp grammars for JSON answers: a JSON schema made into GBNF by llama-cpp-python's
converter, compact (no optional whitespace between tokens: each costs a forward pass) and
with no raw control character inside strings (so every answer the grammar lets through is
JSON the ``json`` module reads)."""

from __future__ import annotations

import functools
import importlib
import json
from typing import Any

_LOOSE_CHAR = r'char ::= [^"\\] |'
"""How llama.cpp's converter starts the rule of a string character: any but ``"`` and ``\\``."""
_STRICT_CHAR = r'char ::= [^"\\\x7F\x00-\x1F] |'
"""The same without control characters, which JSON does not allow raw inside strings."""


@functools.lru_cache(maxsize=32)
def _compact_json_gbnf(schema_json: str) -> str:
    """The GBNF grammar of a JSON schema: no optional whitespace between tokens, and no raw
    control character inside strings."""
    grammar = importlib.import_module("llama_cpp.llama_grammar")
    gbnf: str = grammar.json_schema_to_gbnf(schema_json)
    lines = []
    for line in gbnf.splitlines():
        if line.startswith("space ::="):
            line = 'space ::= ""'
        elif line.startswith(_LOOSE_CHAR):
            line = _STRICT_CHAR + line[len(_LOOSE_CHAR):]
        lines.append(line)
    return "\n".join(lines) + "\n"


def json_grammar(schema: dict[str, Any]) -> Any:
    """A llama-cpp-python grammar for answers matching ``schema`` (compact JSON)."""
    grammar = importlib.import_module("llama_cpp.llama_grammar")
    gbnf = _compact_json_gbnf(json.dumps(schema, sort_keys=False))
    return grammar.LlamaGrammar.from_string(gbnf, verbose=False)


def schema_problem(schema: dict[str, Any]) -> str | None:
    """Why ``schema`` cannot become a grammar (llama.cpp's converter refuses it), or None."""
    try:
        json_grammar(schema)
    except Exception as exc:  # the converter asserts, or fails on unexpected shapes
        return f"{type(exc).__name__}: {exc}".rstrip(": ")
    return None
