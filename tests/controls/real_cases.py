"""The real task suites the control and altered answers are built from: the bundled example
suite and the llmevalforge datasets as published (v1, v2; four v1 files are broken as
published and are left out by the loader)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from eunomia.tasks import LoadedCase, iter_entries, load_suites, loaded_case

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_SUITE = ROOT / "examples" / "tasks" / "ecommerce"
CONFORMANCE = ROOT.parent / "shared" / "conformance" / "llmevalforge"
DATASETS = (EXAMPLE_SUITE, CONFORMANCE / "v2_604cd20" / "datasets",
            CONFORMANCE / "v1_862b0db" / "custom_tasks")


@dataclass(frozen=True)
class RealCase:
    """A case with a reference answer, and the other references of its suite."""

    suite: str
    case: LoadedCase
    reference: str
    others: tuple[str, ...]


def real_cases() -> Iterator[RealCase]:
    for root in DATASETS:
        if not root.exists():
            pytest.skip(f"{root} is not here (../shared)")
        suites, _problems = load_suites([root])
        for suite in suites:
            cases = [loaded_case(e) for e in iter_entries(suite)]
            refs = [(c.case.expected_response or "").strip() for c in cases]
            for case, ref in zip(cases, refs, strict=True):
                if ref and not case.case.conversation:
                    yield RealCase(f"{root.name}/{suite.name}", case, ref,
                                   tuple(r for r in refs if r and r != ref))


def case_named(cases: list[RealCase], suite: str, name: str) -> RealCase:
    return next(c for c in cases if c.suite.endswith(suite) and c.case.name == name)
