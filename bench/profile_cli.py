"""Profile the installed ``eunomia`` command as a whole process (the work of bench_cli.py).

Three parts, written as text to ``--out`` (and a cProfile file per command beside it):

- ``-X importtime`` of ``eunomia --help``, ``eunomia runs`` and a 1-case ``eunomia eval``:
  the total, the top-level packages by cumulative import time, and the heaviest modules
  by their own (self) time;
- cProfile of ``eunomia eval`` (N cases, ``--judge none``) and ``eunomia run`` (N SGI cases)
  against the fast servers, 100 in flight: the top functions by cumulative and by own time,
  and call counts per case of what the CLI is expected to do a bounded number of times
  (regex compilations, pydantic validations and dumps, YAML emitting, executor jobs,
  SQLite statements and commits, files written).

cProfile slows the Python code it traces (about 1.5-2x here), so its times are for the
shares, not the absolute figures (bench_cli.py has those); it counts each resumption of a
coroutine as a call, so call counts of ``async def`` functions are inflated (the exact
counts are of sync functions called once per call). Like bench_cli.py, the children run
without PYTHONDONTWRITEBYTECODE (bytecode cached as in a user's installation).

    .venv/bin/python bench/profile_cli.py --cases 5000 --out profile.txt
    .venv/bin/python bench/profile_cli.py --cases 5000 --out profile.txt --py-spy py-spy

``--py-spy`` also samples both runs with py-spy (``pip install py-spy``, in an environment
of its own): the code runs at its own speed, so its shares per function are the real ones.
"""

from __future__ import annotations

import argparse
import os
import pstats
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import bench_cli  # noqa: E402 - the bench folder is not a package

_IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")

# what to count in a profile: label → predicate on (file, line, function name)
COUNTED: dict[str, str] = {
    "re compilations (re._compile, cached or not)": r"re/__init__\.py:\d+\(_compile\)",
    "regex compiled for real (re._compiler.compile)": r"re/_compiler\.py:\d+\(compile\)",
    "pydantic validations (SchemaValidator.validate_*)": r"validate_(python|json|strings)",
    "pydantic BaseModel.__init__": r"pydantic/main\.py:\d+\(__init__\)",
    "pydantic model_validate": r"pydantic/main\.py:\d+\(model_validate\)",
    "pydantic model_dump / model_dump_json": r"pydantic/main\.py:\d+\(model_dump(_json)?\)",
    "pydantic model_copy": r"pydantic/main\.py:\d+\(model_copy\)",
    "YAML emitter calls (yaml/emitter.py, any function)": r"yaml/emitter\.py",
    "YAML serializer/representer calls": r"yaml/(serializer|representer)\.py",
    "YAML loader calls (yaml/*, C loader excluded)": r"yaml/(composer|constructor|parser|"
                                                     r"scanner|reader|resolver)\.py",
    # sync functions called once per model or target call attempt (exact counts)
    "model call attempts (tasks/_calls.py chat_attempt, sync)": r"tasks/_calls\.py:\d+"
                                                                r"\(chat_attempt\)",
    "target call attempts (executors/_target.py <lambda>, sync)": r"executors/_target\.py:"
                                                                  r"\d+\(<lambda>\)",
    # coroutines: cProfile counts every resumption as a call, so these are inflated
    "executor submit (async; resumptions counted)": r"executors/_base\.py:\d+\(submit\)",
    "call_with_retry (async; resumptions counted)": r"\(call_with_retry\)",
    "sqlite execute": r"method 'execute' of 'sqlite3",
    "sqlite executemany": r"method 'executemany' of 'sqlite3",
    "sqlite commit": r"method 'commit' of 'sqlite3",
    "files opened (io.open)": r"built-in method io\.open|_io\.open",
    "os.replace / rename": r"built-in method posix\.(replace|rename)",
    "orjson dumps": r"built-in method orjson\.dumps",
    "json.dumps (stdlib)": r"json/__init__\.py:\d+\(dumps\)",
    "copy.deepcopy": r"copy\.py:\d+\(deepcopy\)",
    "rich Console.print": r"rich/console\.py:\d+\(print\)",
}


def where(key: tuple[str, int, str]) -> str:
    """``package/module.py:line(function)`` of a pstats key, without this machine's paths."""
    file, line, func = key
    if file == "~":
        return func
    path = file.replace("\\", "/")
    for marker in ("/site-packages/", "/src/"):
        if marker in path:
            return f"{path.split(marker, 1)[1]}:{line}({func})"
    m = re.search(r"/python3\.\d+/(.*)$", path)
    if m:
        return f"stdlib/{m[1]}:{line}({func})"
    return f"{Path(path).name}:{line}({func})"


def package(fn: str) -> str:
    if fn.startswith("<"):
        return "(C functions and builtins)" if "built-in" in fn or "method" in fn \
            else fn.split(">")[0] + ">"
    head = fn.split("/")[0].split(":")[0]
    return head


def importtime(cmd: list[str], env: dict[str, str], cwd: Path, top: int) -> str:
    """Run ``cmd`` under ``-X importtime``; a summary of its import costs."""
    err = subprocess.run([sys.executable, "-X", "importtime", *cmd], env=env, cwd=cwd,
                         capture_output=True, text=True, check=False).stderr
    rows = []
    for line in err.splitlines():
        m = _IMPORT_LINE.match(line)
        if m:
            rows.append((int(m[1]), int(m[2]), len(m[3]), m[4]))
    base = min((r[2] for r in rows), default=0)
    total = sum(r[1] for r in rows if r[2] == base)
    by_package: dict[str, int] = defaultdict(int)
    for self_us, _, _, name in rows:
        by_package[name.split(".")[0]] += self_us
    lines = [f"$ {' '.join(Path(c).name if i == 0 else c for i, c in enumerate(cmd))}",
             f"  total import time {total / 1000:.0f} ms, {len(rows)} modules",
             "  by top-level package (sum of self times, ms):"]
    for name, us in sorted(by_package.items(), key=lambda x: -x[1])[:top]:
        count = sum(1 for r in rows if r[3].split(".")[0] == name)
        lines.append(f"    {name:<28} {us / 1000:7.1f}  ({count} modules)")
    lines.append("  eunomia modules by cumulative time (ms; includes what they import):")
    own = sorted((r for r in rows if r[3].startswith("eunomia")), key=lambda r: -r[1])
    for self_us, cum_us, _, name in own[:top]:
        lines.append(f"    {name:<44} cum {cum_us / 1000:7.1f}  self {self_us / 1000:6.1f}")
    lines.append("  heaviest modules by self time (ms):")
    for self_us, _, _, name in sorted(rows, key=lambda r: -r[0])[:top]:
        lines.append(f"    {name:<44} {self_us / 1000:7.1f}")
    return "\n".join(lines)


def profile(cmd: list[str], env: dict[str, str], cwd: Path, prof: Path, cases: int,
            top: int) -> str:
    """Run ``cmd`` under cProfile; top functions and per-case counts."""
    subprocess.run([sys.executable, "-m", "cProfile", "-o", str(prof), *cmd], env=env,
                   cwd=cwd, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    stats = pstats.Stats(str(prof))
    raw = stats.stats  # type: ignore[attr-defined]
    total = stats.total_tt  # type: ignore[attr-defined]
    lines = [f"$ {' '.join(Path(c).name if i == 0 else c for i, c in enumerate(cmd))}",
             f"  profiled time {total:.2f} s = {1000 * total / cases:.3f} ms per case "
             f"({cases} cases; cProfile overhead included)"]

    rows = [(where(k), v[0], v[1], v[2], v[3]) for k, v in raw.items()]  # cc, nc, tt, ct
    lines.append(f"  top {top} by cumulative time (ms per case | calls per case | function):")
    for fn, _cc, nc, _tt, ct in sorted(rows, key=lambda r: -r[4])[:top]:
        lines.append(f"    {1000 * ct / cases:8.3f} {nc / cases:9.2f}  {fn}")
    lines.append(f"  top {top} by own time (ms per case | calls per case | function):")
    for fn, _cc, nc, tt, _ct in sorted(rows, key=lambda r: -r[3])[:top]:
        lines.append(f"    {1000 * tt / cases:8.3f} {nc / cases:9.2f}  {fn}")
    lines.append("  counted (calls per case | own+callees ms per case | what):")
    for label, pattern in COUNTED.items():
        rx = re.compile(pattern)
        hits = [r for r in rows if rx.search(r[0])]
        calls = sum(r[2] for r in hits)
        cum = max((r[4] for r in hits), default=0.0) if len(hits) == 1 else \
            sum(r[3] for r in hits)  # several functions: own times summed
        lines.append(f"    {calls / cases:9.2f} {1000 * cum / cases:8.3f}  {label}")
    by_package: dict[str, float] = defaultdict(float)
    for fn, _cc, _nc, tt, _ct in rows:
        by_package[package(fn)] += tt
    lines.append("  own time by package (ms per case):")
    for pkg, tt in sorted(by_package.items(), key=lambda x: -x[1])[:top]:
        lines.append(f"    {1000 * tt / cases:8.3f}  {pkg}")
    return "\n".join(lines)


_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::(?P<line>\d+))?\)$")


def _frame_name(frame: str) -> str:
    """``package/module.py(function)`` of a py-spy frame, without this machine's paths."""
    m = _FRAME.match(frame.strip())
    if not m:
        return frame.strip()
    file = m["file"].replace("\\", "/")
    for marker in ("/site-packages/", "/src/"):
        if marker in file:
            file = file.split(marker, 1)[1]
            break
    else:
        py = re.search(r"/python3\.\d+/(.*)$", file)
        file = f"stdlib/{py[1]}" if py else Path(file).name
    return f"{file}({m['func']})"


def sampled(cmd: list[str], env: dict[str, str], cwd: Path, py_spy: str, raw: Path,
            cases: int, top: int) -> str:
    """Run ``cmd`` under py-spy (sampling: the Python code runs at its own speed); the share
    of the samples by function, inclusive (on the stack) and own (the running frame)."""
    rate = 250
    subprocess.run([py_spy, "record", "-r", str(rate), "-f", "raw", "--full-filenames",
                    "-o", str(raw), "--",
                    sys.executable, *cmd], env=env, cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    inclusive: dict[str, int] = defaultdict(int)
    own: dict[str, int] = defaultdict(int)
    total = 0
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        total += n
        frames = [_frame_name(f) for f in stack.split(";")]
        for name in set(frames):
            inclusive[name] += n
        own[frames[-1]] += n
    ms = 1000 / rate / cases  # one sample, in ms per case
    lines = [f"$ py-spy record -r {rate} -- "
             + " ".join(Path(c).name if i == 0 else c for i, c in enumerate(cmd)),
             f"  {total} samples = {total / rate:.2f} s not idle = {total * ms:.3f} ms per case "
             f"({cases} cases; every thread; a thread waiting for a CPU on a busy machine "
             "counts as not idle, so use the shares)",
             f"  top {top} inclusive (ms per case | % | function):"]
    for name, n in sorted(inclusive.items(), key=lambda x: -x[1])[:top]:
        lines.append(f"    {n * ms:7.3f} {100 * n / total:5.1f}%  {name}")
    lines.append(f"  top {top} own (ms per case | % | function):")
    for name, n in sorted(own.items(), key=lambda x: -x[1])[:top]:
        lines.append(f"    {n * ms:7.3f} {100 * n / total:5.1f}%  {name}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=5000)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--eunomia", default=None,
                        help="the eunomia command (env EUNOMIA_BENCH_EUNOMIA; default: beside "
                             "this Python, then PATH)")
    parser.add_argument("--workdir", type=Path, default=BENCH / ".tmp" / "profile")
    parser.add_argument("--out", type=Path, required=True, help="the text summary")
    parser.add_argument("--py-spy", default=None,
                        help="py-spy command: also sample the eval and run with it (the "
                             "code runs at its own speed: the shares are the real ones)")
    args = parser.parse_args()
    eunomia = bench_cli.find_tool(args.eunomia, "EUNOMIA_BENCH_EUNOMIA", "eunomia",
                                  Path(sys.executable).parent)
    if eunomia is None:
        print("eunomia command not found")
        return 2
    work = args.workdir.resolve()
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    (work / "tmp").mkdir()
    servers = bench_cli.Servers()
    sections = []
    try:
        open_url = servers.start("openai", "openai", 0.0)
        athena_url = servers.start("athena", "athena", 0.0)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env = {**env, "TMPDIR": str(work / "tmp"), "OPENAI_API_KEY": "bench",
               "OPENAI_BASE_URL": open_url}
        one = bench_cli.write_tasks(work / "one", 1)
        tasks = bench_cli.write_tasks(work / "tasks", args.cases)
        sgi = bench_cli.write_scenario(work / "sgi", args.cases)
        store = work / "store"
        warm = [str(eunomia), "eval", str(one["suite"]), "--model", "openai:bench",
                "--judge", "none", "--results", str(store), "--run-name", "warm"]
        subprocess.run(warm, env=env, check=True, capture_output=True)  # and a run to list
        sections.append(importtime([str(eunomia), "--help"], env, work, args.top))
        sections.append(importtime([str(eunomia), "runs", "--results", str(store)], env, work,
                                   args.top))
        sections.append(importtime([str(eunomia), "eval", str(one["suite"]), "--model",
                                    "openai:bench", "--judge", "none", "--results",
                                    str(work / "res-import"), "--run-name", "one"],
                                   env, work, args.top))
        out_dir = args.out.resolve().parent
        for kind, cmd in (
            ("eval", [str(eunomia), "eval", str(tasks["suite"]), "--model", "openai:bench",
                      "--judge", "none", "--concurrency", "100", "--results",
                      str(work / "res-eval"), "--run-name", "prof"]),
            ("run", [str(eunomia), "run", str(sgi["scenario"]), "--server-url", athena_url,
                     "--concurrency", "100", "--results", str(work / "res-run"),
                     "--run-name", "prof"]),
        ):
            sections.append(profile(cmd, env, work, out_dir / f"cli-{kind}.prof", args.cases,
                                    args.top))
            if args.py_spy:
                cmd = [*cmd[:-1], f"{cmd[-1]}-sampled"]  # a new run name, a new folder
                cmd[cmd.index("--results") + 1] += "-sampled"
                sections.append(sampled(cmd, env, work, args.py_spy,
                                        out_dir / f"cli-{kind}.py-spy.txt", args.cases,
                                        args.top))
    finally:
        servers.stop()
        shutil.rmtree(work, ignore_errors=True)
    args.out.write_text("\n\n".join(sections) + "\n", encoding="utf-8")
    print("\n\n".join(sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
