"""Agreement with the tutors and credit expectations: one figure, one value in every view of
a scenario run (as ``test_figures_agree.py`` does for task runs). ``eunomia run`` as a user
runs it, on the bundled real data: the tutor-graded Artemis submissions replayed with their
recorded feedback (``--target recorded``) beside ``baseline:default`` (12 and 8 graded cases:
above and below the cases an interval needs), and the Athena module tests' credit
expectations. Each figure is read from the terminal's summary table, the ``--summary-md``
file, the ``--junit`` suite properties, ``scenario_results.json`` and the HTML report, and
compared.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
import xmlschema
from tests.support.cli import run_cli

ROOT = Path(__file__).resolve().parents[2]
TUTOR_GRADED = ROOT / "examples" / "athena" / "tutor_graded"
MODULE_TESTS = ROOT / "examples" / "athena" / "module_tests"
WIDE = {"COLUMNS": "400"}
JUNIT_SCHEMA = ROOT / "tests" / "ci" / "junit-10.xsd"
TOO_FEW = "too few cases to tell (8 cases; at least 10 are needed)"
PEARSON = "Pearson r vs Tutors (95% CI)"
SPEARMAN = "Spearman rho vs Tutors (95% CI)"
MAD = "Mean Absolute Difference vs Tutors (% of max points)"
CREDITS = "Credit Expectations Met"


def _run(folder: Path, tmp: Path, name: str, *targets: str) -> str:
    proc = run_cli("run", folder, *(a for t in targets for a in ("--target", t)),
                   "--run-name", name, "--summary-md", tmp / f"{name}.md",
                   "--junit", tmp / f"{name}.xml", cwd=tmp, env=WIDE, timeout=180)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout


def _terminal(out: str) -> dict[tuple[str, str], dict[str, str]]:
    """(target folder, scenario) -> the scenario's summary table (metric -> value), each
    table read up to the ``Results: <folder>`` line that follows it."""
    tables: dict[tuple[str, str], dict[str, str]] = {}
    rows: dict[str, str] = {}
    last = ""
    for line in out.splitlines():
        cells = [c.strip() for c in line.strip().strip("│").split("│")]
        if line.startswith("│") and len(cells) == 2 and cells[0]:
            last = cells[0]
            rows[last] = cells[1]
        elif line.startswith("│") and len(cells) == 2 and last:  # a cell's next line
            rows[last] = f"{rows[last]} {cells[1]}".strip()
        elif line.startswith("Results: "):
            path = Path(line.removeprefix("Results: ").strip())
            tables[(path.parent.name, path.name)] = rows
            rows = {}
    return tables


def _markdown(text: str) -> dict[str, dict[str, str]]:
    """``target / scenario`` (or "" for a run of one) -> its figures (label -> text)."""
    found: dict[str, dict[str, str]] = {}
    where = ""
    for line in text.splitlines():
        plain = re.sub(r"\\(.)", r"\1", line)
        if re.fullmatch(r"\*\*[^*]+ / [^*]+\*\*", plain):
            where = plain.strip("*")
        elif plain.startswith("- ") and ": " in plain and where is not None:
            label, _, value = plain[2:].partition(": ")
            found.setdefault(where, {})[label] = value
        elif plain.startswith("**Warnings**") or plain.startswith("**Notes**"):
            where = "-"
    return found


def _junit(path: Path) -> dict[str, dict[str, str]]:
    """Test suite name (``scenario [target]``) -> its properties."""
    xmlschema.XMLSchema(JUNIT_SCHEMA).validate(path)  # the properties keep the file valid
    root = ET.parse(path).getroot()
    return {s.get("name") or "": {p.get("name") or "": p.get("value") or ""
                                  for p in s.iter("property")}
            for s in root.iter("testsuite")}


def _json(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def test_tutor_agreement_is_the_same_in_every_view(tmp_path: Path) -> None:
    out = _run(TUTOR_GRADED, tmp_path, "tg", "recorded", "baseline:default")
    terminal = _terminal(out)
    text = (tmp_path / "tg.md").read_text(encoding="utf-8")
    markdown = _markdown(text)
    assert "cost, latency and failures are still measured" in text  # the warning, whole
    junit = _junit(tmp_path / "tg.xml")
    scenarios = {"car_rental_14676": 12, "smart_speaker_15949": 8}
    for target, folder in (("recorded", "recorded"), ("baseline:default", "baseline_default")):
        for scenario, n in scenarios.items():
            rows = terminal[(folder, scenario)]
            figures = markdown[f"{target} / {scenario}"]
            props = junit[f"{scenario} [{target}]"]
            data = _json(tmp_path / "results" / "tg" / folder / scenario /
                         "scenario_results.json")["tutor_agreement"]
            assert rows["Tutor-Graded Cases Compared"] == f"{n} of {n}"
            assert (props["tutor_cases"], props["tutor_graded_cases"]) == (str(n), str(n))
            assert data["cases"] == n
            # the same words in the terminal, the Markdown summary and the properties
            for label, key in ((PEARSON, "tutor_pearson_text"),
                               (SPEARMAN, "tutor_spearman_text"),
                               (MAD, "tutor_mean_absolute_difference_percent_text")):
                assert figures[label] == rows[label] == props[key], (target, scenario, label)
            assert props["tutor_too_few"] == ("true" if n < 10 else "false")
            assert (TOO_FEW in rows[MAD]) is (n < 10)  # said wherever a figure has few cases
            mad = data["mean_absolute_difference_percent"]
            assert float(props["tutor_mean_absolute_difference_percent"]) == \
                pytest.approx(mad["estimate"], rel=1e-5)
            assert float(props["tutor_mean_absolute_difference_percent_ci_low"]) == \
                pytest.approx(mad["low"], rel=1e-5)
            assert rows[MAD].startswith(f"{mad['estimate']:.3g}")
            r = data["pearson"]
            if target == "baseline:default":  # 0 points everywhere: no coefficient, not 0
                assert r["estimate"] is None and "tutor_pearson" not in props
                assert rows[PEARSON] == f"- (undefined: one side has no spread; n={n})"
                continue
            assert float(props["tutor_pearson"]) == pytest.approx(r["estimate"], rel=1e-5)
            assert float(props["tutor_pearson_ci_high"]) == pytest.approx(r["high"], rel=1e-5)
            assert float(props["tutor_pearson_fisher_low"]) == \
                pytest.approx(r["fisher_low"], rel=1e-5)
            assert rows[PEARSON].startswith(f"{r['estimate']:.3f}")
            assert f"[{r['fisher_low']:.2f}, {r['fisher_high']:.2f}] Fisher z" in rows[PEARSON]
            assert (TOO_FEW in rows[PEARSON]) is (n < 10)
    # the HTML report says the same estimates, and too few where the terminal does
    page = tmp_path / "tg.html"
    proc = run_cli("report", "tg", "--output", page, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    html = page.read_text(encoding="utf-8")
    few = _json(tmp_path / "results" / "tg" / "recorded" / "smart_speaker_15949" /
                "scenario_results.json")["tutor_agreement"]["pearson"]
    assert f'<td>Pearson r</td><td class="n">{few["estimate"]:.3f}</td>' in html
    assert "too few cases to tell (8 cases; at least 10 are needed);" in html


def test_credit_expectations_are_the_same_in_every_view(tmp_path: Path) -> None:
    out = _run(MODULE_TESTS, tmp_path, "mt", "baseline:default")
    terminal = _terminal(out)
    text = (tmp_path / "mt.md").read_text(encoding="utf-8")
    junit = _junit(tmp_path / "mt.xml")
    for scenario in ("athena_test_ecommerce", "athena_test_hospital"):
        rows = terminal[("mt", scenario)]
        props = junit[scenario]  # one target: the suite is the scenario
        data = _json(tmp_path / "results" / "mt" / scenario /
                     "scenario_results.json")["credit_expectations"]
        words = (f"{data['met']}/{data['checked']} ({data['cases_all_met']}/{data['cases']} "
                 "cases meet all)")
        assert rows[CREDITS] == words == props["credit_expectations_text"]
        assert (props["credit_expectations_met"], props["credit_expectations_checked"]) == \
            (str(data["met"]), str(data["checked"]))
        assert props["cases_meeting_all_credit_expectations"] == str(data["cases_all_met"])
        assert data["met"] < data["checked"]  # the baseline misses some: a figure that tells
        assert "tutor_cases" not in props  # no tutor grades here: no agreement figures
    # a run of one target: the figures are listed once per scenario, under its name
    figures = _markdown(text)
    assert figures["baseline:default / athena_test_ecommerce"][CREDITS] == \
        terminal[("mt", "athena_test_ecommerce")][CREDITS]
