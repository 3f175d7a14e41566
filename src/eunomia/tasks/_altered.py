"""Every answer that looks right and is wrong, of one case: the reference with its facts
altered (:mod:`eunomia.tasks._facts`) and in a form the case did not ask for
(:mod:`eunomia.tasks._form`). Documented one by one in docs/judge-check.md."""

from __future__ import annotations

from collections.abc import Sequence

from eunomia.tasks._facts import Altered, fact_altered
from eunomia.tasks._form import form_ignored
from eunomia.tasks._model import LoadedCase


def altered_answers(case: LoadedCase, reference: str, others: Sequence[str] = ()
                    ) -> list[Altered]:
    """The altered answers of ``case`` (its reference: ``reference``; ``others``: the other
    references of its suite), in :data:`~eunomia.tasks.ALTERED_KINDS` order: each one
    built, or skipped with the reason — never the reference copied."""
    return [*fact_altered(case, reference, others), form_ignored(case, reference)]
