"""Scenario folders to label (copies of the examples, one poisoned) and a client of the label
server."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from eunomia.labelling import Book, RunBook, create_app

ROOT = Path(__file__).resolve().parents[2]
LOAN = ROOT / "examples" / "athena" / "athena_loan_real"
PROJECT = ROOT / "examples" / "scenarios" / "project_management"

SCRIPT_XSS = "<script>window.__pwned=1</script>"
ELEMENT_XSS = "<img src=x onerror=window.__pwned=1>"
EVIL_CASE = "evil<img src=x onerror=window.__pwned=1>"
"""A test case whose very file name is markup."""

Client = TestClient[web.Request, web.Application]


def all_met(**changes: str) -> dict[str, str]:
    """Choices of athena_loan_real: every criterion met, but ``changes``."""
    out = {f"criterion_{n}": f"sgi_{2 * n - 1}" for n in range(1, 11)}
    out.update(changes)
    return out


@pytest.fixture
def loan(tmp_path: Path) -> Path:
    folder = tmp_path / "athena_loan_real"
    shutil.copytree(LOAN, folder)
    return folder


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """project_management with classes named like markup (an image with an onerror in one
    case, a script in the case whose file name is markup too) and a criterion titled like a
    script."""
    folder = tmp_path / "project_management"
    shutil.copytree(PROJECT, folder, ignore=shutil.ignore_patterns("_generate.py"))
    path = folder / "test_cases" / "missing_task_class.json"
    diagram = json.loads(path.read_text(encoding="utf-8"))
    team = next(e for e in diagram["elements"].values() if e["name"] == "TeamMember")
    team["name"] = ELEMENT_XSS
    path.write_text(json.dumps(diagram), encoding="utf-8")
    evil = json.loads((folder / "test_cases" / "extra_class.json").read_text(encoding="utf-8"))
    project_class = next(e for e in evil["elements"].values() if e["name"] == "Project")
    project_class["name"] = SCRIPT_XSS
    (folder / "test_cases" / f"{EVIL_CASE}.json").write_text(json.dumps(evil), encoding="utf-8")
    manifest = folder / "manifest.yml"
    text = manifest.read_text(encoding="utf-8")
    manifest.write_text(text.replace('title: "Required Classes"',
                                     f'title: "Required Classes {SCRIPT_XSS}"'), encoding="utf-8")
    return folder


def token_of(html: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', html)
    assert found is not None, html[:500]
    return found.group(1)


def revision_of(html: str) -> int:
    found = re.search(r'name="revision" value="(\d+)"', html)
    assert found is not None
    return int(found.group(1))


@pytest.fixture
def client_of() -> Callable[..., Any]:
    """``async with client_of(book, labeller="anna") as client``."""

    def make(book: Book | RunBook, **options: Any) -> Client:
        return TestClient(TestServer(create_app(book, **options), host="127.0.0.1", port=0))

    return make


@pytest.fixture
async def loan_client(loan: Path, client_of: Callable[..., Client]) -> AsyncIterator[Client]:
    async with client_of(Book(loan), labeller="anna") as client:
        yield client
