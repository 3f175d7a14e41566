"""``eunomia label`` as a user types it: what it refuses, and what it says when it serves."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from tests.support.cli import cli_env, run_cli
from tests.support.scripted_server import free_port


@pytest.mark.parametrize(("args", "message"), [
    (["no_such_thing"], "no_such_thing: no scenario folder of that name, and no run store at"),
    (["."], "is not a scenario folder"),
    (["athena_loan_real", "--labeller", "<b>"], "--labeller '<b>': use letters"),
    (["athena_loan_real", "--port", "70000"], "--port must be between 0 and 65535"),
    (["no_such_run", "--expected", "anna"], "--expected is for a scenario"),
])
def test_refusals(loan: Path, args: list[str], message: str) -> None:
    got = run_cli("label", *args, cwd=loan.parent)
    assert got.returncode != 0
    assert message in " ".join((got.stdout + got.stderr).split()), got.stdout + got.stderr
    assert "Traceback" not in got.stdout + got.stderr


def test_a_broken_labels_file_stops_it_before_it_starts(loan: Path) -> None:
    (loan / "labels.yml").write_text("cases:\n  a: [1\n", encoding="utf-8")
    got = run_cli("label", loan, cwd=loan.parent)
    out = " ".join((got.stdout + got.stderr).split())
    assert got.returncode != 0 and "labels.yml cannot be read" in out and "labels.yml:" in out


def test_it_serves_and_says_where(loan: Path) -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "eunomia", "label", str(loan), "--labeller", "anna",
         "--expected", "anna,bob", "--port", str(port), "--host", "0.0.0.0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env=cli_env({"COLUMNS": "200"}))
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        text = " ".join(" ".join(lines).split())
        assert "warning: serving on 0.0.0.0: anyone who can reach it can read the cases and " \
               "write labels" in text
        assert "0 of 39 cases labelled; labels go to" in text
        assert f"Open http://0.0.0.0:{port}/ (Ctrl-C to stop)" in text
        deadline = time.monotonic() + 20
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=5) as resp:
                    assert "Label athena_loan_real" in resp.read().decode()
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
    finally:
        proc.terminate()
        proc.wait(10)
    assert "expected:\n- anna\n- bob" in (loan / "labels.yml").read_text(encoding="utf-8")
