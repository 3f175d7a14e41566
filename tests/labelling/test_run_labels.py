"""``eunomia label RUN``: people score a judged task run's answers 0-5; the scores go to the
labels.yml beside the suite, the next eval reads them as human_score and says how the judge
agrees with them."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml
from aiohttp import web
from aiohttp.test_utils import TestClient
from tests.labelling.conftest import SCRIPT_XSS, revision_of, token_of
from tests.report._html import parse
from tests.support.cli import run_cli
from tests.tasks.fake_llm import FakeLLM

from eunomia.errors import EunomiaError
from eunomia.labelling import RunBook
from eunomia.labelling._runbook import answer_sha256
from eunomia.tasks import load_suite

Client = TestClient[web.Request, web.Application]
ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "examples" / "tasks" / "ecommerce" / "summarization.yaml"
EVAL = ["--model", "openai:fake-candidate", "--judge", "openai:fake-judge",
        "--results", "results"]


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[FakeLLM]:
    monkeypatch.chdir(tmp_path)  # no models.yml of the checkout; the suite path as given
    fake = FakeLLM()
    fake.candidate("TrailLite", f"Comfortable, but a zip broke {SCRIPT_XSS}.")
    fake.judge("Comfortable, but a zip", '{"score": 2, "feedback": "misses the rain cover"}')
    with fake.in_thread():
        monkeypatch.setenv("OPENAI_BASE_URL", fake.url)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        monkeypatch.setenv("COLUMNS", "200")
        yield fake


def _eval(run: str, folder: Path) -> str:
    """``eunomia eval`` as a user runs it (a process of its own, in ``folder``)."""
    got = run_cli("eval", "suites/summarization.yaml", *EVAL, "--run-name", run, cwd=folder,
                  env={"COLUMNS": "200"}, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    return " ".join(got.stdout.split())


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    """The summarization suite without its own human scores."""
    (tmp_path / "suites").mkdir()
    path = tmp_path / "suites" / "summarization.yaml"
    text = SUITE.read_text(encoding="utf-8")
    path.write_text(re.sub(r"\n\s*human_score: \d+", "", text), encoding="utf-8")
    return path


def _score(token: str, score: int, revision: int = 0, note: str = "") -> dict[str, str]:
    return {"token": token, "score": str(score), "revision": str(revision), "note": note,
            "then": "stay"}


async def test_score_answers_then_eval_measures_the_judge_against_them(
        served: FakeLLM, suite: Path, tmp_path: Path,
        client_of: Callable[..., Client]) -> None:
    out = _eval("first", tmp_path)
    assert "Cases with a human score" not in out
    book = RunBook(tmp_path / "results" / "eunomia.db", "first")
    assert [a.key for a in book.answers] == [f"summarization/sum-0{n}" for n in range(1, 6)]
    async with client_of(book, labeller="anna") as client:
        index = await (await client.get("/")).text()
        assert "0 of 5" in index and "answers labelled" in index
        page = await (await client.get("/cases/summarization%2Fsum-02")).text()
        assert SCRIPT_XSS not in page and "zip broke &lt;script&gt;" in page
        assert "misses the rain cover" not in page  # blind: the judge shows once scored
        assert "TrailLite backpack" in page and "rain cover is sold separately" in page
        radios = [t.attrs["value"] for t in parse(page).find("input")
                  if t.attrs.get("type") == "radio"]
        assert radios == ["5", "4", "3", "2", "1", "0"]
        resp = await client.post("/cases/summarization%2Fsum-02",
                                 data=_score(token_of(page), 1, note="wrong"),
                                 allow_redirects=False)
        assert resp.status == 303
        page = await (await client.get(resp.headers["Location"])).text()
        assert "Saved your score of summarization/sum-02: 1" in page
        assert "misses the rain cover" in page and revision_of(page) == 1
        # a second tab's form, opened before that save, is refused
        stale = await client.post("/cases/summarization%2Fsum-02",
                                  data=_score(token_of(page), 5), allow_redirects=False)
        assert stale.status == 409 and "Not saved" in await stale.text()
        for case, score in (("sum-01", 4), ("sum-03", 4), ("sum-04", 5)):
            page = await (await client.get(f"/cases/summarization%2F{case}")).text()
            resp = await client.post(f"/cases/summarization%2F{case}",
                                     data=_score(token_of(page), score), allow_redirects=False)
            assert resp.status == 303
        index = await (await client.get("/")).text()
        assert "4 of 5" in index and "The judge against the labellers" in index
        assert "(n = 4)" in index
        resp = await client.post("/cases/summarization%2Fsum-01", data=_score("x", 3))
        assert resp.status == 403
    labels = yaml.safe_load((suite.parent / "labels.yml").read_text(encoding="utf-8"))
    assert labels["kind"] == "tasks" and labels["human_score"] == "mean"
    scored = labels["suites"]["summarization"]["sum-02"]["anna"]
    assert scored["score"] == 1 and scored["note"] == "wrong" and scored["run"] == "first"
    assert scored["target"] == "openai:fake-candidate"
    assert scored["answer_sha256"] == answer_sha256(f"Comfortable, but a zip broke {SCRIPT_XSS}.")
    loaded, _ = load_suite(suite)
    assert loaded is not None
    assert {c.name: c.case.human_score for c in loaded.cases} == {
        "sum-01": 4.0, "sum-02": 1.0, "sum-03": 4.0, "sum-04": 5.0, "sum-05": None}
    # the next eval (every answer from the cache) compares its judge with those scores
    made = served.total
    out = _eval("second", tmp_path)
    assert served.total == made
    assert "Cases with a human score │ 4" in out
    # the judge gave 4, 2, 4, 4: |4-4| + |2-1| + |4-4| + |4-5| over 4
    assert "Judge vs human: mean absolute difference │ 0.500" in out
    assert "quadratic-weighted kappa [95% CI] │ too few cases to tell (4 cases" in out


def test_runs_that_cannot_be_labelled(served: FakeLLM, suite: Path, tmp_path: Path) -> None:
    store = tmp_path / "results" / "eunomia.db"
    with pytest.raises(EunomiaError, match="no run store"):
        RunBook(store, "first")
    _eval("first", tmp_path)
    with pytest.raises(EunomiaError, match="nope: no scenario folder of that name, and no run"):
        RunBook(store, "nope")
    with pytest.raises(EunomiaError, match="no candidate 'other'"):
        RunBook(store, "first", "other")
    shutil.move(tmp_path / "suites", tmp_path / "elsewhere")
    with pytest.raises(EunomiaError, match="run eunomia label from the folder eval ran in"):
        RunBook(store, "first")


async def test_a_run_without_a_judge_sets_the_checks_beside_the_labellers(
        suite: Path, tmp_path: Path, client_of: Callable[..., Client],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``eval --judge none``: each answer's score is its checks'; the label server says the
    checks (not a judge) are what the labellers are compared with."""
    monkeypatch.chdir(tmp_path)  # the suite path as eval was given it
    got = run_cli("eval", "suites/summarization.yaml", "--model", "baseline:reference",
                  "--judge", "none", "--results", "results", "--run-name", "checked",
                  cwd=tmp_path, timeout=120)
    assert got.returncode == 0, got.stdout + got.stderr
    book = RunBook(tmp_path / "results" / "eunomia.db", "checked")
    assert (book.scorer, book.scorer_score) == ("the checks", "the checks' score")
    scored = next(a for a in book.answers if a.judge_score is not None)
    path = "/cases/" + scored.key.replace("/", "%2F")
    async with client_of(book, labeller="anna") as client:
        index = await (await client.get("/")).text()
        assert "Nobody has scored an answer the checks scored yet." in index
        assert "what eval compares with the checks&#39; score" in index
        assert "judge" not in index.split('id="agreement"')[1]
        page = await (await client.get(path)).text()
        resp = await client.post(path, data=_score(token_of(page), 3), allow_redirects=False)
        assert resp.status == 303
        page = await (await client.get(path)).text()
        assert '<th scope="row">the checks</th>' in page
        assert '<th scope="row">the judge</th>' not in page
        index = await (await client.get("/")).text()
        assert "The checks against the labellers" in index
        assert "Over the answers both the checks and the labeller scored" in index
