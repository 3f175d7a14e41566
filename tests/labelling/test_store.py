"""Saving labels: atomically into labels.yml, history kept, a stale save refused, and saves
from several threads or processes at once all kept."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml
from tests.labelling.conftest import all_met
from tests.support.cli import cli_env

from eunomia.errors import EunomiaError
from eunomia.labelling import save_case_label, set_expected
from eunomia.scenarios import load_scenario
from eunomia.scenarios._labels import read_labels


def _labels(folder: Path) -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((folder / "labels.yml").read_text(encoding="utf-8"))


def test_a_save_then_a_stale_save(loan: Path) -> None:
    path = loan / "labels.yml"
    first = save_case_label(path, "02_missing_start_event", "anna", all_met(), "ok", 0)
    assert first.saved and first.label is not None and first.label.revision == 1
    second = save_case_label(path, "02_missing_start_event", "anna",
                             all_met(criterion_3="sgi_6"), "no start", 1)
    assert second.saved and second.label is not None and second.label.revision == 2
    # a form opened before the second save (revision 1) is refused, with the newer label
    stale = save_case_label(path, "02_missing_start_event", "anna", all_met(), "", 1)
    assert not stale.saved and stale.label == second.label
    data = _labels(loan)
    label = data["cases"]["02_missing_start_event"]["anna"]
    assert label["choices"]["criterion_3"] == "sgi_6" and label["revision"] == 2
    assert label["note"] == "no start" and label["at"].endswith("+00:00")
    (old,) = data["history"]
    assert old["revision"] == 1 and old["note"] == "ok" and old["labeller"] == "anna"
    assert old["case"] == "02_missing_start_event" and old["replaced_at"] == label["at"]
    assert (loan / "labels.yml").read_text(encoding="utf-8").startswith("# Labels given with")
    assert not list(loan.glob("*.tmp"))
    labels, _, problems = read_labels(path)
    assert labels is not None and problems == []


def test_threads_saving_at_once_lose_nothing(loan: Path) -> None:
    path = loan / "labels.yml"
    scenario, _ = load_scenario(loan, labels=False)
    assert scenario is not None
    names = [c.name for c in scenario.test_cases]
    jobs = [(case, who) for case in names[:10] for who in ("anna", "bob", "cem")]
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda j: save_case_label(path, j[0], j[1], all_met(), "", 0),
                                jobs))
    assert all(r.saved for r in results)
    data = _labels(loan)
    assert {(c, w) for c, by in data["cases"].items() for w in by} == set(jobs)
    # the same labeller's form, saved twice from two tabs at once: exactly one wins
    with ThreadPoolExecutor(2) as pool:
        twice = list(pool.map(lambda note: save_case_label(path, names[0], "anna", all_met(),
                                                           note, 1), ["tab 1", "tab 2"]))
    assert sorted(r.saved for r in twice) == [False, True]
    loser = next(r for r in twice if not r.saved)
    winner = next(r for r in twice if r.saved)
    assert loser.label == winner.label


_SAVER = """
import sys
from pathlib import Path
from eunomia.labelling import save_case_label
choices = {f"criterion_{n}": f"sgi_{2 * n - 1}" for n in range(1, 11)}
for case in sys.argv[3:]:
    assert save_case_label(Path(sys.argv[1]), case, sys.argv[2], choices, "", 0).saved
"""


def test_processes_saving_at_once_lose_nothing(loan: Path) -> None:
    """Two processes (two label servers on one folder) saving 39 labels each at once."""
    scenario, _ = load_scenario(loan, labels=False)
    assert scenario is not None
    names = [c.name for c in scenario.test_cases]
    procs = [subprocess.Popen([sys.executable, "-c", _SAVER, str(loan / "labels.yml"), who,
                               *names], env=cli_env()) for who in ("anna", "bob")]
    assert [p.wait(120) for p in procs] == [0, 0]
    data = _labels(loan)
    assert all(set(data["cases"][n]) == {"anna", "bob"} for n in names)
    scenario, _ = load_scenario(loan)
    assert scenario is not None and len(scenario.test_cases) == 39 and scenario.labelled


def test_a_broken_file_is_not_overwritten(loan: Path) -> None:
    path = loan / "labels.yml"
    path.write_text("cases: [1, 2\n", encoding="utf-8")
    with pytest.raises(EunomiaError, match=r"labels\.yml cannot be read"):
        save_case_label(path, "02_missing_start_event", "anna", all_met(), "", 0)
    assert path.read_text(encoding="utf-8") == "cases: [1, 2\n"


def test_the_expected_policy(loan: Path) -> None:
    path = loan / "labels.yml"
    set_expected(path, ["bob", "anna"])
    assert _labels(loan)["expected"] == ["bob", "anna"]
    save_case_label(path, "02_missing_start_event", "anna", all_met(), "", 0)
    set_expected(path, "majority")
    data = _labels(loan)
    assert data["expected"] == "majority" and "anna" in data["cases"]["02_missing_start_event"]
