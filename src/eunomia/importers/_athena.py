"""An Athena exercise export becomes a scenario folder: one test case per submission, the
tutor's score and any recorded feedback kept, the grading criteria when the export has them.

Written, taken from the file as it is:

* ``test_cases/<id>_<label>.json``: every submission's ``model``, byte for byte;
* ``example_solution.json``: the exercise's ``example_solution`` when it is a diagram, else
  (``auto``) the one submission labelled "Example Solution" (it stays a test case too);
* ``manifest.yml``: the exercise, its criteria (``criteria: []`` without: Athena's module
  then makes up its own), no ``default_expected`` (the export says which instructions a tutor
  chose at most in feedback, not what each submission should get: the scenario is
  *unlabelled*), and ``cases``: each submission's tutor grade (``percent`` as the export
  gives it) and its feedback: the tutor's (``tutor.feedback``) or a system's
  (``recorded``, replayed by ``--target recorded``);
* ``README.md``: where it came from (file, sha256), the command, and a table of the cases.

Whose feedback the export holds: a system's when it has ``baseline_info`` (Athena's sampled
exercises: GPT-4o's through Athena's basic approach), else the tutor's (``feedback`` option
to say otherwise). A feedback item's ``grading_instruction_id`` names an instruction only
when the export has grading criteria; without, it is kept in the item's ``meta``.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from eunomia import defaults
from eunomia.errors import Diagnostic, EunomiaError, has_errors
from eunomia.exports import dump_yaml
from eunomia.importers._athena_export import AthenaExport, ExportFeedback, ExportSubmission
from eunomia.importers._criteria_text import with_text_criteria
from eunomia.scenarios import load_scenario

EXAMPLE_LABEL = "example solution"
DEFAULT_SERVER_URL = defaults.ATHENA_MODULE_URL
FEEDBACK_ROLES = ("auto", "recorded", "tutor")


@dataclass(frozen=True, slots=True)
class ImportOptions:
    server_url: str = DEFAULT_SERVER_URL
    example_solution: str = "auto"
    """``auto``, ``none``, or the id of the submission to use."""
    feedback: str = "auto"
    """Whose feedback the export holds: ``auto``, ``recorded`` (a system's) or ``tutor``."""
    force: bool = False
    source_label: str | None = None
    """How README.md and the manifest name the source (default: the path given)."""
    command: str = ""
    """The command that made the folder, for README.md."""
    criteria_from_grading_instructions: bool = False
    """Without criteria in the export: one per numbered item of its grading instructions
    (``eunomia.importers._criteria_text``), so its submissions can be labelled."""


@dataclass(slots=True)
class Imported:
    folder: Path
    cases: int
    graded: int
    """Cases with the tutor's score."""
    feedback_items: int
    feedback_role: str
    """``recorded`` or ``tutor``."""
    criteria: int
    example_solution: str
    """Where the example solution came from."""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    """What loading the written scenario said (warnings only)."""


def slug(text: str) -> str:
    """``"1.2.3.1.1 Unlabelled activity"`` -> ``"unlabelled_activity"``."""
    words = re.sub(r"^[\d.]+\s+", "", text.strip())
    return re.sub(r"[^a-z0-9]+", "_", words.lower()).strip("_") or "submission"


def is_diagram(text: str) -> bool:
    """An Apollon diagram: version 3 (``elements``) or 4 (``nodes`` and ``edges``)."""
    if not text.strip():
        return False
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return isinstance(value, dict) and ("elements" in value or
                                        ("nodes" in value and "edges" in value))


def case_names(submissions: list[ExportSubmission]) -> list[str]:
    width = max(2, len(str(max(s.id for s in submissions))))
    return [f"{s.id:0{width}d}_{slug(s.text)}" for s in submissions]


def feedback_role(export: AthenaExport, wanted: str) -> str:
    if wanted not in FEEDBACK_ROLES:
        raise EunomiaError(f"--feedback must be one of {', '.join(FEEDBACK_ROLES)}, "
                           f"got {wanted!r}")
    if wanted != "auto":
        return wanted
    return "recorded" if export.baseline_info is not None else "tutor"


def recorded_source(export: AthenaExport, role: str) -> str:
    info = export.baseline_info
    if role == "tutor":
        return "tutor"
    if not info:
        return "recorded in the export"
    parts = [str(info.get("model") or "a system")]
    if info.get("approach"):
        parts.append(f"Athena's {info['approach']} approach")
    if info.get("generated_at"):
        parts.append(f"generated {info['generated_at']}")
    return ", ".join(parts)


def _sgi(ins_id: int) -> str:
    return f"sgi_{ins_id}"


def criteria_of(export: AthenaExport) -> list[dict[str, Any]]:
    """The export's grading criteria in manifest form (ids kept, prefixed to be textual)."""
    return [{
        "id": f"criterion_{c.id}", "title": c.title,
        "instructions": [{"id": _sgi(i.id), "grading_scale": i.grading_scale,
                          "instruction_description": i.instruction_description,
                          "feedback": i.feedback, "credits": i.credits}
                         for i in c.structured_grading_instructions],
    } for c in export.grading_criteria]


def _item(item: ExportFeedback, with_criteria: bool) -> dict[str, Any]:
    meta = dict(item.meta)
    if item.id is not None:
        meta["athena_feedback_id"] = item.id
    out: dict[str, Any] = {"title": item.title, "description": item.description,
                           "credits": item.credits}
    if item.grading_instruction_id is not None:
        if with_criteria:
            out["instruction"] = _sgi(item.grading_instruction_id)
        else:  # without criteria it names nothing: kept, as a position
            meta["grading_instruction_id"] = item.grading_instruction_id
    element = item.element_name or item.reference
    if element:
        out["element"] = element
    if item.element_ids:
        meta["element_ids"] = list(item.element_ids)
    out["meta"] = meta
    return out


def cases_of(export: AthenaExport, names: list[str], role: str) -> dict[str, Any]:
    """``{case name: {tutor: ..., recorded: ...}}`` for the submissions that carry either."""
    with_criteria = bool(export.grading_criteria)
    source = recorded_source(export, role)
    out: dict[str, Any] = {}
    for name, s in zip(names, export.submissions, strict=True):
        entry: dict[str, Any] = {}
        items = [_item(f, with_criteria) for f in s.feedbacks]
        tutor: dict[str, Any] = {}
        if s.score is not None:
            tutor["percent"] = s.score
        if role == "tutor" and items:
            tutor["feedback"] = items
        if tutor:
            entry["tutor"] = tutor
        if role == "recorded" and items:
            entry["recorded"] = {"source": source, "feedback": items}
        if entry:
            out[name] = entry
    return out


def example_solution(export: AthenaExport, choice: str) -> tuple[str | None, str]:
    """The example solution's diagram text and where it came from."""
    if choice == "none":
        return None, "none"
    if is_diagram(export.example_solution):
        return export.example_solution, "the exercise's example_solution"
    if choice != "auto":
        found = [s for s in export.submissions if str(s.id) == choice]
        if not found:
            raise EunomiaError(f"--example-solution {choice}: no submission with that id")
        return found[0].model, f"submission {choice}"
    labelled = [s for s in export.submissions if s.text.strip().lower() == EXAMPLE_LABEL]
    if len(labelled) == 1:
        return labelled[0].model, f'submission {labelled[0].id}, labelled "Example Solution"'
    return None, "none (the file has none)"


def manifest_text(export: AthenaExport, names: list[str], role: str, has_solution: bool,
                  options: ImportOptions, source: str) -> str:
    criteria = criteria_of(export)
    cases = cases_of(export, names, role)
    manifest: dict[str, Any] = {
        "server_url": options.server_url,
        "exercise": {
            "title": export.title,
            "type": export.type,
            "max_points": export.max_points,
            "bonus_points": export.bonus_points,
            "grading_instructions": export.grading_instructions,
            "problem_statement": export.problem_statement,
            "example_solution": "example_solution.json" if has_solution else None,
            "meta": export.meta,
        },
        "criteria": criteria,
    }
    if cases:
        manifest["cases"] = cases
    graded = sum(s.score is not None for s in export.submissions)
    header = [
        f"# Imported by `eunomia import athena` from {source}",
        f"# (Athena exercise {export.id}, course {export.course_id}); see README.md.",
    ]
    if graded or cases:
        header += [
            "# Unlabelled: no default_expected. The export says what the tutors gave, not which",
            "# instructions each submission should get; Eunomia measures consistency, feedback,",
            "# cost, latency and failures"
            + (", and the points awarded against the tutors' grades." if graded else ".")]
    else:
        header += [
            "# Unlabelled: no default_expected, because the file has no tutor score or feedback.",
            "# Eunomia measures consistency across --repeat, feedback, cost, latency and",
            "# failures, not correctness."]
    if options.criteria_from_grading_instructions:
        header += ["# The criteria are the numbered items of the grading instructions (the file",
                   "# has none): met (the item's points) or not met (0); label the cases with",
                   "# `eunomia label` (labels.yml beside this file)."]
    elif not criteria:
        header += ["# The file has no grading criteria, so none are sent: Athena's modeling",
                   "# module then makes up its own."]
    if role == "recorded" and any(s.feedbacks for s in export.submissions):
        header += ["# The submissions' feedbacks are a system's, kept in cases.<case>.recorded",
                   "# and replayed by --target recorded:",
                   f"# {recorded_source(export, role)}."]
    elif any(s.feedbacks for s in export.submissions):
        header += ["# The submissions' feedbacks are the tutors': cases.<case>.tutor.feedback",
                   "# (replayed by --target recorded:tutor)."]
    return "\n".join(header) + "\n" + dump_yaml(manifest)


def readme_text(export: AthenaExport, digest: str, names: list[str], role: str,
                solution_from: str, options: ImportOptions, dest: Path, source: str) -> str:
    def cell(text: str) -> str:
        return text.replace("|", "/").replace("\n", " ")

    graded = sum(s.score is not None for s in export.submissions)
    items = sum(len(s.feedbacks) for s in export.submissions)
    columns = ["test case", "Athena submission id", "label"]
    columns += ["tutor's score (%)"] if graded else []
    columns += ["feedback items"] if items else []
    rows = []
    for name, s in zip(names, export.submissions, strict=True):
        row = [f"`{name}`", str(s.id), cell(s.text)]
        row += ["" if s.score is None else f"{s.score:g}"] if graded else []
        row += [str(len(s.feedbacks))] if items else []
        rows.append("| " + " | ".join(row) + " |")
    criteria = (f"{len(export.grading_criteria)} grading criteria made of the numbered items "
                "of its grading instructions (the file has none; each item is met, for its "
                "points, or not met)" if options.criteria_from_grading_instructions else
                f"its {len(export.grading_criteria)} grading criteria"
                if export.grading_criteria else
                "no grading criteria (the file has none; Athena's modeling module makes up "
                "criteria of its own when it gets none, in an LLM call of its own)")
    about = [f"Athena exercise {export.id} (course {export.course_id}) with its {len(names)} "
             f"student submissions as test cases, {criteria}, and the example solution "
             f"({solution_from})."]
    if graded:
        about.append(f"{graded} submission(s) carry the tutor's score (the export's percent "
                     f"of {export.max_points:g} points, kept as `tutor.percent`).")
    if items and role == "recorded":
        about.append(f"Their {items} feedback items are a system's "
                     f"({recorded_source(export, role)}), kept under each case's `recorded` "
                     "key and replayed by `--target recorded`.")
    elif items:
        about.append(f"Their {items} feedback items are the tutors', kept under each case's "
                     "`tutor.feedback` (replayed by `--target recorded:tutor`).")
    measured = ("what needs no labels: consistency across `--repeat` (which instructions "
                "flip), feedback, cost, latency and failures")
    if graded:
        measured += (", and the points a system awards against the tutors' grades (Pearson "
                     "and Spearman correlation with 95% intervals, mean absolute difference, "
                     "bias)")
    run = [f"eunomia validate {dest.as_posix()}"]
    if items:
        run.append(f"eunomia run {dest.as_posix()} --target "
                   + ("recorded" if role == "recorded" else "recorded:tutor"))
    run.append(f"ATHENA_SECRET=... eunomia run {dest.as_posix()} --repeat 3")
    lines = [
        f"# {dest.name}: {export.title}",
        "",
        " ".join(about),
        "",
        "The manifest has **no `default_expected`**: the scenario is *unlabelled*. Eunomia "
        f"measures {measured}; correctness of the instructions returned is not measured.",
        "",
        f"Source: `{source}`, sha256 `{digest}`.",
        "",
        "## Recipe",
        "",
        "Made, and made again after any change, with (from the checkout's root):",
        "",
        "```bash",
        options.command or f"eunomia import athena {source} --output {dest.as_posix()}",
        "```",
        "",
        "Do not edit the files by hand: import again (it leaves `labels.yml` as it is).",
        "",
        *(["## Label it", "",
           "Tutors label the cases in the browser, criterion by criterion, with the submission "
           "drawn beside the example solution (README.md, \"Labelling in the browser\"):", "",
           "```bash", f"eunomia label {dest.as_posix()} --labeller NAME", "```", "",
           "The labels go to `labels.yml` in this folder. From the first complete label on, "
           "runs measure correctness on the labelled cases and leave the others out (a "
           "warning says how many); `eunomia validate` says how many are labelled.", ""]
          if options.criteria_from_grading_instructions else []),
        "## Run it",
        "",
        "Against the real module on this machine (`scripts/peer-athena.sh start`, see "
        "docs/peer-athena.md), three times per case to see what flips"
        + (", or replaying the recorded feedback" if items else "") + ":",
        "",
        "```bash",
        *run,
        "```",
        "",
        "## Test cases",
        "",
        "| " + " | ".join(columns) + " |",
        "| " + " | ".join("---" for _ in columns) + " |",
        *rows,
        "",
    ]
    return "\n".join(lines)


def _prepare(dest: Path, force: bool) -> None:
    if dest.exists() and not dest.is_dir():
        raise EunomiaError(f"--output {dest} is a file, not a folder")
    if (dest / defaults.MANIFEST_FILE).exists() and not force:
        raise EunomiaError(f"{dest} already holds a scenario; give --force to replace it")
    cases = dest / defaults.TEST_CASES_DIR
    try:
        cases.mkdir(parents=True, exist_ok=True)
        for old in cases.glob("*.json"):  # the earlier import's cases (nothing else)
            old.unlink()
    except OSError as exc:
        raise EunomiaError(f"cannot write {cases}: {exc.strerror or exc}") from None


def write_scenario(export: AthenaExport, raw: bytes, path: Path, dest: Path,
                   options: ImportOptions) -> Imported:
    """Write the scenario folder ``dest`` from a read export (``raw``: its bytes)."""
    role = feedback_role(export, options.feedback)
    if options.criteria_from_grading_instructions:
        if export.grading_criteria:
            raise EunomiaError(f"{path} has grading criteria of its own: "
                               "--criteria-from-grading-instructions is for an export without")
        export = with_text_criteria(export)
    names = case_names(export.submissions)
    solution, solution_from = example_solution(export, options.example_solution)
    source = options.source_label or path.as_posix()
    _prepare(dest, options.force)
    try:
        for name, s in zip(names, export.submissions, strict=True):
            (dest / defaults.TEST_CASES_DIR / f"{name}.json").write_text(s.model,
                                                                          encoding="utf-8")
        solution_path = dest / "example_solution.json"
        if solution is not None:
            solution_path.write_text(solution, encoding="utf-8")
        elif solution_path.exists():
            solution_path.unlink()
        (dest / defaults.MANIFEST_FILE).write_text(
            manifest_text(export, names, role, solution is not None, options, source),
            encoding="utf-8")
        (dest / "README.md").write_text(
            readme_text(export, hashlib.sha256(raw).hexdigest(), names, role, solution_from,
                        options, dest, source), encoding="utf-8")
    except OSError as exc:
        raise EunomiaError(f"cannot write the scenario in {dest}: {exc.strerror or exc}"
                           ) from None
    scenario, diags = load_scenario(dest)
    if scenario is None or has_errors(diags):  # the import wrote what Eunomia cannot load
        raise EunomiaError(f"the scenario written in {dest} does not load", diags)
    return Imported(dest, len(names), sum(s.score is not None for s in export.submissions),
                    sum(len(s.feedbacks) for s in export.submissions), role,
                    len(export.grading_criteria), solution_from, diags)
