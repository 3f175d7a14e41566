"""The exercise's example solution and the student's submission as compact text."""

from __future__ import annotations

import json

from pydantic import ValidationError

from eunomia.apollon import parse_diagram, render_diagram
from eunomia.scheduler import CallError

NO_SOLUTION = "(none given)"


def render_solution(text: str | None) -> str:
    """The example solution as compact text; other text is kept as it is."""
    if not text or not text.strip():
        return NO_SOLUTION
    try:
        return render_diagram(parse_diagram(json.loads(text))).strip()
    except (json.JSONDecodeError, ValidationError, TypeError, ValueError):
        return text.strip()


def render_submission(model: str) -> str:
    """The submitted Apollon diagram as compact text; a non-retryable CallError if unreadable."""
    try:
        return render_diagram(parse_diagram(json.loads(model))).strip()
    except json.JSONDecodeError as exc:
        raise CallError(f"the submission is not JSON: {exc}", retryable=False) from None
    except (ValidationError, TypeError, ValueError) as exc:
        first = str(exc).splitlines()[0]
        raise CallError(
            f"the submission is not an Apollon diagram: {first}", retryable=False
        ) from None
