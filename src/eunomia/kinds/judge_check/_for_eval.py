"""The judge check an eval ran first (``eunomia eval --judge-check``), as the eval run keeps it.

The check is its own stored run (kind ``judge_check``, named ``<eval run>-judge-check``);
the eval run's settings hold a link to it and its verdicts (``settings["judge_check"]``,
written when the eval starts, after the check), so every output of the eval — terminal
summary, result files, Markdown summary, HTML report — shows the verdict beside the scores
without reading the check's answers again.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from eunomia.store import RunInfo

SETTING = "judge_check"
"""The key of the eval run's settings that holds :class:`StoredCheck`."""
UNTRUSTED = ("cannot_tell", "unknown")
"""Verdicts that make the judge's scores not evidence: said as warnings, not notes."""


class StoredVerdict(BaseModel):
    """One verdict of the check: of the judge on one suite (``suite`` None: on all)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    judge: str
    suite: str | None
    level: Literal["good", "weak", "cannot_tell", "unknown"]
    text: str
    auc: float | None = None
    auc_low: float | None = None
    auc_high: float | None = None
    lenient: bool = False
    """It gives an answer that says nothing 2 or more of 5: never trusted then."""

    @property
    def trusted(self) -> bool:
        return self.level not in UNTRUSTED and not self.lenient

    def line(self) -> str:
        where = "all suites" if self.suite is None else self.suite
        return f"judge check of {self.judge} on {where}: {self.text}"

    def short(self) -> str:
        """The verdict in a few words, with the AUC (the report's card, the CSV)."""
        auc = "" if self.auc is None else f" (AUC {self.auc:.2f}; too few cases to tell)" \
            if self.auc_low is None or self.auc_high is None else (
            f" (AUC {self.auc:.2f}, 95% CI {self.auc_low:.2f}-{self.auc_high:.2f})")
        if self.lenient and self.level in ("good", "weak"):
            return "lenient: an answer that says nothing scores 2 or more" + auc
        return {"good": "can judge", "weak": "judges only weakly",
                "cannot_tell": "cannot tell good from bad: its scores are not evidence",
                "unknown": "too few cases to tell"}[self.level] + auc


class StoredCheck(BaseModel):
    """The link from an eval run to the check of its judge, with the check's verdicts."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    run: str
    """The stored judge-check run (``eunomia report <run>`` shows all its figures)."""
    judge: str
    verdicts: list[StoredVerdict]
    failed: int = 0
    """Controlled answers whose judge call failed after the retries."""

    def for_suite(self, suite: str) -> StoredVerdict | None:
        return next((v for v in self.verdicts if v.suite == suite), None)

    @property
    def overall(self) -> StoredVerdict | None:
        """Over all suites (several suites), or the only suite's verdict."""
        found = next((v for v in self.verdicts if v.suite is None), None)
        return found or (self.verdicts[0] if len(self.verdicts) == 1 else None)

    def to_settings(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


def stored_check(run: RunInfo) -> StoredCheck | None:
    """The check linked from an eval run (None: the eval ran without ``--judge-check``, or
    its link cannot be read)."""
    raw = run.settings.get(SETTING)
    if not isinstance(raw, dict):
        return None
    try:
        return StoredCheck.model_validate(raw)
    except ValidationError:
        return None


def check_messages(check: StoredCheck | None) -> tuple[list[str], list[str]]:
    """(notes, warnings) of the check: every suite's verdict (and the one over all suites),
    untrusted ones as warnings, the others as notes, and where the check is stored."""
    if check is None:
        return [], []
    notes: list[str] = []
    warnings: list[str] = []
    for v in check.verdicts:
        (notes if v.trusted else warnings).append(v.line())
    if check.failed:
        warnings.append(f"judge check of {check.judge}: {check.failed} controlled answer(s) "
                        "could not be judged (failed calls); the verdict leaves them out")
    notes.append(f"judge check stored as run {check.run} (eunomia report {check.run})")
    return notes, warnings


VERDICT_COLUMNS = ("judge", "suite", "level", "trusted", "auc", "auc_low", "auc_high",
                   "verdict", "judge_check_run")


def verdict_rows(check: StoredCheck) -> list[dict[str, Any]]:
    """``tables/judge_check_verdicts.csv``: one row per verdict."""
    return [{"judge": v.judge, "suite": v.suite if v.suite is not None else "(all suites)",
             "level": v.level, "trusted": v.trusted,
             "auc": "" if v.auc is None else round(v.auc, 4),
             "auc_low": "" if v.auc_low is None else round(v.auc_low, 4),
             "auc_high": "" if v.auc_high is None else round(v.auc_high, 4),
             "verdict": v.text, "judge_check_run": check.run} for v in check.verdicts]


def check_json(check: StoredCheck | None) -> dict[str, Any] | None:
    """The check in ``tasks_results.json``."""
    if check is None:
        return None
    return {"run": check.run, "judge": check.judge, "failed_answers": check.failed,
            "trusted": all(v.trusted for v in check.verdicts),
            "verdicts": [{**v.model_dump(mode="json"), "trusted": v.trusted}
                         for v in check.verdicts]}

