"""The installed command's quick exit (``eunomia.cli.command``): the exit code, every line
of output (also into a pipe), and what Python's exit handlers clean up, as a normal exit."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _eunomia(*args: str, cwd: Path, env: dict[str, str] | None = None
             ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "eunomia", *args], cwd=cwd, text=True,
                          capture_output=True, timeout=120,
                          env={**os.environ, "NO_COLOR": "1", **(env or {})})


def test_exit_codes_and_output_into_a_pipe(tmp_path: Path) -> None:
    ok = _eunomia("--help", cwd=tmp_path)
    assert ok.returncode == 0
    assert "Usage" in ok.stdout
    assert ok.stdout.rstrip().endswith("Print the version.")  # the last line too
    missing = _eunomia("validate", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert missing.returncode != 0
    assert "nowhere" in missing.stdout + missing.stderr
    usage = _eunomia("run", "--no-such-option", cwd=tmp_path)
    assert usage.returncode == 2
    assert "--no-such-option" in usage.stderr


def test_a_run_ends_with_its_files_written_and_its_temporary_files_removed(
        tmp_path: Path) -> None:
    """A task eval spools its suite to a temporary file: gone when the command has ended."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    suite = tmp_path / "suite.yaml"
    suite.write_text("test_cases:\n- case_id: one\n  category: General Knowledge\n"
                     "  instruction: Say hi\n  checks:\n  - contains: hi\n", encoding="utf-8")
    got = _eunomia("eval", str(suite), "--model", "baseline:reference", "--judge", "none",
                   "--results", "results", "--run-name", "quick", cwd=tmp_path,
                   env={"TMPDIR": str(temp)})
    assert got.returncode in (0, 1), got.stderr
    assert "quick" in got.stdout
    assert (tmp_path / "results" / "quick" / "tasks_results.json").is_file()
    assert list(temp.iterdir()) == []


def test_exit_handlers_run_and_the_code_is_kept(tmp_path: Path) -> None:
    script = ("import atexit, sys\n"
              "atexit.register(lambda: print('handler ran', flush=True))\n"
              "sys.argv = ['eunomia', *sys.argv[1:]]\n"
              "from eunomia.cli import command\n"
              "command()\n")
    for args, code in ((["version"], 0), (["run", "--bad"], 2)):
        got = subprocess.run([sys.executable, "-c", script, *args], cwd=tmp_path, text=True,
                             capture_output=True, timeout=60)
        assert got.returncode == code
        assert got.stdout.rstrip().endswith("handler ran")


def test_a_profiler_still_writes_its_results(tmp_path: Path) -> None:
    """Under cProfile (bench/profile_cli.py) or coverage, Python exits as usual."""
    out = tmp_path / "version.prof"
    got = subprocess.run([sys.executable, "-m", "cProfile", "-o", str(out), "-m", "eunomia",
                          "version"], cwd=tmp_path, text=True, capture_output=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert out.is_file() and out.stat().st_size > 0
