"""Issue 32's "done when", as a tutor does it from a fresh clone: ``eunomia label`` on the 39
real BPMN submissions (its plain HTML forms posted as a browser posts them), then
``eunomia validate`` reports labelled/unlabelled counts and ``eunomia run`` measures
correctness on the labelled cases. Each command is a process of its own."""

from __future__ import annotations

import http.cookiejar
import json
import re
import subprocess
import sys
import urllib.parse
import urllib.request
from pathlib import Path

from tests.support.cli import cli_env, run_cli
from tests.support.scripted_server import free_port

CASES = {  # case -> the criteria a tutor finds not met (the rest met)
    "01_example_solution": (),
    "02_missing_start_event": ("criterion_1", "criterion_3"),
    "03_missing_end_event": ("criterion_1", "criterion_4"),
}


def _label(base: str, case: str, not_met: tuple[str, ...]) -> str:
    """Open the case page, choose per criterion, save; the page the save leads to."""
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    page = opener.open(f"{base}/cases/{case}", timeout=10).read().decode()
    token = re.search(r'name="token" value="([^"]*)"', page)
    revision = re.search(r'name="revision" value="([^"]*)"', page)
    assert token is not None and revision is not None
    form = {"token": token.group(1), "revision": revision.group(1), "layout": "",
            "note": "checked the pools", "then": "stay"}
    choices: dict[str, list[str]] = {}
    for criterion, value in re.findall(r'name="choice:(criterion_\d+)" value="([^"]+)"', page):
        choices.setdefault(criterion, []).append(value)
    assert len(choices) == 10
    for criterion, (met, missed, cannot) in choices.items():
        assert cannot == "cannot tell"
        form[f"choice:{criterion}"] = missed if criterion in not_met else met
    request = urllib.request.Request(f"{base}/cases/{case}", headers={"Origin": base},
                                     data=urllib.parse.urlencode(form).encode())
    return str(opener.open(request, timeout=10).read().decode())


def test_label_three_real_submissions_then_validate_and_run(loan: Path) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "eunomia", "label", str(loan), "--labeller", "anna", "--port",
         str(port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=cli_env(), cwd=loan.parent)
    try:
        assert server.stdout is not None
        while "Open http" not in (line := server.stdout.readline()):
            assert line, "the label server ended"
        for case, not_met in CASES.items():
            page = _label(base, case, not_met)
            assert f"Saved your label of {case}" in " ".join(page.split()), page[:2000]
        index = urllib.request.urlopen(f"{base}/", timeout=10).read().decode()
        assert "3 of 39" in " ".join(re.sub(r"<[^>]+>", " ", index).split())
    finally:
        server.terminate()
        server.wait(10)
    valid = run_cli("validate", loan.name, cwd=loan.parent)
    said = " ".join((valid.stdout + valid.stderr).split())
    assert valid.returncode == 0, said
    assert "3 test cases; 3 of 39 cases labelled in labels.yml (anna 3)" in said
    assert "36 of 39 cases have no label yet and are left out of runs" in said
    ran = run_cli("run", loan.name, "--target", "baseline:default", "--run-name", "labelled",
                  "--results", "results", cwd=loan.parent, env={"COLUMNS": "200"},
                  timeout=120)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    summary = json.loads((loan.parent / "results" / "labelled" / "athena_loan_real" /
                          "scenario_results.json").read_text(encoding="utf-8"))
    # correctness measured on the 3 labelled cases: baseline:default says "met" everywhere,
    # right only for the example solution
    assert summary["labelled"] is True
    assert summary["total_cases"] == 3 and summary["fully_correct_cases"] == 1
    assert summary["correctly_detected_cases"] == 1
    missed = {c["criterion_textual_id"]: c["missed"] for c in summary["criteria"]}
    assert missed == {"criterion_1": 2, "criterion_3": 1, "criterion_4": 1,
                      **{f"criterion_{n}": 0 for n in (2, *range(5, 11))}}
    assert "Fully Correct Cases │ 1" in " ".join(ran.stdout.split())
