"""Benchmark of issue 29: generated test cases and what a scenario's size can tell.

1. Speed: ``eunomia mutate`` as a user runs it (the whole process: start, load, generate,
   write) on both bundled scenarios, in mutants per second, and the generation alone
   in-process (the breakdown).
2. Validity: every mutant written is checked against its example solution (ids, owners,
   member lists, relationship ends, bounds without new overlaps) and by ``eunomia
   validate``: the target is 100%.
3. Detection: ``eunomia run`` of the example module and of ``baseline:default`` on the
   hand-made cases and on generated ones, with the detection rate and the mean case score
   with their 95% intervals (cases resampled), and the example module's detection per
   operator on the generated cases.
4. Interval width: the 95% interval of the mean case score and the minimum detectable
   effect at 14, 37 and 200 cases.
5. A/A: two runs of one unchanged but non-deterministic system (``noisy_athena_server.py``:
   the example module's grading with each item moved to another instruction of its
   criterion with probability ``--flip``), compared with ``eunomia compare``, ``--pairs``
   times: how often the verdict says regression or improvement, and how often a case's
   detection flips between the two runs.

    python bench/bench_mutate.py                   # everything, prints a Markdown report
    python bench/bench_mutate.py --pairs 0         # without the A/A runs

Exit code 1 when a mutant is invalid (validity below 100%).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

from eunomia.apollon.mutate import mutant_problems
from eunomia.mutation import generate
from eunomia.scenarios import load_scenario
from eunomia.scoring import case_diffs, groups_of
from eunomia.stats import Interval, bootstrap_mean_ci, cluster_mean_ci, score_power

ROOT = Path(__file__).resolve().parents[1]
PM = ROOT / "examples" / "scenarios" / "project_management"
LOAN = ROOT / "examples" / "bpmn" / "bpmn_loan"
BENCH = Path(__file__).resolve().parent


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


SPEED: dict[str, str] = {}
"""Mutants per second of each ``eunomia mutate`` run, for the summary line."""
LAST_CPU = [0.0]
"""CPU seconds of the last command run by :func:`eunomia`."""


def eunomia(*args: str | Path, cwd: Path, timeout: float = 600) -> tuple[float, str]:
    """The installed command as a process: (wall seconds, standard output); its CPU
    seconds in ``LAST_CPU[0]``."""
    cpu = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "eunomia", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=timeout, check=False,
                          env={**os.environ, "NO_COLOR": "1"})
    wall = time.perf_counter() - started
    LAST_CPU[0] = _children_cpu() - cpu
    if done.returncode not in (0, 1):
        raise SystemExit(f"eunomia {' '.join(map(str, args))} failed ({done.returncode}):\n"
                         f"{done.stdout}\n{done.stderr}")
    return wall, done.stdout


def _ci(i: Interval | None, scale: float = 1.0, unit: str = "") -> str:
    if i is None:
        return "-"
    if i.too_few:
        return f"{scale * i.estimate:.1f}{unit} (too few cases to tell, n={i.n})"
    return (f"{scale * i.estimate:.1f}{unit} [{scale * i.low:.1f}, {scale * i.high:.1f}] "
            f"(n={i.n})")


def speed_and_validity(work: Path, count: int) -> tuple[list[str], dict[str, Path], bool]:
    lines = ["## Speed and validity", "",
             "| scenario | mutants | `eunomia mutate` wall (CPU) | mutants/s (whole process, "
             "per CPU-second) | generation in-process | mutants/s (in-process) | valid |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    outputs: dict[str, Path] = {}
    all_valid = True
    for name, folder, k in (("project_management", PM, 2), ("bpmn_loan", LOAN, 2),
                            ("project_management", PM, 3)):
        n = count if k == 2 else 5 * count
        out = work / f"{name}_{n}"
        wall, _ = eunomia("mutate", folder, "--count", str(n), "--output", out, "--seed", "1",
                          "--max-mutations", str(k), cwd=work)
        cpu = LAST_CPU[0]
        scenario, _ = load_scenario(folder)
        assert scenario is not None
        started = time.perf_counter()
        generate(scenario, n, seed=1, max_per_case=k)
        inside = time.perf_counter() - started
        solution = json.loads((out / "example_solution.json").read_text(encoding="utf-8"))
        files = sorted((out / "test_cases").glob("*.json"))
        valid = sum(not mutant_problems(solution, json.loads(f.read_text(encoding="utf-8")))
                    for f in files)
        _, checked = eunomia("validate", out, cwd=work)
        validated = "0 error(s)" in checked
        all_valid &= valid == len(files) == n and validated
        lines.append(f"| {name} (up to {k} a case) | {n} | {wall:.2f} s ({cpu:.2f} s) | "
                     f"{n / wall:,.0f} ({n / cpu:,.0f}) | "
                     f"{inside:.3f} s | {n / inside:,.0f} | {valid}/{len(files)} "
                     f"({100 * valid / max(len(files), 1):.0f}%), validate "
                     f"{'clean' if validated else 'ERRORS'} |")
        outputs.setdefault(name, out)
        SPEED[f"{name} {n}"] = f"{n / wall:,.0f} mutants/s ({n / cpu:,.0f} per CPU-s)"
    return lines, outputs, all_valid


def _rows(folder: Path) -> list[dict[str, str]]:
    with (folder / "tables" / "test_case_results.csv").open(encoding="utf-8") as f:
        return list(csv.DictReader(f))


def run_and_read(work: Path, scenario: Path, target: str, name: str) -> list[dict[str, str]]:
    eunomia("run", scenario, "--target", target, "--results", work / "results",
            "--run-name", name, cwd=work)
    return _rows(work / "results" / name / scenario.name)


def detection(work: Path, generated: dict[str, Path]) -> tuple[list[str], dict[str, list[float]]]:
    lines = ["## Detection on hand-made and generated cases", "",
             "| scenario | cases | target | detected correctly (95% CI) | mean case score % "
             "(95% CI) |", "| --- | ---: | --- | ---: | ---: |"]
    scores: dict[str, list[float]] = {}
    per_operator: list[str] = []
    for label, folder, targets in (
            ("project_management, hand-made", PM, ("example", "baseline:default")),
            ("project_management, generated", generated["project_management"],
             ("example", "baseline:default")),
            ("bpmn_loan, hand-made", LOAN, ("baseline:default",)),
            ("bpmn_loan, generated", generated["bpmn_loan"], ("baseline:default",))):
        for target in targets:
            run_name = f"{folder.name}_{target.replace(':', '_')}"
            rows = run_and_read(work, folder, target, run_name)
            detected = [1.0 if r["Test Case Detected Correctly"] == "Yes" else 0.0 for r in rows]
            values = [float(r["Test Case Score (%)"]) for r in rows]
            names = [r["Test Case"] for r in rows]
            det, score = cluster_mean_ci(detected, names), cluster_mean_ci(values, names)
            scores[f"{label} / {target}"] = values
            lines.append(f"| {label} | {len(set(names))} | {target} | {_ci(det, 100, '%')} | "
                         f"{_ci(score)} |")
            if target == "example" and "generated" in label:
                per_operator = _by_operator(folder, rows)
    return [*lines, "", "The example module on the generated project_management cases, by "
            "operator and by element type changed (a case counts once per group):",
            "", "| group | cases | detected correctly (95% CI) |", "| --- | ---: | ---: |",
            *per_operator], scores


def _by_operator(folder: Path, rows: list[dict[str, str]]) -> list[str]:
    scenario, _ = load_scenario(folder)
    assert scenario is not None
    diffs = case_diffs(scenario)
    detected = {r["Test Case"]: 1.0 if r["Test Case Detected Correctly"] == "Yes" else 0.0
                for r in rows}
    groups: dict[str, list[float]] = {}
    for case in scenario.test_cases:
        for grouping, keys in groups_of(case, diffs.get(case.name)).items():
            if grouping == "change":
                continue
            for key in keys:
                groups.setdefault(f"{grouping}: {key}", []).append(detected[case.name])
    out = []
    for key, values in sorted(groups.items(), key=lambda kv: (kv[0].split(":")[0],
                                                             sum(kv[1]) / len(kv[1]))):
        out.append(f"| {key} | {len(values)} | {_ci(bootstrap_mean_ci(values), 100, '%')} |")
    return out


def widths(scores: dict[str, list[float]]) -> list[str]:
    lines = ["## Interval width and minimum detectable effect by number of cases", "",
             "| cases | from | mean case score % | 95% CI width | MDE at 80% power, alpha "
             "0.05 (points) | cases for a 5-point MDE |", "| ---: | --- | ---: | ---: | ---: "
             "| ---: |"]
    picks = (
        (14, "project_management, hand-made / example"),
        (37, "project_management, generated / example"),
        (37, "bpmn_loan, hand-made / baseline:default"),
        (200, "project_management, generated / example"),
    )
    for n, key in picks:
        values = scores[key][:n]
        interval = bootstrap_mean_ci(values)
        power = score_power(values, effect=5)
        assert interval is not None
        width = interval.high - interval.low
        lines.append(f"| {len(values)} | {key} | {interval.estimate:.1f} | {width:.1f} | "
                     f"{'-' if power.mde is None else f'{power.mde:.1f}'} | {power.needed} |")
    return [*lines, "", "The MDE plans a future comparison of these cases from the spread of "
            "their scores (two runs correlating 0.5); `eunomia compare` states its own "
            "from the spread of the paired differences."]


def _server(flip: float) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, str(BENCH / "noisy_athena_server.py"),
                             "--flip", str(flip)], stdout=subprocess.PIPE, text=True,
                            cwd=BENCH)
    assert proc.stdout is not None
    return proc, json.loads(proc.stdout.readline())["url"]


def aa(work: Path, generated: Path, pairs: int, flip: float) -> list[str]:
    lines = [f"## A/A: two runs of an unchanged non-deterministic system ({pairs} pairs each)",
             "", f"The system: the example module's grading with each feedback item moved to "
             f"another instruction of its criterion with probability {flip} (a new draw for "
             "every request).", "",
             "| scenario | cases | verdicts: regression / improvement / no change | "
             "false verdicts | case detections that flip between the two runs |",
             "| --- | ---: | --- | ---: | ---: |"]
    proc, url = _server(flip)
    try:
        for folder in (PM, generated):
            verdicts: Counter[str] = Counter()
            flips = total = 0
            for i in range(pairs):
                names = []
                rows_by_run = []
                for side in ("a", "b"):
                    name = f"aa_{folder.name}_{i}_{side}"
                    rows_by_run.append(run_and_read(work, folder, f"athena:{url}", name))
                    names.append(name)
                out = work / f"{names[0]}.json"
                eunomia("compare", names[0], names[1], "--results", work / "results",
                        "--json", out, cwd=work)
                verdicts[json.loads(out.read_text(encoding="utf-8"))["verdict"]["kind"]] += 1
                a = {r["Test Case"]: r["Test Case Detected Correctly"] for r in rows_by_run[0]}
                b = {r["Test Case"]: r["Test Case Detected Correctly"] for r in rows_by_run[1]}
                flips += sum(a[k] != b[k] for k in a)
                total += len(a)
            false = verdicts["regression"] + verdicts["improvement"]
            lines.append(f"| {folder.name} | {total // max(pairs, 1)} | "
                         f"{verdicts['regression']} / {verdicts['improvement']} / "
                         f"{verdicts['no_significant_change']} | {false}/{pairs} "
                         f"({100 * false / max(pairs, 1):.0f}%) | {flips}/{total} "
                         f"({100 * flips / max(total, 1):.1f}%) |")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    return [*lines, "", "At alpha 0.05 a two-sided test calls about 5% of A/A comparisons "
            "significant by chance (half of them regressions); more would mean the "
            "tests treat noise as signal."]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--flip", type=float, default=0.15)
    parser.add_argument("--keep", type=Path, help="keep the work folder here")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench_mutate_"))
    work.mkdir(parents=True, exist_ok=True)
    shutil.copy(ROOT / "examples" / "scenarios" / "llm_cost.yml", work / "llm_cost.yml")
    try:
        report, generated, valid = speed_and_validity(work, args.count)
        found, scores = detection(work, generated)
        report += ["", *found, "", *widths(scores)]
        if args.pairs:
            report += ["", *aa(work, generated["project_management"], args.pairs, args.flip)]
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    load = os.getloadavg()[0]
    print(f"# bench_mutate ({time.strftime('%Y-%m-%d %H:%M')}, load average {load:.1f})\n")
    print("\n".join(report))
    summary = ("cases=" + ", ".join(f"{k}: {v}" for k, v in SPEED.items())
               + f"; every mutant valid: {'yes' if valid else 'NO'}")
    print(f"\n{summary}" if valid else f"\n{summary}\nMISS: some mutant is invalid")
    return 0 if valid else 1


if __name__ == "__main__":
    sys.exit(main())
