"""How far each embedded (local) model can be trusted as a judge, in plain words.

Measured with ``eunomia judge-check examples/tasks/ecommerce`` (the bundled suite: can the
judge tell each case's reference from another case's answer, its first third and a refusal?)
and recorded in bench/local_models.md, "As judges"; the likelihood judges
(``likelihood:local:<name>``) and what every local judge gives an answer that says nothing or
that reads right and is wrong, in bench/judge_floor.md. ``eval`` prints the sentence of its
judge beside the scores, so nobody reads a local judge's numbers as more than they are. A
judge that is not a local model has no such figures here: check it with ``judge-check``.
"""

from __future__ import annotations

from eunomia.errors import EunomiaError
from eunomia.models import LIKELIHOOD, LIKELIHOOD_FEEDBACK, local_model, split_scoring

LOCAL_JUDGES: dict[str, str] = {
    "qwen2.5-coder-1.5b": (
        "tells good from bad answers on the bundled suite (judge-check, 10 cases: AUC 0.95 "
        "sampled, 0.97 probability-weighted, 95% CI 0.93-1.00), but it is lenient: it gives "
        "an answer that says nothing about as much as the reference (3.3 against 3.7 of 5 "
        "on 3 cases, bench/judge_floor.md), so its scores up to about 4 say nothing about "
        "an answer; it scores changed numbers and names lower, an ignored form not; it is a "
        "1.5B model, so check it on your own suites (eunomia judge-check)"),
    "qwen2.5-coder-0.5b": (
        "gives nearly every answer 5: its sampled scores are not evidence (judge-check on "
        "the bundled suite, 10 cases: AUC 0.52, 95% CI 0.50-0.55); its probability-weighted "
        "score tells good from bad answers only weakly (AUC 0.75, 95% CI 0.67-0.86): read "
        "it as rough, never as a decision"),
    "gemma3-270m": (
        "cannot judge: it gives every answer 0 and its probability-weighted score is noise "
        "(judge-check on the bundled suite, 10 cases: AUC 0.50 sampled, 0.23 weighted); its "
        "scores are not evidence (a model for tests only)"),
}


LIKELIHOOD_JUDGES: dict[str, str] = {
    "qwen2.5-coder-1.5b": (
        "scoring by likelihood tells a reference from another case's answer, its first third "
        "and a refusal (5 cases of the bundled suite: AUC 0.96 sampled, 0.97 "
        "probability-weighted) and scores references with altered facts lower (AUC 0.89, 95% "
        "CI 0.78-0.97), but it is lenient: an answer that says nothing gets 3.4 of 5, as much "
        "as the reference (AUC 0.50), so scores up to about 3.8 say nothing; read a "
        "candidate's score against that floor, and check the judge on your suites"),
    "qwen2.5-coder-0.5b": (
        "scoring by likelihood gives nearly every answer 5, an answer that says nothing and "
        "the reference's altered facts included (5 cases of the bundled suite: AUC 0.53 "
        "sampled, 0.72 probability-weighted): its scores are not evidence"),
    "gemma3-270m": (
        "scoring by likelihood gives every answer 0 and its probability-weighted score is "
        "noise (5 cases of the bundled suite: AUC 0.50 sampled, 0.41 weighted): its scores "
        "are not evidence (a model for tests only)"),
}
"""The likelihood judges' sentences (bench/judge_floor.md)."""


def local_judge_name(spec: str) -> str | None:
    """The local model a judge spec names (``local`` is the default local model;
    ``likelihood:local:<name>`` its likelihood judge), or None when the spec is not a local
    model."""
    kind, _, name = split_scoring(spec)[1].strip().partition(":")
    if kind.lower() != "local":
        return None
    try:
        return local_model(name or None).name
    except EunomiaError:
        return None


def judge_trust(spec: str) -> str | None:
    """How far the judge ``spec`` can be trusted, as measured (see the module); None for a
    judge that is not one of the local models."""
    name = local_judge_name(spec)
    by_likelihood = split_scoring(spec)[0] in (LIKELIHOOD, LIKELIHOOD_FEEDBACK)
    table = LIKELIHOOD_JUDGES if by_likelihood else LOCAL_JUDGES
    text = table.get(name) if name is not None else None
    return None if text is None else f"judge {name} {text}"
