"""``eunomia mutate``: new test cases from a scenario's example solution, each a mutant
made by the scenario's declared mutation rules, with the instructions it should get."""

from eunomia.mutation._generate import GeneratedCase, Generation, Option, generate
from eunomia.mutation._write import write_scenario

__all__ = ["GeneratedCase", "Generation", "Option", "generate", "write_scenario"]
