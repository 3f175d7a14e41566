#!/usr/bin/env python3
"""Turn an exercise of Athena's playground data into an *unlabelled* Eunomia scenario.

    python3 scripts/athena-playground-to-scenario.py \\
        ../shared/peers/athena/playground/data/example/exercise-6.json \\
        examples/athena/athena_loan_real --force

Athena's playground files (``playground/data/example/exercise-<n>.json``) hold one exercise and
its students' submissions: ``{id, course_id, title, type, max_points, bonus_points,
grading_instructions, problem_statement, example_solution, meta, grading_criteria?,
submissions: [{id, text, model, meta}]}``, each ``model`` an Apollon diagram as a JSON string.
They carry no tutor feedback, so the scenario has no ``default_expected``: it is unlabelled, and
Eunomia measures what needs no labels (consistency across ``--repeat``, feedback count, cost,
latency, failures).

What is written, taken from the file as it is:

* ``manifest.yml``: the exercise (title, type, points, grading instructions, problem statement),
  the grading criteria and their structured grading instructions when the file has any
  (``criteria: []`` otherwise: Athena's module then makes up its own), no ``default_expected``;
* ``test_cases/<NN>_<text>.json``: every submission's ``model``, byte for byte, named by its
  Athena id and its ``text`` (the playground's label of the submission);
* ``example_solution.json``: the exercise's ``example_solution`` when it is an Apollon diagram,
  else (``--example-solution auto``, the default) the submission labelled "Example Solution";
  that submission stays a test case too;
* ``README.md``: where it came from (file, sha256), the exact command, and a table of the cases.

Why a script and not a command of the product: the playground files are Athena's sample data,
with no published format or version, and this is how one shipped example is made; Eunomia's
own job starts at the scenario folder. It needs Python 3.11 and PyYAML only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import yaml

EXAMPLE_LABEL = "example solution"
DEFAULT_SERVER_URL = "http://127.0.0.1:5008/feedback_suggestions"


def slug(text: str) -> str:
    """``"1.2.3.1.1 Unlabelled activity"`` -> ``"unlabelled_activity"``."""
    words = re.sub(r"^[\d.]+\s+", "", text.strip())
    return re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_") or "submission"


def is_diagram(text: Any) -> bool:
    if not isinstance(text, str) or not text.strip():
        return False
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(value, dict) and "elements" in value


def case_names(submissions: list[dict[str, Any]]) -> list[str]:
    width = max(2, len(str(max((int(s["id"]) for s in submissions), default=0))))
    names = [f"{int(s['id']):0{width}d}_{slug(str(s.get('text') or ''))}" for s in submissions]
    if len(set(names)) != len(names):
        raise SystemExit("two submissions would get the same test case name")
    return names


def criteria_of(exercise: dict[str, Any]) -> list[dict[str, Any]]:
    """The file's grading criteria in manifest form (ids kept, prefixed to be textual)."""
    out: list[dict[str, Any]] = []
    for criterion in exercise.get("grading_criteria") or []:
        instructions = [{
            "id": f"sgi_{sgi['id']}",
            "grading_scale": sgi.get("grading_scale") or "",
            "instruction_description": sgi.get("instruction_description") or "",
            "feedback": sgi.get("feedback") or "",
            "credits": float(sgi.get("credits") or 0.0),
        } for sgi in criterion.get("structured_grading_instructions") or []]
        out.append({"id": f"criterion_{criterion['id']}", "title": criterion.get("title") or "",
                    "instructions": instructions})
    return out


def example_solution(exercise: dict[str, Any], choice: str) -> tuple[str | None, str]:
    """The example solution's diagram text and where it came from."""
    if choice == "none":
        return None, "none"
    own = exercise.get("example_solution")
    if is_diagram(own):
        return str(own), "the exercise's example_solution"
    if choice != "auto":
        found = [s for s in exercise["submissions"] if str(s["id"]) == choice]
        if not found:
            raise SystemExit(f"no submission with id {choice}")
        return str(found[0]["model"]), f"submission {choice}"
    labelled = [s for s in exercise["submissions"]
                if str(s.get("text") or "").strip().lower() == EXAMPLE_LABEL]
    if len(labelled) == 1:
        sid = labelled[0]["id"]
        return str(labelled[0]["model"]), f'submission {sid}, labelled "Example Solution"'
    return None, "none (the file has none)"


def manifest_text(exercise: dict[str, Any], criteria: list[dict[str, Any]],
                  has_solution: bool, server_url: str, source: str) -> str:
    manifest: dict[str, Any] = {
        "server_url": server_url,
        "exercise": {
            "title": exercise["title"],
            "type": exercise.get("type") or "modeling",
            "max_points": float(exercise["max_points"]),
            "bonus_points": float(exercise.get("bonus_points") or 0.0),
            "grading_instructions": exercise.get("grading_instructions") or "",
            "problem_statement": exercise.get("problem_statement") or "",
            "example_solution": "example_solution.json" if has_solution else None,
            "meta": exercise.get("meta") or {},
        },
        "criteria": criteria,
    }
    header = (
        f"# Built by scripts/athena-playground-to-scenario.py from {source}\n"
        f"# (Athena exercise {exercise['id']}, course {exercise.get('course_id')}); "
        "see README.md.\n"
        "# Unlabelled: no default_expected, because the file has no tutor feedback. Eunomia\n"
        "# measures consistency across --repeat, feedback counts, cost, latency and failures,\n"
        "# not correctness.\n"
    )
    if not criteria:
        header += ("# The file has no grading criteria (its grading instructions are free text),\n"
                   "# so none are sent: Athena's modeling module then makes up its own.\n")
    body = yaml.safe_dump(manifest, sort_keys=False, allow_unicode=True, width=100)
    return header + body


def readme_text(exercise: dict[str, Any], source: Path, digest: str, names: list[str],
                solution_from: str, command: str, dest_name: str, dest_shown: str) -> str:
    rows = "\n".join(
        f"| `{name}` | {s['id']} | {str(s.get('text') or '').replace('|', '/')} |"
        for name, s in zip(names, exercise["submissions"], strict=True))
    criteria = ("its grading criteria and structured grading instructions"
                if exercise.get("grading_criteria") else
                "no grading criteria (the file has none: its grading instructions are free text, "
                "and Athena's modeling module makes up criteria of its own when it gets none)")
    title = exercise["title"]
    intro = (f"Athena's own playground exercise \"{title}\" (exercise "
             f"{exercise['id']}) with its {len(names)} real student submissions, as the file has "
             f"them: the exercise, {criteria}, the example solution ({solution_from}), and every "
             "submission as a test case.")
    return f"""# {dest_name}: Athena's {len(names)} real student submissions, unlabelled

{intro}

The file carries no tutor feedback, so the manifest has **no `default_expected`**: the scenario
is *unlabelled*. Eunomia measures what needs no labels — consistency across `--repeat` (which
instructions flip), feedback count, cost, latency and failures — and says that correctness is
not measured.

Source: `{source.as_posix()}` (ls1intum/Athena a373df28, MIT), sha256 `{digest}`.

## Recipe

Made, and made again after any change of the script, with (from the checkout's root):

```bash
{command}
```

Do not edit the files by hand: change the script and run it again.

## Run it

Against the real module on this machine (`scripts/peer-athena.sh start`, see
docs/peer-athena.md), three times per case to see what flips:

```bash
ATHENA_SECRET=... eunomia run {dest_shown} --repeat 3
```

Without criteria, Athena's modeling module first asks its LLM for criteria of its own, then for
the feedback: two LLM calls per case. And this Athena version returns no structured grading
instruction id on any item, so there is nothing to compare across repeats but the feedback
items themselves, their counts, cost, latency and failures.

## Test cases

| test case | Athena submission id | the playground's label |
| --- | --- | --- |
{rows}
"""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", type=Path, help="an Athena playground exercise-<n>.json")
    parser.add_argument("dest", type=Path, help="the scenario folder to write")
    parser.add_argument("--server-url", default=DEFAULT_SERVER_URL,
                        help=f"the manifest's server_url (default {DEFAULT_SERVER_URL})")
    parser.add_argument("--example-solution", default="auto",
                        help='"auto" (default), "none", or the id of the submission to use')
    parser.add_argument("--force", action="store_true", help="replace an existing folder's files")
    parser.add_argument("--source-label", default=None,
                        help="how README.md and the manifest name the source (default: the path)")
    args = parser.parse_args(argv)

    try:
        raw = args.source.read_bytes()
    except OSError as exc:
        raise SystemExit(f"cannot read {args.source}: {exc.strerror}") from None
    exercise = json.loads(raw)
    submissions = exercise.get("submissions") or []
    if not submissions:
        raise SystemExit(f"{args.source}: no submissions")
    cases_dir = args.dest / "test_cases"
    if (args.dest / "manifest.yml").exists() and not args.force:
        raise SystemExit(f"{args.dest} already holds a scenario; give --force to replace it")
    names = case_names(submissions)
    solution, solution_from = example_solution(exercise, args.example_solution)
    source = args.source_label or args.source.as_posix()

    cases_dir.mkdir(parents=True, exist_ok=True)
    for old in cases_dir.glob("*.json"):
        old.unlink()
    for name, submission in zip(names, submissions, strict=True):
        if not is_diagram(submission.get("model")):
            print(f"warning: submission {submission['id']} is not an Apollon diagram; "
                  "written as it is", file=sys.stderr)
        (cases_dir / f"{name}.json").write_text(str(submission["model"]), encoding="utf-8")
    solution_path = args.dest / "example_solution.json"
    if solution is not None:
        solution_path.write_text(solution, encoding="utf-8")
    elif solution_path.exists():
        solution_path.unlink()
    (args.dest / "manifest.yml").write_text(
        manifest_text(exercise, criteria_of(exercise), solution is not None, args.server_url,
                      source), encoding="utf-8")
    command = " ".join(["python3", "scripts/athena-playground-to-scenario.py",
                        *(argv if argv is not None else sys.argv[1:])])
    (args.dest / "README.md").write_text(
        readme_text(exercise, Path(source), hashlib.sha256(raw).hexdigest(), names,
                    solution_from, command, args.dest.name, args.dest.as_posix()),
        encoding="utf-8")
    print(f"{args.dest}: {len(names)} test cases, example solution: {solution_from}, "
          f"{len(criteria_of(exercise))} criteria")
    return 0


if __name__ == "__main__":
    sys.exit(main())
