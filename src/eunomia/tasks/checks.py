"""Deterministic checks beside the judge: contains, not_contains, regex, word counts, JSON.

Each check is reported on its own (never folded into the judge's score).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from eunomia.models import JSONExtractionError, extract_json
from eunomia.tasks._model import CheckSpec, check_pattern
from eunomia.tasks._result import CheckResult

_WORD = re.compile(r"\b[\w'’-]+\b", re.UNICODE)


def count_words(text: str) -> int:
    """Words in ``text`` (runs of letters, digits, apostrophes and hyphens)."""
    return len(_WORD.findall(text))


def _items(value: str | list[str]) -> list[str]:
    return [value] if isinstance(value, str) else list(value)


def run_check(spec: CheckSpec, answer: str) -> CheckResult:
    """Apply one check to an answer."""
    folded = answer.casefold()
    if spec.contains is not None:
        missing = [s for s in _items(spec.contains) if s.casefold() not in folded]
        detail = f"missing: {', '.join(repr(m) for m in missing)}" if missing else ""
        return CheckResult(name=f"contains {_items(spec.contains)!r}", passed=not missing,
                           detail=detail)
    if spec.not_contains is not None:
        found = [s for s in _items(spec.not_contains) if s.casefold() in folded]
        detail = f"found: {', '.join(repr(f) for f in found)}" if found else ""
        return CheckResult(name=f"not_contains {_items(spec.not_contains)!r}",
                           passed=not found, detail=detail)
    if spec.regex is not None:
        ok = check_pattern(spec.regex).search(answer) is not None
        return CheckResult(name=f"regex {spec.regex!r}", passed=ok,
                           detail="" if ok else "no match")
    words = count_words(answer)
    if spec.max_words is not None:
        return CheckResult(name=f"max_words {spec.max_words}", passed=words <= spec.max_words,
                           detail=f"{words} words")
    if spec.min_words is not None:
        return CheckResult(name=f"min_words {spec.min_words}", passed=words >= spec.min_words,
                           detail=f"{words} words")
    # json
    want = bool(spec.json_valid)
    try:
        json.loads(answer)
        valid, detail = True, ""
    except json.JSONDecodeError as exc:
        valid = False
        try:  # say whether a JSON value is inside (e.g. in a code fence)
            extract_json(answer)
            detail = f"not JSON as a whole ({exc.msg}); a JSON value is embedded"
        except JSONExtractionError:
            detail = f"not JSON ({exc.msg})"
    return CheckResult(name="json" if want else "json: false", passed=valid == want,
                       detail=detail)


def run_checks(specs: Iterable[CheckSpec], answer: str) -> list[CheckResult]:
    return [run_check(s, answer) for s in specs]
