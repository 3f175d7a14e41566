"""Write Athena's two hand-written tests of its modeling module as Eunomia scenarios.

Run from the repository root (the Athena copy beside the checkout, or give its folder)::

    python3 examples/athena/module_tests/_generate.py [ATHENA_REAL_TESTS_FOLDER]

Source: Athena 2.7 (ls1intum/edutelligence, folder athena/, MIT),
``tests/modules/modeling/module_modeling_llm/real/``: ``test_data/ecommerce_data.py`` and
``hospital_data.py`` (the exercise, its grading criteria of one instruction each, the example
solution and one submission) and ``test_real.py`` (what each test asserts about the credits
per grading instruction id). Everything is read from those files with ``ast``, not retyped:
texts byte for byte, the assertions as written (``credits_by_id[2] >= 1.0``).

What the scenario expects: the instructions the test reads (``credits_by_id[k]`` fails when
no feedback names ``k``) and, for each, the credits the test asserts. The ids are Athena's
(the manifest's instruction ids are numbered 1.. in order, as Athena's are).
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEFAULT_SOURCE = (HERE.parents[2].parent / "shared" / "peers" / "athena-2.7" / "tests" / "modules"
                  / "modeling" / "module_modeling_llm" / "real")
TESTS = {  # scenario folder: (data module, constant prefix, test function)
    "athena_test_ecommerce": ("ecommerce_data.py", "ECOMMERCE", "test_sgi_ecommerce_system"),
    "athena_test_hospital": ("hospital_data.py", "HOSPITAL", "test_sgi_hospital_management"),
}
_OPS = {ast.Eq: "==", ast.GtE: ">=", ast.LtE: "<=", ast.Gt: ">", ast.Lt: "<"}


def _constants(path: Path) -> dict[str, Any]:
    """The module's top-level constants: strings as they are, criteria as dicts."""
    out: dict[str, Any] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = _value(node.value)
    return out


def _value(node: ast.expr) -> Any:
    if isinstance(node, ast.Call):  # GradingCriterion(...), StructuredGradingInstruction(...)
        return {kw.arg: _value(kw.value) for kw in node.keywords}
    if isinstance(node, ast.List):
        return [_value(item) for item in node.elts]
    return ast.literal_eval(node)


def _test_of(tests: Path, function: str) -> tuple[dict[str, Any], list[tuple[int, str, float,
                                                                             str]]]:
    """The Exercise(...) keywords of the test and its assertions on ``credits_by_id``."""
    tree = ast.parse(tests.read_text(encoding="utf-8"))
    found = next(n for n in tree.body
                 if isinstance(n, ast.AsyncFunctionDef | ast.FunctionDef) and n.name == function)
    exercise: dict[str, Any] = {}
    asserts: list[tuple[int, str, float, str]] = []
    for node in ast.walk(found):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Exercise":
            exercise = {kw.arg: kw.value for kw in node.keywords}
        if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare):
            left = node.test.left
            if isinstance(left, ast.Subscript) and getattr(left.value, "id", "") == \
                    "credits_by_id":
                op = _OPS[type(node.test.ops[0])]
                value = float(ast.literal_eval(node.test.comparators[0]))
                message = ast.literal_eval(node.msg) if node.msg is not None else ""
                asserts.append((int(ast.literal_eval(left.slice)), op, value, message))
    return exercise, asserts


def _q(text: str) -> str:
    """A YAML double-quoted scalar (JSON's escapes are YAML's)."""
    return json.dumps(text, ensure_ascii=False)


def manifest(name: str, data: dict[str, Any], prefix: str, exercise: dict[str, Any],
             asserts: list[tuple[int, str, float, str]], function: str) -> str:
    def literal(key: str) -> Any:
        return ast.literal_eval(exercise[key])

    lines = [
        f"# Athena's own test {function} (tests/modules/modeling/module_modeling_llm/real/",
        "# test_real.py, Athena 2.7, MIT), as a scenario: the exercise, criteria and submission of",
        f"# test_data/{TESTS[name][0]}, and the test's assertions on the credits per grading",
        "# instruction id. Written by _generate.py in this folder: edit that, not this file.",
        'server_url: "http://127.0.0.1:5008/feedback_suggestions"',
        "exercise:",
        f"  title: {_q(literal('title'))}",
        '  type: "modeling"',
        f"  max_points: {literal('max_points')}",
        f"  bonus_points: {literal('bonus_points')}",
        f"  grading_instructions: {_q(data[prefix + '_GRADING_INSTRUCTIONS'])}",
        f"  problem_statement: {_q(data[prefix + '_PROBLEM_STATEMENT'])}",
        '  example_solution: "example_solution.json"',
        "  meta: {}",
        "",
        "criteria:",
    ]
    for criterion in data[prefix + "_GRADING_CRITERIA"]:
        lines += [f'  - id: "{criterion["id"]}"', f"    title: {_q(criterion['title'])}",
                  "    instructions:"]
        for sgi in criterion["structured_grading_instructions"]:
            lines += [
                f'      - id: "{sgi["id"]}"',
                f"        grading_scale: {_q(sgi['grading_scale'])}",
                f"        instruction_description: {_q(sgi['instruction_description'])}",
                f"        feedback: {_q(sgi['feedback'])}",
                f"        credits: {float(sgi['credits'])}",
            ]
    lines += ["", "# The instructions the test reads: credits_by_id[k] fails unless a feedback "
              "item", "# names k.", "default_expected:"]
    lines += [f'  - "{k}"' for k, *_ in asserts]
    lines += ["", "# The test's assertions, as written: assert credits_by_id[k] <op> <value>, "
              "<message>", "expected_credits:"]
    for k, op, value, message in asserts:
        lines.append(f'  "{k}": "{op} {value}"  # {message}')
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    source = Path(argv[0]) if argv else DEFAULT_SOURCE
    tests = source / "test_real.py"
    for name, (module, prefix, function) in TESTS.items():
        data = _constants(source / "test_data" / module)
        exercise, asserts = _test_of(tests, function)
        folder = HERE / name
        (folder / "test_cases").mkdir(parents=True, exist_ok=True)
        (folder / "example_solution.json").write_text(data[prefix + "_EXAMPLE_SOLUTION"],
                                                      encoding="utf-8")
        (folder / "test_cases" / "submission.json").write_text(data[prefix + "_SUBMISSION"],
                                                               encoding="utf-8")
        (folder / "manifest.yml").write_text(
            manifest(name, data, prefix, exercise, asserts, function), encoding="utf-8")
        print(f"{folder}: {len(asserts)} credit expectations")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
