"""Benchmark: the installed ``eunomia`` command as a whole process, as a user runs it, beside
a plain asyncio + aiohttp loop, Inspect AI and promptfoo on the same work against the same
local server.

Every figure is of a child process, timed from its start to its exit: wall time, user+sys CPU
and peak RSS (``os.wait4``: the child's own resource usage, with whatever it waited for; the
child is started by the small ``_spawn.py`` so that its peak RSS is not the benchmark's),
several runs each (interleaved: one round runs every item once), reported as the median and
the spread (min-max). Servers (``fast_openai_server.py``, ``fast_athena_server.py``) run as
their own processes, so their CPU is not counted (it is shown apart).

What is timed (``--cases`` N, 5,000 by default; 100 in flight):

- start-up: ``eunomia --help``, ``eunomia runs`` (a store holding four runs), and the peers'
  ``--help``;
- ``eunomia eval SUITE --judge none`` (a task suite: one ``regex`` check per case; the server
  answers "The answer is 42." and every tenth case expects 43, so 90 % pass) and
  ``eunomia run SCENARIO`` (the SGI scenario of examples/scenarios/project_management with N
  test case files; every tenth case expects another instruction, so 90 % are fully correct),
  each at 1 case and at N cases, a fresh results folder per run;
- the same work by ``plain_loop.py`` (tasks and scenario), and when installed by Inspect AI
  (one sample per case, ``match()`` scorer, ``--max-connections``; ``peers/inspect_task.py``)
  and promptfoo (``equals`` assertions, ``-j``, ``--no-cache``; ``peers/promptfoo_config.py``);
- ``--latency-cases`` cases (1,000) at ``--latency`` (200 ms) per answer, 100 in flight,
  against the ideal (cases / concurrency x latency = 2.0 s).

Each run is checked: its exit code, the passes it reports (tasks: 90 % of the cases; scenario:
90 % fully correct) and the requests the server counted (one per case: no cache). Derived
figures: cases/s including start-up (N / wall), marginal CPU per case ((CPU(N) - CPU(1)) /
(N - 1), medians), ratios to the plain loop, and the issue's targets with pass/miss. The
markdown table goes to ``--output`` (bench/cli.md); the exit code is 1 when a target is missed.

    .venv/bin/python bench/bench_cli.py                      # everything, 3 rounds
    .venv/bin/python bench/bench_cli.py --runs 1 --no-peers  # quick look
    .venv/bin/python bench/bench_cli.py --label baseline --output bench/cli.md

Where the tools are (each skipped, saying so, when not found):

- ``--eunomia`` / ``EUNOMIA_BENCH_EUNOMIA``: the ``eunomia`` command (default: the one beside
  this Python, then PATH);
- ``--inspect`` / ``EUNOMIA_BENCH_INSPECT``: Inspect AI's ``inspect`` command, installed in its
  own virtual environment (``python -m venv DIR && DIR/bin/pip install inspect-ai openai``;
  default: ``inspect`` on PATH);
- ``--promptfoo`` / ``EUNOMIA_BENCH_PROMPTFOO``: promptfoo's command (``npm install promptfoo``
  in a folder of its own, then ``DIR/node_modules/.bin/promptfoo``; default: on PATH).

They are measurement tools only, never dependencies of Eunomia. Working files go to
``--workdir`` (default bench/.tmp/cli, removed at the end unless ``--keep``), which is also
the children's TMPDIR: on the reference machine creating files in /tmp costs more kernel CPU
than elsewhere on the same disk (see README.md). Nothing is deleted between runs (deleting
thousands of files makes the next file creations slower on that file system). The children
run without PYTHONDONTWRITEBYTECODE, so Python caches compiled bytecode as it does in a
user's installation (with it set, an editable install compiles its modules at every start).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

from peers import promptfoo_config  # noqa: E402 - the bench folder is not a package

# Not imported from bench_tasks.py / bench_scenario.py: they import Eunomia's internals at
# module level, and this benchmark must run beside any installed version of the command.
ROOT = BENCH.parent
EXAMPLE = ROOT / "examples" / "scenarios" / "project_management"
ANSWER = "The answer is 42."  # what fast_openai_server.py is told to answer
FAIL_EVERY = 10
"""Every tenth case expects another answer (tasks) or instruction (scenario): it fails."""
MODEL = "bench"
API_KEY = "bench"


# ----------------------------------------------------------------------------- work files

def start_server(script: str, latency: float, *extra: str) -> tuple[subprocess.Popen[str], str]:
    """One of the fast servers (``fast_openai_server.py``, ``fast_athena_server.py``) as its
    own process; its URL, which it prints as JSON."""
    proc = subprocess.Popen([sys.executable, str(BENCH / script), "--latency", str(latency),
                             *extra], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())["url"]


def server_requests(url: str) -> int:
    """Requests a fast server has answered (its ``GET /stats``)."""
    with urllib.request.urlopen(f"{url.rsplit('/', 1)[0]}/stats", timeout=10) as response:
        return int(json.load(response)["requests"])


def make_scenario(folder: Path, cases: int) -> Path:
    """The example scenario with ``cases`` test case files (its own, repeated)."""
    scenario = folder / "scenarios" / "bench"
    shutil.copytree(EXAMPLE, scenario, ignore=shutil.ignore_patterns("test_cases", "_*.py"))
    shutil.copy(EXAMPLE.parent / "llm_cost.yml", folder / "scenarios")
    sources = sorted((EXAMPLE / "test_cases").glob("*.json"))
    (scenario / "test_cases").mkdir()
    for i in range(cases):
        shutil.copy(sources[i % len(sources)], scenario / "test_cases" / f"case_{i:06d}.json")
    return scenario


def case_records(cases: int) -> list[dict[str, str]]:
    """The task cases, one record each: the same for Eunomia, the plain loop and the peers."""
    records = []
    for i in range(cases):
        expected = "43" if i % FAIL_EVERY == FAIL_EVERY - 1 else "42"
        case_id = f"gk-{i:06d}"
        records.append({
            "case_id": case_id,
            "system_prompt": "Answer briefly.",
            "instruction": f"Question {i}: what is six times seven"
                           + ("" if expected == "42" else " plus one") + "?",
            "expected": expected,
            "expected_answer": ANSWER.replace("42", expected),
            # distinct per case, as in a real suite (no tool gains from a pattern cache);
            # (?#...) is a regex comment
            "regex": rf"\b{expected}\b(?#{case_id})",
        })
    return records


def expected_passes(cases: int) -> int:
    return cases - cases // FAIL_EVERY


def write_tasks(folder: Path, cases: int) -> dict[str, Path]:
    """The suite YAML (Eunomia, plain loop), the JSON lines (Inspect AI) of ``cases`` cases."""
    folder.mkdir(parents=True, exist_ok=True)
    records = case_records(cases)
    suite = folder / "bench_suite.yaml"
    with suite.open("w", encoding="utf-8") as out:
        out.write("metadata:\n  name: bench\ntest_cases:\n")
        for i, r in enumerate(records):
            out.write(f"- case_id: {r['case_id']}\n  category: General Knowledge\n"
                      f"  system_prompt: {r['system_prompt']}\n"
                      f"  instruction: '{r['instruction']}'\n"
                      f"  expected_response: '{r['expected']}'\n"
                      f"  difficulty_level: {('easy', 'medium', 'hard')[i % 3]}\n"
                      f"  checks:\n  - regex: '{r['regex']}'\n")
    jsonl = folder / "cases.jsonl"
    with jsonl.open("w", encoding="utf-8") as out:
        for r in records:
            out.write(json.dumps(r) + "\n")
    return {"suite": suite, "jsonl": jsonl}


def write_scenario(folder: Path, cases: int) -> dict[str, Path]:
    """The example scenario with ``cases`` test case files (:func:`make_scenario`);
    its test_case_diffs rewritten so that every tenth case expects ``extras_present``
    instead of ``no_extras`` (the fast server answers the first instruction of each
    criterion, so those cases are not fully correct). For the plain loop: the exercise part
    of the request as Eunomia sends it, and each case's expected instruction ids as Eunomia
    reads them from the manifest."""
    import orjson

    from eunomia.scenarios import load_scenario

    scenario = make_scenario(folder, cases)
    manifest = scenario / "manifest.yml"
    text = manifest.read_text(encoding="utf-8")
    head = text[: text.index("\ntest_case_diffs:")]
    failing = [f"case_{i:06d}" for i in range(cases) if i % FAIL_EVERY == FAIL_EVERY - 1]
    diffs = "".join(f'    "{name}": "extras_present"\n' for name in failing)
    manifest.write_text(head + "\ntest_case_diffs:\n" + ("  no_extras:\n" + diffs if diffs
                                                        else "  {}\n"), encoding="utf-8")
    loaded, problems = load_scenario(scenario)
    assert loaded is not None and len(loaded.test_cases) == cases, problems
    exercise = folder / "exercise.json"
    exercise.write_bytes(orjson.dumps(loaded.athena_exercise().wire()))
    expected = folder / "expected.json"
    expected.write_text(json.dumps({c.name: list(c.expected) for c in loaded.test_cases}),
                        encoding="utf-8")
    return {"scenario": scenario, "cases": scenario / "test_cases", "expected": expected,
            "exercise": exercise}


# ----------------------------------------------------------------------------- measuring

@dataclass
class Sample:
    wall: float
    cpu: float
    user: float
    sys: float
    rss_mb: float
    rc: int
    server_cpu: float
    ok: bool
    note: str = ""


@dataclass
class Item:
    """One thing to time: a command with a check of its result."""

    name: str
    tool: str
    kind: str  # "start-up", "tasks", "scenario"
    cases: int
    command: Callable[[Path], list[str]]
    """The command line, given a fresh folder for this run's output."""
    check: Callable[[Path, str], tuple[bool, str]] | None = None
    """(passed, note) from this run's folder and standard output."""
    env: dict[str, str] = field(default_factory=dict)
    server: str | None = None  # key of the server whose request count must grow by `cases`
    repeat: int = 1  # runs per round
    tolerate: Callable[[int, str], str | None] | None = None
    """From a non-zero exit code and the standard error: a note when the run counts all the
    same (its result files are then checked as usual)."""
    samples: list[Sample] = field(default_factory=list)
    timeout: float = 1800.0


def proc_cpu(pid: int) -> float:
    """User+sys CPU seconds of a running process (Linux /proc), 0 where unknown."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


class Servers:
    """The fast servers, each its own process: key → (process, URL)."""

    def __init__(self) -> None:
        self.procs: dict[str, tuple[subprocess.Popen[str], str]] = {}

    def start(self, key: str, kind: str, latency: float) -> str:
        if kind == "openai":
            proc, url = start_server("fast_openai_server.py", latency, "--answer", ANSWER)
        else:
            proc, url = start_server("fast_athena_server.py", latency)
        self.procs[key] = (proc, url)
        return url

    def url(self, key: str) -> str:
        return self.procs[key][1]

    def requests(self, key: str) -> int:
        return server_requests(self.procs[key][1])

    def cpu(self) -> float:
        return sum(proc_cpu(p.pid) for p, _ in self.procs.values())

    def stop(self, key: str | None = None) -> None:
        for k in [key] if key else list(self.procs):
            proc, _ = self.procs.pop(k)
            proc.terminate()
            proc.wait()


@dataclass
class Usage:
    wall: float
    user: float
    sys: float
    maxrss_kb: int


def measure(cmd: Sequence[str], *, cwd: Path, env: dict[str, str], out: Path,
            timeout: float) -> tuple[Usage, int]:
    """Run ``cmd`` through ``_spawn.py`` (so that its peak RSS is its own); its wall time,
    resource usage (``os.wait4``) and exit code. Its output goes to files in ``out``."""
    result = out / "usage.json"
    launcher = [sys.executable, "-I", "-S", str(BENCH / "_spawn.py"), str(result),
                str(timeout), "--", *cmd]
    with (out / "stdout.txt").open("wb") as so, (out / "stderr.txt").open("wb") as se:
        proc = subprocess.Popen(launcher, cwd=cwd, env=env, stdout=so, stderr=se,
                                stdin=subprocess.DEVNULL)
        try:
            rc = proc.wait()
        finally:
            if proc.returncode is None:  # interrupted: the launcher kills the command
                proc.terminate()
                proc.wait()
    got = json.loads(result.read_text())
    return Usage(got["wall"], got["user"], got["sys"], got["maxrss_kb"]), rc


class Bench:
    def __init__(self, args: argparse.Namespace, work: Path, servers: Servers) -> None:
        self.args = args
        self.work = work
        self.servers = servers
        self.counter = 0
        # bytecode cached as in a user's installation: with PYTHONDONTWRITEBYTECODE set,
        # every start compiles the modules of an editable install from source again
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        tmp = work / "tmp"
        tmp.mkdir(parents=True, exist_ok=True)
        self.env.update({
            "TMPDIR": str(tmp), "OPENAI_API_KEY": API_KEY, "NO_COLOR": "1",
            # Inspect AI's openai-api provider: service "bench" reads BENCH_API_KEY
            "BENCH_API_KEY": API_KEY,
            "PROMPTFOO_DISABLE_TELEMETRY": "1", "PROMPTFOO_DISABLE_UPDATE": "1",
            # promptfoo exits 100 when a test fails (10 % do here); Eunomia exits 0
            "PROMPTFOO_FAILED_TEST_EXIT_CODE": "0",
        })

    def run(self, item: Item) -> Sample:
        self.counter += 1
        out = self.work / "runs" / f"{self.counter:04d}-{item.name}"
        out.mkdir(parents=True)
        env = {**self.env, **item.env}
        if "PROMPTFOO_CONFIG_DIR" in item.env:  # a fresh promptfoo home (database) per run
            env["PROMPTFOO_CONFIG_DIR"] = str(out / "promptfoo-home")
        before = self.servers.requests(item.server) if item.server else 0
        server_cpu0 = self.servers.cpu()
        usage, rc = measure(item.command(out), cwd=out, env=env, out=out,
                            timeout=item.timeout)
        wall = usage.wall
        server_cpu = self.servers.cpu() - server_cpu0
        ok, notes = rc == 0, [] if rc == 0 else [f"exit {rc}"]
        if rc != 0:
            stderr = (out / "stderr.txt").read_text(errors="replace")
            tolerated = item.tolerate(rc, stderr) if item.tolerate is not None else None
            if tolerated is not None:
                ok, notes = True, [tolerated]
            else:
                notes.append((stderr.strip().splitlines() or ["(no output)"])[-1][:200])
        if item.check is not None and ok:
            stdout = (out / "stdout.txt").read_text(errors="replace")
            try:
                passed, note = item.check(out, stdout)
            except Exception as exc:  # a result file missing or unreadable
                passed, note = False, f"check failed: {type(exc).__name__}: {exc}"
            ok = ok and passed
            if note:
                notes.append(note)
        if item.server:
            served = self.servers.requests(item.server) - before
            if served != item.cases:
                ok = False
                notes.append(f"server answered {served} requests for {item.cases} cases")
        sample = Sample(wall=wall, cpu=usage.user + usage.sys, user=usage.user,
                        sys=usage.sys, rss_mb=usage.maxrss_kb / 1024, rc=rc,
                        server_cpu=server_cpu, ok=ok, note="; ".join(notes))
        item.samples.append(sample)
        print(f"  {item.name:<28} wall {wall:7.2f} s  cpu {sample.cpu:7.2f} s  "
              f"rss {sample.rss_mb:5.0f} MB  server {server_cpu:5.2f} s  "
              f"{'ok' if ok else 'NOT OK'} {sample.note}", flush=True)
        return sample


# ----------------------------------------------------------------------------- checks

def passes_check(cases: int) -> Callable[[int], tuple[bool, str]]:
    want = expected_passes(cases)

    def check(passed: int) -> tuple[bool, str]:
        return passed == want, "" if passed == want else f"{passed} passed, {want} expected"

    return check


def eunomia_eval_check(cases: int) -> Callable[[Path, str], tuple[bool, str]]:
    def check(out: Path, _stdout: str) -> tuple[bool, str]:
        data = json.loads((out / "res" / "bench" / "tasks_results.json").read_text())
        return passes_check(cases)(int(data["overall"]["checks_passed"]))

    return check


def eunomia_run_check(cases: int) -> Callable[[Path, str], tuple[bool, str]]:
    def check(out: Path, _stdout: str) -> tuple[bool, str]:
        path = out / "res" / "bench" / "bench" / "scenario_results.json"
        return passes_check(cases)(int(json.loads(path.read_text())["fully_correct_cases"]))

    return check


def plain_check(cases: int) -> Callable[[Path, str], tuple[bool, str]]:
    def check(_out: Path, stdout: str) -> tuple[bool, str]:
        counts = json.loads(stdout.strip().splitlines()[-1])
        return passes_check(cases)(int(counts["passed"]))

    return check


def inspect_check(python: Path, cases: int) -> Callable[[Path, str], tuple[bool, str]]:
    """Reads the accuracy from the log with Inspect AI's own Python (its log is compressed
    with zstd, which this Python may not read)."""
    code = ("import glob, sys; from inspect_ai.log import read_eval_log; "
            "h = read_eval_log(glob.glob(sys.argv[1] + '/*.eval')[0], header_only=True); "
            "print(h.status, h.results.completed_samples, "
            "h.results.scores[0].metrics['accuracy'].value)")

    def check(out: Path, _stdout: str) -> tuple[bool, str]:
        text = subprocess.run([str(python), "-c", code, str(out / "logs")], check=True,
                              capture_output=True, text=True).stdout.split()
        status, done, accuracy = text[0], int(text[1]), float(text[2])
        if status != "success" or done != cases:
            return False, f"status {status}, {done} of {cases} samples"
        return passes_check(cases)(round(accuracy * cases))

    return check


def promptfoo_check(cases: int) -> Callable[[Path, str], tuple[bool, str]]:
    def check(out: Path, _stdout: str) -> tuple[bool, str]:
        stats = json.loads((out / "out.json").read_text())["results"]["stats"]
        if stats["errors"]:
            return False, f"{stats['errors']} errors"
        return passes_check(cases)(int(stats["successes"]))

    return check


# ----------------------------------------------------------------------------- the plan

def find_tool(option: str | None, env_var: str, name: str, beside: Path | None) -> Path | None:
    given = option or os.environ.get(env_var)
    if given:
        path = Path(given)
        return path if path.exists() else None
    if beside is not None and (beside / name).exists():
        return beside / name
    found = shutil.which(name)
    return Path(found) if found else None


def version_of(cmd: list[str]) -> str:
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    except OSError:
        return "?"
    lines = [x for x in (out.stdout + out.stderr).splitlines()
             if x.strip() and x[0].isdigit()]
    return lines[0].strip() if lines else (out.stdout.strip().splitlines() or ["?"])[0]


@dataclass
class Work:
    """The files of one size: task suite, JSON lines, promptfoo config, scenario."""

    cases: int
    files: dict[str, Path]


def eunomia_items(eunomia: Path, key: str, work: Work, open_key: str, athena_key: str,
                  servers: Servers, args: argparse.Namespace, repeat: int) -> list[Item]:
    n, f = work.cases, work.files
    conc = str(args.concurrency)
    return [
        Item(f"eunomia eval {key}", "eunomia", "tasks", n,
             lambda out: [str(eunomia), "eval", str(f["suite"]), "--model", f"openai:{MODEL}",
                          "--judge", "none", "--concurrency", conc, "--results",
                          str(out / "res"), "--run-name", "bench"],
             eunomia_eval_check(n), env={"OPENAI_BASE_URL": servers.url(open_key)},
             server=open_key, repeat=repeat),
        Item(f"eunomia run {key}", "eunomia", "scenario", n,
             lambda out: [str(eunomia), "run", str(f["scenario"]), "--server-url",
                          servers.url(athena_key), "--concurrency", conc, "--results",
                          str(out / "res"), "--run-name", "bench"],
             eunomia_run_check(n), server=athena_key, repeat=repeat),
    ]


def plain_items(key: str, work: Work, open_key: str, athena_key: str, servers: Servers,
                args: argparse.Namespace, repeat: int) -> list[Item]:
    n, f = work.cases, work.files
    py, script = sys.executable, str(BENCH / "plain_loop.py")
    conc = str(args.concurrency)
    return [
        Item(f"plain tasks {key}", "plain loop", "tasks", n,
             lambda out: [py, script, "tasks", str(f["suite"]), "--base-url",
                          servers.url(open_key), "--model", MODEL, "--concurrency", conc,
                          "--out", str(out / "results.jsonl")],
             plain_check(n), server=open_key, repeat=repeat),
        Item(f"plain scenario {key}", "plain loop", "scenario", n,
             lambda out: [py, script, "scenario", str(f["cases"]), "--url",
                          servers.url(athena_key), "--exercise", str(f["exercise"]),
                          "--expected", str(f["expected"]), "--concurrency", conc,
                          "--out", str(out / "results")],
             plain_check(n), server=athena_key, repeat=repeat),
    ]


def inspect_item(inspect: Path, key: str, work: Work, open_key: str, servers: Servers,
                 args: argparse.Namespace, repeat: int) -> Item:
    n, f = work.cases, work.files

    def command(out: Path) -> list[str]:
        shutil.copy(BENCH / "peers" / "inspect_task.py", out)  # Inspect wants a relative path
        return [str(inspect), "eval", "inspect_task.py", "-T", f"dataset={f['jsonl']}",
                "--model", f"openai-api/bench/{MODEL}", "--model-base-url",
                servers.url(open_key), "--max-connections", str(args.concurrency),
                "--log-dir", str(out / "logs"), "--display", "plain"]

    return Item(f"inspect {key}", "Inspect AI", "tasks", n, command,
                inspect_check(inspect.parent / "python", n), server=open_key, repeat=repeat,
                timeout=args.peer_timeout)


def promptfoo_item(promptfoo: Path, key: str, work: Work, open_key: str,
                   servers: Servers, args: argparse.Namespace, repeat: int) -> Item:
    n, f = work.cases, work.files

    def command(out: Path) -> list[str]:
        config = out / "promptfooconfig.yaml"
        shutil.copy(f[f"promptfoo-{open_key}"], config)
        return [str(promptfoo), "eval", "-c", str(config), "-j", str(args.concurrency),
                "--no-cache", "--no-table", "--no-progress-bar", "-o", str(out / "out.json")]

    return Item(f"promptfoo {key}", "promptfoo", "tasks", n, command, promptfoo_check(n),
                env={"PROMPTFOO_CONFIG_DIR": ""}, server=open_key, repeat=repeat,
                timeout=args.peer_timeout, tolerate=promptfoo_exit_crash)


def promptfoo_exit_crash(rc: int, stderr: str) -> str | None:
    """promptfoo 0.121 on Node.js 20 now and then throws from its log file at exit, after
    the eval and its output file are complete: that run counts (with a note)."""
    if rc == 1 and "write after end" in stderr and "winston" in stderr:
        return "exit 1: promptfoo's logger threw 'write after end' at exit, after the eval"
    return None


# ----------------------------------------------------------------------------- report

def med(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def spread(values: list[float], fmt: str) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return format(values[0], fmt)
    return (f"{format(med(values), fmt)} ({format(min(values), fmt)}–"
            f"{format(max(values), fmt)})")


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} / {five:.2f} / {fifteen:.2f}"


def verdict(ok: bool) -> str:
    return "pass" if ok else "**miss**"


def report(args: argparse.Namespace, items: list[Item], info: dict[str, str],
           skipped: list[str], loads: list[tuple[str, str]]) -> tuple[str, int]:
    by = {i.name: i for i in items}
    n, lat_n = args.cases, args.latency_cases

    def get(name: str) -> Item | None:
        item = by.get(name)
        return item if item is not None and item.samples else None

    lines = [
        f"# Whole-process CLI benchmark ({args.label})" if args.label
        else "# Whole-process CLI benchmark",
        "",
        f"Written by `bench/bench_cli.py` on {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        f", {os.cpu_count()}-core machine ({platform.machine()}, {platform.system()}); "
        f"{args.runs} round(s), the tools interleaved in each round; figures are the median "
        "and (min–max) over the runs. Wall, CPU (user+sys) and peak RSS of the child process "
        "(`os.wait4`), from its start to its exit: start-up, loading, the run, the store and "
        "every export. The servers run apart (their CPU is the *server* column). "
        f"{args.concurrency} in flight; servers answer at once except in the latency table. "
        "On a shared machine wall times depend on the load (below): compare the CPU figures, "
        "and the ratios to the plain loop, which ran in the same rounds under the same load.",
        "",
        "Load average (1 / 5 / 15 min): " + "; ".join(f"{w}: {v}" for w, v in loads) + ".",
        "",
        "Versions: " + ", ".join(f"{k} {v}" for k, v in info.items()) + ".",
        "",
    ]
    if skipped:
        lines += ["Skipped: " + "; ".join(skipped) + ".", ""]
    lines += [f"{note}\n" for note in args.note]

    lines += ["## Every timed command", "",
              "| command | cases | runs | wall s | CPU s (user+sys) | peak RSS MB | server CPU s"
              " | checks |", "| --- | ---: | ---: | --- | --- | --- | --- | --- |"]
    for item in items:
        if not item.samples:
            continue
        s = item.samples
        bad = [x.note or "not ok" for x in s if not x.ok]
        notes = sorted({x.note for x in s if x.ok and x.note})
        state = "ok" if not bad else f"**{len(bad)} of {len(s)} not ok**: {bad[0]}"
        if notes:
            state += " (" + "; ".join(notes) + ")"
        lines.append(f"| `{item.name}` | {item.cases:,} | {len(s)} | "
                     f"{spread([x.wall for x in s], '.2f')} | "
                     f"{spread([x.cpu for x in s], '.2f')} | "
                     f"{spread([x.rss_mb for x in s], '.0f')} | "
                     f"{med([x.server_cpu for x in s]):.2f} | {state} |")

    lines += ["", f"## Per case at {n:,} cases (whole process)", "",
              "| tool | work | cases/s incl. start-up | marginal CPU ms/case | 1-case wall s | "
              "wall vs plain loop | CPU vs plain loop |",
              "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    derived: dict[tuple[str, str], tuple[float, float]] = {}
    rows = [("eunomia", "eval", "eunomia eval"), ("eunomia", "run", "eunomia run"),
            ("plain loop", "tasks", "plain tasks"), ("plain loop", "scenario",
                                                     "plain scenario"),
            ("Inspect AI", "tasks", "inspect"), ("promptfoo", "tasks", "promptfoo")]
    for tool, work, prefix in rows:
        big, one = get(f"{prefix} {n}"), get(f"{prefix} 1")
        if big is None:
            continue
        wall_n, cpu_n = med([x.wall for x in big.samples]), med([x.cpu for x in big.samples])
        rate = n / wall_n
        marginal = ((cpu_n - med([x.cpu for x in one.samples])) / (n - 1) * 1000
                    if one is not None and n > 1 else float("nan"))
        derived[(tool, work)] = (rate, marginal)
        plain = get(f"plain {'tasks' if work in ('eval', 'tasks') else 'scenario'} {n}")
        if plain is not None and plain is not big:
            wr = wall_n / med([x.wall for x in plain.samples])
            cr = cpu_n / med([x.cpu for x in plain.samples])
            ratios = f"{wr:.2f}× | {cr:.2f}×"
        else:
            ratios = "1 | 1"
        one_wall = f"{med([x.wall for x in one.samples]):.2f}" if one is not None else "-"
        lines.append(f"| {tool} | {work} | {rate:,.0f} | {marginal:.3f} | {one_wall} | "
                     f"{ratios} |")

    lines += ["", f"## {lat_n:,} cases at {args.latency * 1000:.0f} ms latency, "
              f"{args.concurrency} in flight", "",
              "| command | wall s | ideal s | wall / ideal | CPU s |",
              "| --- | --- | ---: | ---: | --- |"]
    ideal = lat_n / args.concurrency * args.latency
    for item in items:
        if item.name.endswith(" latency") and item.samples:
            w = [x.wall for x in item.samples]
            lines.append(f"| `{item.name}` | {spread(w, '.2f')} | {ideal:.2f} | "
                         f"{med(w) / ideal:.2f} | {spread([x.cpu for x in item.samples], '.2f')}"
                         " |")

    # targets
    targets: list[tuple[str, str, bool]] = []
    for prefix, what in (("eunomia eval", "eval (tasks)"), ("eunomia run", "run (scenario)")):
        big = get(f"{prefix} {n}")
        key = ("eunomia", prefix.split()[1])
        if big is not None and key in derived:
            rate, marginal = derived[key]
            targets.append((f"{what}: ≥ 1,500 cases/s at {n:,} cases incl. start-up",
                            f"{rate:,.0f} cases/s", rate >= 1500))
            targets.append((f"{what}: ≤ 0.5 ms CPU per case (marginal)",
                            f"{marginal:.3f} ms", marginal <= 0.5))
    for name, limit in (("eunomia --help", 0.3), ("eunomia runs", 0.3),
                        ("eunomia eval 1", 0.6), ("eunomia run 1", 0.6)):
        item = get(name)
        if item is not None:
            w = med([x.wall for x in item.samples])
            targets.append((f"`{name}` ≤ {limit} s wall", f"{w:.2f} s", w <= limit))
    for name in ("eunomia eval latency", "eunomia run latency"):
        item = get(name)
        if item is not None:
            r = med([x.wall for x in item.samples]) / ideal
            targets.append((f"`{name}`: ≤ 1.5 × ideal ({ideal:.1f} s)", f"{r:.2f}×", r <= 1.5))
    all_ok = [x.ok for i in items for x in i.samples]
    targets.append(("every run exited 0 with the expected passes and requests",
                    f"{sum(all_ok)} of {len(all_ok)} runs", all(all_ok)))
    lines += ["", "## Targets (issue 15)", "", "| target | figure | result |",
              "| --- | --- | --- |"]
    lines += [f"| {t} | {fig} | {verdict(ok)} |" for t, fig, ok in targets]
    missed = sum(not ok for _, _, ok in targets)
    lines += ["", "Work: a task suite of N cases, each with one `regex` check (distinct per "
              "case) against an answer of \"The answer is 42.\" (every tenth case expects 43:"
              " 90 % pass); an SGI scenario (examples/scenarios/project_management) with N "
              "test case files (every tenth expects another instruction: 90 % fully correct)."
              " Eunomia: `eval --judge none` and `run`, a fresh results folder (and store) per"
              " run; plain loop: `bench/plain_loop.py` (libyaml loader, aiohttp, `re.search`,"
              " one JSON line per task case, one JSON file per scenario case); Inspect AI: "
              "`inspect eval` of `peers/inspect_task.py` (`openai-api` provider, "
              "`--max-connections`, `--display plain`, its log); promptfoo: `promptfoo eval "
              "-j N --no-cache --no-table --no-progress-bar -o out.json` (`equals`, "
              "`openai:chat` with `apiBaseUrl`, a fresh PROMPTFOO_CONFIG_DIR per run).", ""]
    return "\n".join(lines), missed


# ----------------------------------------------------------------------------- main

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--concurrency", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3, help="rounds (each item once a round)")
    parser.add_argument("--small-repeat", type=int, default=2,
                        help="runs per round of the start-up and 1-case items")
    parser.add_argument("--peer-runs", type=int, default=None,
                        help="rounds in which the peers run at --cases (default: --runs)")
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--latency-cases", type=int, default=1000)
    parser.add_argument("--no-latency", action="store_true", help="skip the latency table")
    parser.add_argument("--no-peers", action="store_true", help="skip Inspect AI and promptfoo")
    parser.add_argument("--eunomia", default=None,
                        help="the eunomia command (env EUNOMIA_BENCH_EUNOMIA; default: beside "
                             "this Python, then PATH)")
    parser.add_argument("--inspect", default=None,
                        help="Inspect AI's inspect command, in its own venv (env "
                             "EUNOMIA_BENCH_INSPECT; default: PATH)")
    parser.add_argument("--promptfoo", default=None,
                        help="promptfoo's command, e.g. DIR/node_modules/.bin/promptfoo (env "
                             "EUNOMIA_BENCH_PROMPTFOO; default: PATH)")
    parser.add_argument("--peer-timeout", type=float, default=1800)
    parser.add_argument("--workdir", type=Path, default=BENCH / ".tmp" / "cli")
    parser.add_argument("--keep", action="store_true", help="keep --workdir afterwards")
    parser.add_argument("--output", type=Path, default=BENCH / "cli.md")
    parser.add_argument("--label", default="", help="title suffix, e.g. baseline")
    parser.add_argument("--note", action="append", default=[],
                        help="a line for the report, e.g. which source the installed eunomia "
                             "was built from (repeatable)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # stop the servers on SIGTERM
    peer_runs = args.runs if args.peer_runs is None else args.peer_runs

    eunomia = find_tool(args.eunomia, "EUNOMIA_BENCH_EUNOMIA", "eunomia",
                        Path(sys.executable).parent)
    if eunomia is None:
        print("eunomia command not found: give --eunomia or EUNOMIA_BENCH_EUNOMIA")
        return 2
    skipped: list[str] = []
    inspect = promptfoo = None
    if not args.no_peers:
        inspect = find_tool(args.inspect, "EUNOMIA_BENCH_INSPECT", "inspect", None)
        promptfoo = find_tool(args.promptfoo, "EUNOMIA_BENCH_PROMPTFOO", "promptfoo", None)
        if inspect is None:
            skipped.append("Inspect AI (not installed: give --inspect or EUNOMIA_BENCH_INSPECT)")
        if promptfoo is None:
            skipped.append("promptfoo (not installed: give --promptfoo or "
                           "EUNOMIA_BENCH_PROMPTFOO)")
    else:
        skipped.append("Inspect AI and promptfoo (--no-peers)")
    for s in skipped:
        print(f"skipping {s}")

    import aiohttp

    info = {"eunomia": version_of([str(eunomia), "version"]),
            "Python": platform.python_version(), "aiohttp (plain loop)": aiohttp.__version__}
    if inspect is not None:
        info["Inspect AI"] = version_of([str(inspect), "--version"])
    if promptfoo is not None:
        info["promptfoo"] = version_of([str(promptfoo), "--version"])
        info["Node.js"] = version_of(["node", "--version"]).lstrip("v")

    work_dir = args.workdir.resolve()
    if work_dir.exists():
        shutil.rmtree(work_dir)
    work_dir.mkdir(parents=True)
    servers = Servers()
    loads = [("start", load())]
    items: list[Item] = []
    try:
        open_url = servers.start("openai", "openai", 0.0)
        servers.start("athena", "athena", 0.0)
        sizes: dict[str, Work] = {}
        for key, n in (("1", 1), (str(args.cases), args.cases)):
            folder = work_dir / f"work-{n}"
            files = {**write_tasks(folder / "tasks", n), **write_scenario(folder / "sgi", n)}
            files["promptfoo-openai"] = promptfoo_config.write(
                folder / "promptfoo-openai.yaml", case_records(n), open_url)
            sizes[key] = Work(n, files)
        bench = Bench(args, work_dir, servers)

        # start-up
        runs_store = work_dir / "runs-store"
        items.append(Item("eunomia --help", "eunomia", "start-up", 0,
                          lambda out: [str(eunomia), "--help"], repeat=args.small_repeat))
        items.append(Item("eunomia runs", "eunomia", "start-up", 0,
                          lambda out: [str(eunomia), "runs", "--results", str(runs_store)],
                          repeat=args.small_repeat))
        for peer, name in ((inspect, "inspect --help"), (promptfoo, "promptfoo --help")):
            if peer is not None:
                items.append(Item(name, name.split()[0], "start-up", 0,
                                  lambda out, p=peer: [str(p), "--help"],
                                  repeat=args.small_repeat))
        for key, work in sizes.items():
            repeat = args.small_repeat if work.cases == 1 else 1
            items += eunomia_items(eunomia, key, work, "openai", "athena", servers, args,
                                   repeat)
            items += plain_items(key, work, "openai", "athena", servers, args, repeat)
            if inspect is not None:
                items.append(inspect_item(inspect, key, work, "openai", servers, args, repeat))
            if promptfoo is not None:
                items.append(promptfoo_item(promptfoo, key, work, "openai", servers, args,
                                            repeat))

        # warm-up (not counted): page cache, compiled bytecode; fills the store of `runs`
        print(f"warm-up (load {load()})", flush=True)
        for key in ("1", str(args.cases)):
            for kind, path, extra in (
                ("eval", sizes[key].files["suite"],
                 ["--model", f"openai:{MODEL}", "--judge", "none"]),
                ("run", sizes[key].files["scenario"],
                 ["--server-url", servers.url("athena")]),
            ):
                subprocess.run([str(eunomia), kind, str(path), *extra, "--concurrency",
                                str(args.concurrency), "--results", str(runs_store),
                                "--run-name", f"warm-{kind}-{key}"],
                               env={**bench.env, "OPENAI_BASE_URL": open_url}, check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for item in items:
            if item.cases <= 1:
                bench.run(item)
                item.samples.clear()

        for r in range(args.runs):
            loads.append((f"round {r + 1}", load()))
            print(f"round {r + 1} of {args.runs} (load {load()})", flush=True)
            for item in items:
                if item.tool in ("Inspect AI", "promptfoo") and item.cases > 1 \
                        and r >= peer_runs:
                    continue
                for _ in range(item.repeat):
                    bench.run(item)

        if not args.no_latency:
            loads.append(("latency", load()))
            servers.stop()
            lat_open = servers.start("lat-openai", "openai", args.latency)
            servers.start("lat-athena", "athena", args.latency)
            n = args.latency_cases
            folder = work_dir / "work-latency"
            files = {**write_tasks(folder / "tasks", n), **write_scenario(folder / "sgi", n)}
            files["promptfoo-lat-openai"] = promptfoo_config.write(
                folder / "promptfoo.yaml", case_records(n), lat_open)
            lat = Work(n, files)
            lat_items = [*eunomia_items(eunomia, "latency", lat, "lat-openai", "lat-athena",
                                        servers, args, 1),
                         *plain_items("latency", lat, "lat-openai", "lat-athena", servers,
                                      args, 1)]
            if inspect is not None:
                lat_items.append(inspect_item(inspect, "latency", lat, "lat-openai", servers,
                                              args, 1))
            if promptfoo is not None:
                lat_items.append(promptfoo_item(promptfoo, "latency", lat, "lat-openai",
                                                servers, args, 1))
            items += lat_items
            print(f"latency {args.latency} s, {n} cases (load {load()})", flush=True)
            for r in range(args.runs):
                for item in lat_items:
                    if item.tool in ("Inspect AI", "promptfoo") and r >= peer_runs:
                        continue
                    bench.run(item)
        loads.append(("end", load()))
    finally:
        servers.stop()
        if not args.keep:
            shutil.rmtree(work_dir, ignore_errors=True)
    text, missed = report(args, items, info, skipped, loads)
    args.output.write_text(text, encoding="utf-8")
    print(text)
    print(f"table in {args.output}; {missed} target(s) missed")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
