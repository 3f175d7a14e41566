"""The exercise and submission ids Eunomia sends to Athena, chosen so that nothing is overwritten.

Athena stores exercises and submissions by their id alone (the id is the table's primary key
and a request merges into the row with that id), whatever ``X-Server-URL`` says. Sending the
scenario loader's submission ids 1..N made a second scenario overwrite the first one's stored
submissions; against a shared Athena it would overwrite real students' submissions, whose ids
an LMS (Artemis) numbers from 1 upwards.

So Eunomia sends ids from a range no LMS reaches, ``[base, 2**53)`` (default base ``2**52``,
about 4.5e15; below ``2**53`` every id is exact in JSON, JavaScript and Java doubles):

* exercise id: ``base + h("exercise", scenario) mod (2**53 - base)`` — stable per scenario
  (the same in every run), so a scenario's exercise is stored once;
* submission id: ``block * 2**20 + index``: the case's index in its scenario (1..N, as the loader
  numbers the files; below ``2**20``) in a block of ``2**20`` ids chosen by
  ``h("submission", seed, scenario)`` among the blocks at or above ``base``. The seed is the run
  name, so every run and scenario has its own block (``2**32`` blocks with the default base) and
  the submissions of one run never replace another's. The low 20 bits of a submission id are
  always the case's index (:func:`case_index`).

``h`` is the first 8 bytes of a SHA-256, so ids are the same on every machine and every worker.
Two scenarios of a run landing in the same block (odds about ``n**2 / 2**33`` for ``n``
scenarios) is detected by the target, which then fails those cases with a clear reason rather
than overwrite anything.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

ID_LIMIT = 1 << 53
"""Ids stay below this: JSON numbers are exact integers up to it (JavaScript, doubles)."""
DEFAULT_ID_BASE = 1 << 52
"""The start of Eunomia's id range by default (4,503,599,627,370,496)."""
CASE_BITS = 20
CASE_SLOTS = 1 << CASE_BITS
"""Submission ids per run and scenario: test cases per scenario must stay below this."""


@functools.lru_cache(maxsize=4096)
def _hash(*parts: str) -> int:
    digest = hashlib.sha256("\x00".join(parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def case_index(submission_id: int) -> int:
    """The case index (the loader's 1..N) a submission id Eunomia sent stands for."""
    return submission_id % CASE_SLOTS


def check_id_base(base: int) -> int:
    """``base`` if Eunomia's ids can start there (raises ``ValueError`` otherwise)."""
    if isinstance(base, bool) or not isinstance(base, int):
        raise ValueError(f"the Athena id base must be an integer, not {base!r}")
    first_block = -(-base // CASE_SLOTS)
    if base < 1 or (first_block + 1) * CASE_SLOTS > ID_LIMIT:
        raise ValueError(f"the Athena id base must be between 1 and {ID_LIMIT - CASE_SLOTS:,} "
                         f"(ids stay below 2**53), not {base:,}")
    return base


@dataclass(frozen=True, slots=True)
class AthenaIds:
    """The ids of one run: ``seed`` is the run's name ("" gives the run-independent ids)."""

    base: int = DEFAULT_ID_BASE
    seed: str = ""

    def __post_init__(self) -> None:
        check_id_base(self.base)

    @property
    def blocks(self) -> int:
        """How many blocks of :data:`CASE_SLOTS` submission ids the range holds."""
        return ID_LIMIT // CASE_SLOTS - self._first_block

    @property
    def _first_block(self) -> int:
        return -(-self.base // CASE_SLOTS)

    def exercise_id(self, scenario: str) -> int:
        """The scenario's exercise id: the same in every run."""
        return self.base + _hash("exercise", scenario) % (ID_LIMIT - self.base)

    def block(self, scenario: str) -> int:
        """The block of the scenario's submission ids in this run."""
        return self._first_block + _hash("submission", self.seed, scenario) % self.blocks

    def submission_id(self, scenario: str, index: int) -> int:
        """The id sent for the case numbered ``index`` (1..N) of ``scenario`` in this run."""
        if not 0 <= index < CASE_SLOTS:
            raise ValueError(f"scenario {scenario!r} has more than {CASE_SLOTS - 1:,} test "
                             "cases; Athena submission ids cannot be given to the rest")
        return self.block(scenario) * CASE_SLOTS + index
