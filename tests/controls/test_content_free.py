"""The content-free control: chosen per case, the same every time, saying nothing checkable;
the seeded sample of control cases; another case's reference."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from tests.controls.real_cases import RealCase

from eunomia.errors import EunomiaError
from eunomia.tasks import (
    LoadedCase,
    TaskCase,
    content_free,
    control_sample,
    load_suites,
    load_templates,
    loaded_case,
    other_reference,
    other_references,
    suite_controls,
)
from eunomia.tasks._controls import NO_TOPIC, topic
from eunomia.tasks._text import names, numbers


def test_the_same_case_always_gets_the_same_answer(cases: list[RealCase]) -> None:
    first = [content_free(c.case, c.reference) for c in cases]
    again = [content_free(c.case, c.reference) for c in cases]
    assert first == again
    used = {a.how for a in first}
    assert len(used) >= 5  # cases spread over the templates, not one for all
    # the family's templates are used: a summary case may get a summary template
    families = {t.id: t.family for t in load_templates().templates}
    for c, answer in zip(cases, first, strict=True):
        assert families[answer.how] in ("any", load_templates().family_of(c.case.kind))


def test_no_template_leaks_a_fact_of_the_reference(cases: list[RealCase]) -> None:
    for c in cases:
        answer = content_free(c.case, c.reference).text
        assert not re.search(r"\d", answer), (c.case.name, answer)
        assert "{" not in answer and "}" not in answer
        said = {w.lower() for w in re.findall(r"[A-Za-z][\w'-]*", answer)}
        for name in names(c.reference):
            for word in name.text.split():
                assert word.lower() not in said, (c.suite, c.case.name, name.text, answer)
        assert not numbers(answer)


def test_a_topic_holding_a_name_or_number_of_the_reference_is_not_said() -> None:
    def case(sub: str) -> LoadedCase:
        body = TaskCase(case_id="x", category="summarization", sub_category=sub,
                        instruction="Describe it.", expected_response="The TrailLite is light.")
        return LoadedCase(name="x", kind="summarization", index=0, case=body,
                          raw_json=body.model_dump_json())

    assert topic(case("Review digest"), "The TrailLite is light.") == "review digest"
    assert topic(case("TrailLite reviews"), "The TrailLite is light.") == NO_TOPIC
    assert topic(case("Model 28L"), "The TrailLite is light.") == NO_TOPIC
    assert "TrailLite" not in content_free(case("TrailLite reviews"),
                                           "The TrailLite is light.").text


def test_a_template_with_a_number_or_an_unknown_placeholder_is_refused(tmp_path: Path) -> None:
    good = load_templates().model_dump()
    for bad_text, says in (("It arrives in 3 days.", "no number"),
                           ("About {product}.", "placeholder")):
        data = {**good, "templates": [*good["templates"], {
            "id": "bad", "family": "any", "why": "test", "text": bad_text}]}
        path = tmp_path / "t.yaml"
        path.write_text(yaml.safe_dump(data))
        load_templates.cache_clear()
        with pytest.raises(EunomiaError, match=says):
            load_templates(path)
    load_templates.cache_clear()


def test_the_sample_is_every_case_of_a_small_suite_and_twenty_of_a_large_one() -> None:
    small = [f"c{i}" for i in range(12)]
    assert control_sample(small) == list(range(12))
    large = [f"case-{i:03d}" for i in range(150)]
    sample = control_sample(large)
    assert len(sample) == 20 and sample == sorted(set(sample))
    assert sample == control_sample(large)  # the same every time
    assert sample != list(range(20))  # spread over the suite, not its first cases
    assert control_sample(large, seed=1) != sample
    assert len(control_sample(large, size=5)) == 5
    with pytest.raises(EunomiaError):
        control_sample(large, size=0)


def test_the_sample_is_stable_when_cases_are_added_or_removed() -> None:
    names_ = [f"case-{i:03d}" for i in range(150)]
    before = {names_[i] for i in control_sample(names_)}
    grown = [*names_[:70], "a-new-case", *names_[70:]]
    after = {grown[i] for i in control_sample(grown)}
    assert len(before - after) <= 1 and len(after - before) <= 1
    shrunk = [n for n in names_ if n != sorted(before)[0]]
    kept = {shrunk[i] for i in control_sample(shrunk)}
    assert len(before - kept) == 1 and len(kept - before) <= 1


def test_another_cases_reference_is_the_previous_one_with_a_reference() -> None:
    refs = [None, "a", None, "b", "c"]
    assert other_references(refs) == [1, 3, 1, 1, 3]
    assert other_references(["a"]) == [None]
    assert other_references(["a", "b"]) == [1, 0]
    names_ = ["x", "y", "z", "u", "v"]
    got = other_reference(refs, names_, 4)
    assert got is not None and got.text == "b" and "case u" in got.how
    assert other_reference(["same", "same"], ["p", "q"], 1) is None


def test_the_controls_of_a_suite_are_its_sample_with_their_answers(tmp_path: Path) -> None:
    lines = ["test_cases:"]
    for i in range(60):
        lines += [f"  - case_id: c{i:02d}", "    category: general_knowledge",
                  "    sub_category: Product facts", f"    instruction: Question {i}?"]
        if i % 3:  # every third case has no reference
            lines.append(f"    expected_response: Answer number {i}.")
    path = tmp_path / "general_knowledge.yaml"
    path.write_text("\n".join(lines) + "\n")
    suites, problems = load_suites([path])
    assert not problems
    got = list(suite_controls(suites[0], ("content_free", "other_reference"), size=20))
    assert len(got) == 20
    names_ = [f"c{i:02d}" for i in range(60)]
    assert [names_.index(e[0]) for e, _ in got] == control_sample(names_, 20)
    refs = [None if i % 3 == 0 else f"Answer number {i}." for i in range(60)]
    pairs = other_references(refs)
    for entry, controls in got:
        i = names_.index(entry[0])
        kinds = [c.kind for c in controls]
        assert kinds == ["content_free", "other_reference"]
        free, other = controls
        assert free == content_free(loaded_case(entry), refs[i])
        assert other.text == refs[pairs[i]]  # type: ignore[index]
        assert other.how == f"the reference of case {names_[pairs[i]]}"  # type: ignore[index]
    only_free = list(suite_controls(suites[0], size=5))
    assert [len(c) for _, c in only_free] == [1] * 5
