"""Random command lines: a message and exit code 0, 1 or 2, never a traceback or a hang.

No generated command line can reach a server: the only scenario folders offered are
broken or missing, so nothing runs. ``serve``/``serve-example``/``demo`` are left out
(they serve forever or run the bundled example).
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eunomia.cli import main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "scenarios" / "project_management"

COMMANDS = ["run", "validate", "runs", "export", "version", "bogus", "--help", ""]
OPTIONS = ["--concurrency", "--timeout", "--retries", "--max-cases", "--repeat", "--resume",
           "--run-name", "--results", "--store", "--case", "--server-url", "--target",
           "--no-cache", "--retry-failed", "--output", "--x-server-url", "--secret-env",
           "--prompt-dir", "--bogus", "-x", "--", "-"]
FIXED_VALUES = ["0", "-1", "abc", "1e999", "nan", "inf", "", "ü✓", "../../etc", "x" * 300,
                "file:///etc/passwd", "javascript:alert(1)", "ftp://h/x", "http://127.0.0.1:9/x",
                "run_1", "*", "athena", "bogus:thing", "\x00", "--help"]


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Path]:
    """A working folder with a broken scenario, a file, a bad store; the cwd of every call."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        broken = root / "broken"
        shutil.copytree(EXAMPLE, broken, ignore=shutil.ignore_patterns("_generate.py"))
        (broken / "manifest.yml").write_text("exercise: [\n", encoding="utf-8")
        (root / "a_file").write_text("x", encoding="utf-8")
        (root / "bad.db").write_bytes(b"this is not a database" * 100)
        old = Path.cwd()
        os.chdir(root)
        try:
            yield root
        finally:
            os.chdir(old)


def values(root: Path) -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from([*FIXED_VALUES, str(root / "broken"), str(root / "a_file"),
                                      str(root / "bad.db"), str(root / "missing"),
                                      str(root / "a_file" / "under")]),
                     st.text(max_size=12).filter(lambda s: "\x00" not in s))


@st.composite
def argv(draw: st.DrawFn, root: Path) -> list[str]:
    args = [draw(st.sampled_from(COMMANDS))]
    for _ in range(draw(st.integers(0, 5))):
        kind = draw(st.sampled_from(["option", "pair", "value"]))
        if kind == "option":
            args.append(draw(st.sampled_from(OPTIONS)))
        elif kind == "pair":
            args += [draw(st.sampled_from(OPTIONS)), draw(values(root))]
        else:
            args.append(draw(values(root)))
    return [a for a in args if a != ""] or ["--help"]


def run_main(args: list[str]) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code: object = 0
    with mock.patch.object(sys, "argv", ["eunomia", *args]), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main()
        except SystemExit as exc:
            code = exc.code
    return (code if isinstance(code, int) else (0 if code is None else 2)), out.getvalue() + \
        err.getvalue()


@settings(max_examples=50, deadline=5000, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_command_lines_in_process(sandbox: Path, data: st.DataObject) -> None:
    args = data.draw(argv(sandbox))
    code, output = run_main(args)
    assert code in (0, 1, 2), (args, code, output)
    assert "Traceback" not in output, (args, output)
    if code == 2:
        assert output.strip(), (args, "an error without a message")


@settings(max_examples=3, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_command_lines_as_a_subprocess(sandbox: Path, data: st.DataObject) -> None:
    args = data.draw(argv(sandbox))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["NO_COLOR"] = "1"
    got = subprocess.run([sys.executable, "-m", "eunomia", *args], cwd=sandbox, env=env,
                         capture_output=True, text=True, timeout=60, check=False,
                         stdin=subprocess.DEVNULL)
    assert got.returncode in (0, 1, 2), (args, got.returncode, got.stderr)
    assert "Traceback" not in got.stdout + got.stderr, (args, got.stderr)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "--resume", "nope"], "no run store at"),
        (["runs", "--store", "bad.db"], "bad.db"),
        (["export", "x", "--store", "bad.db"], "bad.db"),
        (["run", "broken", "--server-url", "http://127.0.0.1:9/x"], "invalid YAML"),
        (["run", "missing"], "missing"),
        (["validate", "a_file/under"], "under"),
        (["run", "broken", "--concurrency", "abc"], "--concurrency"),
        (["run", "broken", "--timeout", "nan"], "--timeout"),
    ],
)
def test_known_bad_command_lines(sandbox: Path, args: list[str], message: str) -> None:
    code, output = run_main(args)
    assert code in (1, 2), output
    assert "Traceback" not in output
    assert message in " ".join(output.split()) or message in output, output
