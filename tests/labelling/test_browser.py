"""``eunomia label`` in headless Chromium (Debian's package, driven by Playwright), served by
the real command: label a case by clicking and by keyboard, reload and see it kept, two tabs
saving the same case, a submission whose names hold markup, and screenshots of the index and
a case page of a class diagram and of a BPMN diagram.

Screenshots go to ``$EUNOMIA_SCREENSHOTS`` when it is set (to look at them), else to the
test's temporary folder. Skipped, with the reason, without Chromium or Playwright.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.labelling.conftest import EVIL_CASE, SCRIPT_XSS
from tests.support.browser import Watched
from tests.support.cli import cli_env
from tests.support.scripted_server import free_port

from eunomia.scenarios import load_scenario


@contextmanager
def serving(folder: Path, *options: str) -> Iterator[str]:
    """``eunomia label FOLDER OPTIONS`` as a process of its own; yields its URL."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "eunomia", "label", str(folder), "--port", str(port), *options],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=folder.parent,
        env=cli_env({"COLUMNS": "200"}))
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(url, timeout=5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    out = proc.stdout.read() if proc.stdout else ""
                    raise AssertionError(f"eunomia label did not serve: {out}") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        proc.wait(10)


def _shots(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("EUNOMIA_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _drawn(page: Any) -> list[dict[str, float]]:
    """Boxes of the two drawings on a case page (submission, example solution)."""
    return list(page.evaluate(
        """() => [...document.querySelectorAll('figure svg')].map(e => {
             const r = e.getBoundingClientRect();
             return {w: r.width, h: r.height, top: r.top}; })"""))


def _access_key(page: Any, key: str) -> None:
    """Alt+KEY as the system sends it (an access key): Playwright's own key presses do not
    mark it a system key, so Chromium would not treat it as one."""
    cdp = page.context.new_cdp_session(page)
    event = {"modifiers": 1, "key": key, "code": f"Key{key.upper()}",
             "windowsVirtualKeyCode": ord(key.upper()), "isSystemKey": True}
    cdp.send("Input.dispatchKeyEvent", {"type": "rawKeyDown", **event})
    cdp.send("Input.dispatchKeyEvent", {"type": "char", "text": key, "unmodifiedText": key,
                                        **event})
    cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", **event})
    cdp.detach()


def _choose(page: Any, criterion: int, text: str) -> None:
    page.locator(f"#criterion-{criterion} label.choice", has_text=text).first.click()


def test_label_by_clicking_and_keyboard_reload_and_see_it_kept(
        page: Watched, loan: Path, tmp_path: Path) -> None:
    p = page.page
    with serving(loan, "--labeller", "anna") as url:
        page.goto(url)
        assert "0 of 39" in p.locator("section .progress").inner_text()
        p.get_by_role("link", name="Continue with the next case you have not labelled").click()
        assert p.locator("h1").inner_text() == "01_example_solution"
        p.get_by_role("link", name="Next →").click()
        assert p.locator("h1").inner_text() == "02_missing_start_event"
        boxes = _drawn(p)
        assert len(boxes) == 2 and all(b["w"] > 300 and b["h"] > 100 for b in boxes), boxes
        for n in range(1, 11):
            _choose(p, n, "Not met" if n == 3 else "Met")
        # the keyboard: focus criterion 9's checked choice, move to "Not met" with an arrow
        p.locator("#criterion-9 input[value='sgi_17']").focus()
        p.keyboard.press("ArrowDown")
        assert p.locator("#criterion-9 input[value='sgi_18']").is_checked()
        outline = p.evaluate(
            "() => getComputedStyle(document.activeElement.closest('label')).outlineStyle")
        assert outline != "none"  # the focused choice is outlined
        p.locator("#note").fill("no start event; <b>bold</b> stays text")
        _access_key(p, "s")  # save and next
        p.wait_for_url("**/cases/03_missing_end_event?saved=02_missing_start_event")
        assert "Saved your label of 02_missing_start_event" in p.locator(".banner.ok").inner_text()
        _access_key(p, "p")  # the previous case
        p.wait_for_url("**/cases/02_missing_start_event")
        p.reload()
        assert p.locator("#criterion-3 input[value='sgi_6']").is_checked()
        assert p.locator("#criterion-9 input[value='sgi_18']").is_checked()
        assert p.locator("#criterion-1 input[value='sgi_1']").is_checked()
        assert p.locator("#note").input_value() == "no start event; <b>bold</b> stays text"
        page.goto(url)
        assert "1 of 39" in p.locator("section .progress").inner_text()
        row = p.locator("tr", has=p.locator("a", has_text="02_missing_start_event"))
        assert "labelled" in row.inner_text() and "anna" in row.inner_text()
        page.check_clean()
    scenario, _ = load_scenario(loan)
    assert scenario is not None and [c.name for c in scenario.test_cases] == [
        "02_missing_start_event"]
    expected = {scenario.instructions[i].textual_id for i in scenario.test_cases[0].expected}
    assert {"sgi_6", "sgi_18", "sgi_1"} <= expected


def test_two_tabs_saving_the_same_case(browser: Any, loan: Path) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        with serving(loan, "--labeller", "anna") as url:
            one, two = context.new_page(), context.new_page()
            for tab in (one, two):
                tab.goto(url + "cases/05_using_an_event_as_indicator")
            for n in range(1, 11):
                _choose(one, n, "Met")
                _choose(two, n, "Not met" if n == 1 else "Met")
            one.get_by_role("button", name="Save", exact=True).click()
            assert "Saved your label" in one.locator(".banner.ok").inner_text()
            two.get_by_role("button", name="Save", exact=True).click()
            stale = two.locator(".banner.stale").inner_text()
            assert "Not saved" in stale and "another tab or window" in stale
            # the newer label is shown, the form keeps this tab's choices
            assert two.locator("h2", has_text="Labels of this case").is_visible()
            assert two.locator("#criterion-1 input[value='sgi_2']").is_checked()
            two.get_by_role("button", name="Save", exact=True).click()  # now knowingly
            assert "Saved your label" in two.locator(".banner.ok").inner_text()
    finally:
        context.close()
    data = yaml.safe_load((loan / "labels.yml").read_text(encoding="utf-8"))
    label = data["cases"]["05_using_an_event_as_indicator"]["anna"]
    assert label["revision"] == 2 and label["choices"]["criterion_1"] == "sgi_2"
    assert [h["choices"]["criterion_1"] for h in data["history"]] == ["sgi_1"]


def test_markup_in_a_submission_never_runs(page: Watched, project: Path) -> None:
    p = page.page
    with serving(project, "--labeller", "tutor") as url:
        page.goto(url)
        link = p.get_by_role("link", name=EVIL_CASE)
        assert link.is_visible()
        link.click()
        assert p.locator("h1").inner_text() == EVIL_CASE
        assert SCRIPT_XSS in p.locator("#criterion-1 legend").inner_text()
        drawn = p.locator("figure.submission svg text", has_text="<script>")
        assert drawn.count() >= 1 and drawn.first.is_visible()
        page.goto(url + "cases/missing_task_class")
        assert p.locator("figure.submission svg text", has_text="<img src=x").count() >= 1
        page.check_clean()


@pytest.mark.parametrize(("example", "case"), [
    ("project", "association_instead_of_composition"),
    ("loan", "14_sequence_flow_crossing_pool_boundaries"),
])
def test_screenshots_of_the_index_and_a_case_page(
        page: Watched, example: str, case: str, request: pytest.FixtureRequest,
        tmp_path: Path) -> None:
    folder: Path = request.getfixturevalue(example)
    shots = _shots(tmp_path)
    p = page.page
    with serving(folder, "--labeller", "anna") as url:
        page.goto(url + "cases/" + case)
        for n in (1, 2, 3):
            p.locator(f"#criterion-{n} label.choice").first.click()
        p.get_by_role("button", name="Save", exact=True).click()
        boxes = _drawn(p)
        assert len(boxes) == 2 and all(b["w"] > 300 and b["h"] > 80 for b in boxes), boxes
        assert all(b["top"] < 900 for b in boxes)  # both in sight beside the form
        p.screenshot(path=str(shots / f"label-{folder.name}-case.png"))
        p.mouse.wheel(0, 1500)  # the form scrolls, the drawings stay in sight
        p.wait_for_timeout(200)
        assert _drawn(p)[0]["top"] >= 0
        p.screenshot(path=str(shots / f"label-{folder.name}-case-scrolled.png"))
        page.goto(url)
        p.screenshot(path=str(shots / f"label-{folder.name}-index.png"), full_page=True)
        page.check_clean()
    for name in ("case", "case-scrolled", "index"):
        png = (shots / f"label-{folder.name}-{name}.png").read_bytes()
        assert png.startswith(b"\x89PNG") and len(png) > 20_000
