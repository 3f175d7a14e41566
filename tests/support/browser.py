"""Headless Chromium (Debian's package, driven by Playwright) for the browser tests.

A pytest plugin (``tests/conftest.py`` loads it): ``browser`` (one per test module) and
``page`` (a :class:`Watched` page that records console errors, page errors and failed
requests). A test using them is skipped, with the reason, when Chromium or Playwright is
missing (``scripts/install-chromium.sh`` installs the browser; Playwright is a dev
dependency).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]



@dataclass(slots=True)
class Watched:
    """A page and everything it complained about."""

    page: Any
    errors: list[str] = field(default_factory=list)

    def goto(self, url: str) -> None:
        response = self.page.goto(url, wait_until="load")
        assert response is None or response.ok, url  # file:// gives no response

    def check_clean(self) -> None:
        assert self.errors == []
        assert self.page.evaluate("typeof window.__pwned") == "undefined"

    def charts(self) -> list[dict[str, float]]:
        """Bounding boxes of every chart and of every bar."""
        return list(self.page.evaluate(
            """() => [...document.querySelectorAll('svg.chart, svg.chart .bar')]
                 .map(e => { const r = e.getBoundingClientRect();
                             return {w: r.width, h: r.height}; })"""))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
    if not CHROMIUM.exists():  # pragma: no cover - depends on the machine
        pytest.skip(f"{CHROMIUM} not found: run scripts/install-chromium.sh "
                    "(apt-get install -y chromium)")
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Watched]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    watched = Watched(context.new_page())
    watched.page.on("console", lambda m: watched.errors.append(f"console {m.type}: {m.text}")
                    if m.type in ("error", "warning") else None)
    watched.page.on("pageerror", lambda e: watched.errors.append(f"page error: {e}"))
    watched.page.on("requestfailed", lambda r: watched.errors.append(f"request: {r.url}"))
    yield watched
    context.close()
