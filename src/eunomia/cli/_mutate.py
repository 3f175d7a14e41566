"""``eunomia mutate SCENARIO --count N --output DIR``: test cases generated from the example
solution by the scenario's declared mutation rules (docs/mutate.md)."""

import shlex
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from eunomia import defaults
from eunomia.cli._common import check_positive, console, print_diagnostics
from eunomia.errors import EunomiaError, Severity


def mutate(
    scenario: Annotated[Path, typer.Argument(
        metavar="SCENARIO", help="The scenario folder (with manifest.yml).")],
    count: Annotated[int, typer.Option(help="How many cases to generate.")] = 20,
    output: Annotated[Path, typer.Option(
        help="Folder of the new scenario (created; must be empty or one mutate wrote).")
    ] = Path("mutants"),
    seed: Annotated[int, typer.Option(help="Random seed: the same seed, the same cases.")
                    ] = defaults.MUTATE_SEED,
    max_mutations: Annotated[int, typer.Option(
        help="A case combines 1 to this many declared mutations.")
    ] = defaults.MUTATE_MAX_PER_CASE,
    force: Annotated[bool, typer.Option(
        help="Replace the cases of a scenario eunomia mutate wrote to --output before.")
    ] = False,
) -> None:
    """Generate test cases from a scenario's example solution: each a mutant made by the
    scenario's declared mutation rules, expecting default_expected with each mutation's
    instruction swapped in. Writes an ordinary scenario folder (run, show, validate it)."""
    from eunomia.mutation import generate, write_scenario
    from eunomia.scenarios import load_scenario, rules_lines

    check_positive("--count", count)
    check_positive("--max-mutations", max_mutations)
    if count > defaults.MAX_MUTANTS:
        raise EunomiaError(f"--count {count} is more than {defaults.MAX_MUTANTS}")
    out = console()
    if not (scenario / defaults.MANIFEST_FILE).is_file():
        raise EunomiaError(f"{scenario}: not a scenario folder (no {defaults.MANIFEST_FILE})")
    started = time.perf_counter()
    loaded, problems = load_scenario(scenario)
    errors = [d for d in problems if d.severity is Severity.ERROR]
    if loaded is None or errors:
        raise EunomiaError(f"cannot generate from {scenario}: fix these first "
                           "(eunomia validate lists them)", errors)
    print_diagnostics(out, problems)
    generation = generate(loaded, count, seed=seed, max_per_case=max_mutations)
    command = shlex.join(["eunomia", *sys.argv[1:]]) if sys.argv[1:] else "eunomia mutate"
    written = write_scenario(loaded, generation, output, seed=seed, command=command,
                             force=force)
    elapsed = time.perf_counter() - started

    out.print(f"Rules of {escape(loaded.name)}: " + "; ".join(
        escape(line) for line in rules_lines(loaded.mutation_rules)), soft_wrap=True)
    used = Counter(o.rule_name for c in generation.cases for o in c.mutations)
    table = Table(title=f"{len(generation.cases)} generated case(s)", title_justify="left")
    table.add_column("Case")
    table.add_column("Mutations", overflow="fold")
    table.add_column("Expects instead", overflow="fold")
    for case in generation.cases[:defaults.MUTATE_CASES_SHOWN]:
        table.add_row(escape(case.name),
                      escape("; ".join(o.choice.description for o in case.mutations)),
                      escape(", ".join(case.replaced.values())))
    out.print(table)
    if len(generation.cases) > defaults.MUTATE_CASES_SHOWN:
        out.print(f"... and {len(generation.cases) - defaults.MUTATE_CASES_SHOWN} more "
                  f"(their mutations: generated_cases in {escape(str(output))}/manifest.yml)")
    unused = [name for name, _ in generation.rules if name not in used]
    if unused:
        out.print(f"[yellow]rules no case used (more cases would):[/] {escape(', '.join(unused))}",
                  soft_wrap=True)
    out.print(f"Wrote {len(written)} files to {escape(str(output))} in {elapsed:.2f} s "
              f"(seed {seed}). Look at a case: eunomia show {escape(str(output))}/<case>; "
              f"run them: eunomia run {escape(str(output))}", soft_wrap=True)
