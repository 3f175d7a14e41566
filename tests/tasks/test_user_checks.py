"""Checks as a registry of small classes, and checks of your own named by their Python path
(``checks: [{python: mypkg.checks:no_pii}]``): resolved when the suite loads, a bad one
reported with its file, line and key, given the answer and its case, never a cache key."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import ValidationError
from rich.console import Console
from tests.tasks.conftest import write
from tests.tasks.fake_llm import FakeLLM
from tests.tasks.test_cli import invoke, served  # noqa: F401 - the fixture
from tests.tasks.test_run import OPTIONS

from eunomia.api import run_tasks
from eunomia.models import resolve_spec
from eunomia.store import RunStore
from eunomia.tasks import CHECKS, Answer, Check, TaskCase, load_suite, load_suites, run_checks
from eunomia.tasks import checks as checks_module

USER_CHECKS = '''
from eunomia.tasks import Check, CheckResult

IMPORTED = []


def no_pii(answer):
    return "@" not in answer.text


def mentions(answer):
    wanted = answer.case.get("must_mention", [])
    missing = [w for w in wanted if w not in answer.text]
    return CheckResult(name="ignored", passed=not missing, detail=", ".join(missing))


def boom(answer):
    raise ValueError("the check itself failed")


def says_yes(answer):
    return "yes"


def two(answer, other):
    return True


async def later(answer):
    return True


NOT_CALLABLE = 3


class Shouting(Check):
    def check(self, answer):
        return self.result(answer.text.isupper(), "")


class NeedsSetting(Check):
    n: int

    def check(self, answer):
        return self.result(True)


class NotACheck:
    pass


class Holder:
    @staticmethod
    def short(answer):
        return len(answer.text) < 20
'''


@pytest.fixture
def user_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A package of checks on ``sys.path`` (its name unique to the test)."""
    name = f"user_checks_{tmp_path.name.replace('-', '_')}"
    write(tmp_path / "pkgs" / name / "__init__.py", "")
    write(tmp_path / "pkgs" / name / "checks.py", USER_CHECKS)
    monkeypatch.syspath_prepend(str(tmp_path / "pkgs"))
    monkeypatch.setattr(checks_module, "_resolved", {})
    yield f"{name}.checks"
    for module in [m for m in sys.modules if m.startswith(name)]:
        del sys.modules[module]


def _check(**given: object) -> Check:
    found: Check = Check.model_validate(given)
    return found


# --- the registry ---------------------------------------------------------------------------
def test_each_built_in_check_is_one_registered_class_of_one_field() -> None:
    assert list(CHECKS) == ["contains", "not_contains", "regex", "max_words", "min_words",
                            "json", "python"]
    for key, cls in CHECKS.items():
        assert cls.key == key and len(cls.model_fields) == 1 and cls.__doc__
        assert type(_check(**{key: {"max_words": 3, "min_words": 3, "json": True,
                                    "python": "json:loads"}.get(key, "x")})) is cls


def test_the_names_of_the_results_are_as_before() -> None:
    answer = "It is 42."
    names = [r.name for r in run_checks([
        _check(contains="42"), _check(not_contains=["best", "x"]), _check(regex=r"\d+"),
        _check(max_words=5), _check(min_words=1), _check(json=True), _check(json=False),
    ], answer)]
    assert names == ["contains ['42']", "not_contains ['best', 'x']", "regex '\\\\d+'",
                     "max_words 5", "min_words 1", "json", "json: false"]


# --- checks of your own ----------------------------------------------------------------------
def test_a_function_of_your_own_is_given_the_answer_and_its_case(user_module: str) -> None:
    no_pii = _check(python=f"{user_module}:no_pii")
    assert run_checks([no_pii], "no address here")[0].passed
    result = run_checks([no_pii], "write to me@example.org")[0]
    assert not result.passed and result.name == f"python '{user_module}:no_pii'"
    mentions = _check(python=f"{user_module}:mentions")
    raw = '{"case_id": "a", "must_mention": ["kettle", "30 days"]}'
    found = run_checks([mentions], "A kettle.", raw)[0]
    assert not found.passed and found.detail == "30 days"
    assert found.name == f"python '{user_module}:mentions'"  # the check's name, not its own
    assert run_checks([mentions], "A kettle, 30 days.", raw)[0].passed


def test_a_check_class_and_a_dotted_name_also_work(user_module: str) -> None:
    assert run_checks([_check(python=f"{user_module}:Shouting")], "LOUD")[0].passed
    assert not run_checks([_check(python=f"{user_module}.Shouting")], "quiet")[0].passed
    assert run_checks([_check(python=f"{user_module}:Holder.short")], "short")[0].passed


def test_a_check_that_raises_or_answers_oddly_fails_alone(user_module: str) -> None:
    results = run_checks([_check(python=f"{user_module}:boom"),
                          _check(python=f"{user_module}:says_yes"), _check(contains="a")],
                         "a")
    assert [r.passed for r in results] == [False, False, True]
    assert results[0].detail == "ValueError: the check itself failed"
    assert "returned str" in results[1].detail


BAD = {
    "nosuch_module_xyz.checks:no_pii": "cannot import 'nosuch_module_xyz.checks': "
                                       "ModuleNotFoundError",
    "{m}:missing": "has no 'missing'",
    "{m}:two": "must take one argument, the answer (its signature is (answer, other))",
    "{m}:later": "is async",
    "{m}:NOT_CALLABLE": "is a int, not a function",
    "{m}:NotACheck": "is a class but not a eunomia.tasks.Check",
    "{m}:NeedsSetting": "cannot be made without settings",
    "no_pii": "is not a Python name",
    "a b:c": "is not a Python name",
}


def test_a_bad_reference_is_reported_at_loading_with_file_line_and_key(
        user_module: str, tmp_path: Path) -> None:
    cases = "".join(f"- case_id: c{i}\n  instruction: Q\n  checks:\n  - contains: x\n"
                    f"  - python: '{ref.format(m=user_module)}'\n"
                    for i, ref in enumerate(BAD))
    cases += f"- case_id: good\n  instruction: Q\n  checks:\n  - python: {user_module}:no_pii\n"
    path = write(tmp_path / "summarization.yaml", cases)
    suite, problems = load_suite(path)
    assert suite is not None and [c.name for c in suite.cases] == ["good"]
    assert len(problems) == len(BAD)
    for i, (problem, wanted) in enumerate(zip(problems, BAD.values(), strict=True)):
        assert problem.file == path and problem.line == 5 * i + 5
        assert problem.key == f"[{i}].checks[1].python"
        assert wanted in problem.message, problem.message


def test_a_reference_is_imported_when_the_suite_loads_not_when_a_run_is_read(
        user_module: str, tmp_path: Path) -> None:
    ref = f"{user_module}:no_pii"
    path = write(tmp_path / "summarization.yaml",
                 f"- case_id: a\n  instruction: Q\n  checks: [{{python: '{ref}'}}]\n")
    assert ref not in checks_module._resolved
    load_suite(path)
    assert ref in checks_module._resolved
    # a stored case (a run's snapshot, a report) is read without importing anything; the
    # check says why it cannot run if its module is gone
    case = TaskCase.model_validate({"instruction": "Q",
                                    "checks": [{"python": "gone_module_xyz:check"}]})
    assert case.checks is not None
    result = run_checks(case.checks, "answer")[0]
    assert not result.passed and "cannot import 'gone_module_xyz'" in result.detail


def test_a_turn_of_a_conversation_takes_checks_of_your_own(user_module: str) -> None:
    case = TaskCase.model_validate({"conversation": [
        {"user": "hi", "eval_point": "x", "check": {"python": f"{user_module}:no_pii"}}]})
    assert case.conversation is not None
    (turn,) = case.conversation
    assert [c.name for c in turn.checks] == ["python"]
    with pytest.raises(ValidationError, match="python"):
        TaskCase.model_validate({"checks": [{"python": "not a name"}]})


def test_answer_reads_its_case_once_and_only_when_asked() -> None:
    answer = Answer("text", "not json")  # never decoded: no check asked for the case
    assert run_checks([_check(contains="t")], answer.text, "not json")[0].passed
    given = Answer("text", '{"k": [1]}')
    assert given.case == {"k": [1]} and given.case is given.case


# --- a run ------------------------------------------------------------------------------------
async def test_a_run_scores_with_checks_of_your_own_and_they_are_no_cache_key(
        fake_llm: FakeLLM, tmp_path: Path, user_module: str) -> None:
    fake_llm.candidate("Q1", "Write to me@example.org")
    fake_llm.candidate("Q2", "All fine.")
    suite_text = ("- case_id: one\n  instruction: Q1\n  checks: [{python: '%s'}]\n"
                  "- case_id: two\n  instruction: Q2\n  checks: [{python: '%s'}]\n")
    path = write(tmp_path / "general_knowledge.yaml",
                 suite_text % (f"{user_module}:no_pii", f"{user_module}:no_pii"))
    suites, problems = load_suites([path])
    assert not problems
    report = await run_tasks(
        suites, candidate=resolve_spec("openai:fake-candidate"), judge=None, run_name="r1",
        results_dir=tmp_path, options=OPTIONS, console=Console(quiet=True))
    assert report.requests_made == 2
    # another check of the same answers: the answers come from the cache, the scores change
    write(path, suite_text % (f"{user_module}:short", f"{user_module}:short"))
    write(Path(sys.modules[user_module].__file__ or ""),
          USER_CHECKS + "\n\ndef short(answer):\n    return len(answer.text) < 12\n")
    checks_module._resolved.clear()
    del sys.modules[user_module]
    suites, problems = load_suites([path])
    assert not problems
    again = await run_tasks(
        suites, candidate=resolve_spec("openai:fake-candidate"), judge=None, run_name="r2",
        results_dir=tmp_path, options=OPTIONS, console=Console(quiet=True))
    assert again.requests_made == 0 and again.cache_hits == 2
    db = RunStore(tmp_path / "eunomia.db")
    try:
        scores = {run: {r.case_name: r.score for r in db.iter_cases(db.require_run(run))}
                  for run in ("r1", "r2")}
    finally:
        db.close()
    assert scores == {"r1": {"one": 0, "two": 5}, "r2": {"one": 0, "two": 5}}
    yaml_text = (tmp_path / "r2" / "tasks" / "general_knowledge.yaml").read_text()
    assert f"name: python '{user_module}:short'" in yaml_text


def test_eval_finds_a_check_module_in_the_working_folder(
        served: FakeLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    monkeypatch.setattr(checks_module, "_resolved", {})
    write(tmp_path / "work" / "house_rules.py", textwrap.dedent("""
        def polite(answer):
            return "please" in answer.text.lower()
    """))
    suite = write(tmp_path / "work" / "general_knowledge.yaml",
                  "- case_id: a\n  instruction: Q\n  checks: [{python: house_rules:polite}]\n")
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.delitem(sys.modules, "house_rules", raising=False)
    assert str(tmp_path / "work") not in sys.path
    code, out = invoke("eval", str(suite), "--model", "openai:fake-candidate", "--judge",
                       "none", "--results", str(tmp_path / "results"), "--run-name", "uc")
    assert code == 0, out
    assert str(tmp_path / "work") not in sys.path  # only while importing
    text = (tmp_path / "results" / "uc" / "tasks" / "general_knowledge.yaml").read_text()
    assert "name: python 'house_rules:polite'\n    passed: false" in text
    monkeypatch.delitem(sys.modules, "house_rules", raising=False)


# --- docs/checks.md ----------------------------------------------------------------------------
DOCS = Path(__file__).resolve().parents[2] / "docs" / "checks.md"


def _python_blocks() -> list[str]:
    text = DOCS.read_text(encoding="utf-8")
    return [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]


def test_the_documented_checks_of_your_own_work(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    (module,) = [b for b in _python_blocks() if b.startswith("# mypkg/checks.py")]
    name = f"doc_checks_{tmp_path.name.replace('-', '_')}"
    write(tmp_path / f"{name}.py", module)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(checks_module, "_resolved", {})
    raw = '{"must_mention": ["kettle"]}'
    results = run_checks([_check(python=f"{name}:no_pii"), _check(python=f"{name}:mentions")],
                         "Write to a@b.org about the kettle.", raw)
    assert [(r.passed, r.detail) for r in results] == [(False, ""), (True, "")]
    monkeypatch.delitem(sys.modules, name)


def test_the_documented_built_in_check_registers_in_one_place() -> None:
    (block,) = [b for b in _python_blocks() if "@register" in b]
    namespace = {"register": checks_module.register, "Check": Check, "Answer": Answer,
                 "CheckResult": checks_module.CheckResult}
    try:
        exec(block, namespace)  # the documentation's own example
        case = TaskCase.model_validate({"instruction": "Q", "checks": [{"starts_with": "dear"}]})
        assert case.checks is not None
        assert [r.passed for r in run_checks(case.checks, "Dear Ann,")] == [True]
        assert run_checks(case.checks, "Hi")[0].name == "starts_with 'dear'"
    finally:
        CHECKS.pop("starts_with", None)
