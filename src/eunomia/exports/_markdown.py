"""The Markdown summary of a run (``--summary-md``, ``$GITHUB_STEP_SUMMARY``).

Headline metrics with their intervals per target (and suite), the notes and warnings of
the run's summaries (a scenario's comparison with ``baseline:default``...), how many cases
passed, the worst cases, and where the HTML report is. Every text that came from a model,
a submission or a file name is escaped: it shows as text, never as Markdown or HTML.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from eunomia.exports._records import ResultRecord
from eunomia.report import Columns, LeaderboardRow
from eunomia.stats import TOO_FEW

_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_SPECIAL = re.compile(r"([\\`*_\[\]|~])")
WORST_CASES = 10
"""Cases listed under "Worst cases"."""
CELL_CHARS = 200
"""The longest text in a table cell."""


def md_text(text: str, limit: int = CELL_CHARS) -> str:
    """``text`` as literal Markdown on one line: control characters dropped, line breaks as
    spaces, what could start markup (``\\ ` * _ [ ] | ~``) backslash-escaped, ``& < >`` as
    entities (no HTML), cut to ``limit``."""
    text = " ".join(_CONTROL.sub("", text).split())
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _SPECIAL.sub(r"\\\1", text)


def md_table(header: Sequence[str], rows: Sequence[Sequence[str]],
             right: Sequence[bool] | None = None) -> list[str]:
    """A GitHub-flavoured Markdown table (cells already escaped)."""
    align = ["---:" if r else "---" for r in (right or [False] * len(header))]
    out = ["| " + " | ".join(header) + " |", "| " + " | ".join(align) + " |"]
    out += ["| " + " | ".join(row) + " |" for row in rows]
    return out


def fmt(value: float | None, digits: int = 2, suffix: str = "") -> str:
    return "-" if value is None else f"{value:.{digits}f}{suffix}"


@dataclass(frozen=True, slots=True)
class Headline:
    """One target's (one suite's) results as the summary shows them."""

    target: str
    suite: str | None
    """None when the figures are over every suite of the run (task runs)."""
    row: LeaderboardRow
    notes: Sequence[str] = ()
    warnings: Sequence[str] = ()
    figures: Sequence[tuple[str, str]] = ()
    """More figures in words, (label, text)."""


@dataclass(frozen=True, slots=True)
class RunHeader:
    run: str
    title: str
    """What the run evaluates, e.g. "SGI scenario"."""
    status: str
    facts: Sequence[tuple[str, str]] = ()
    """More to say at the top (the judge, the pass score...)."""
    report: str | None = None
    """Where the HTML report is (or will be), and how to write it."""


@dataclass(slots=True)
class RecordDigest:
    """What the summary needs of a run's records, in bounded memory: counts per target and
    suite, and the worst cases."""

    limit: int = WORST_CASES
    counts: dict[tuple[str, str], Counter[str]] = field(default_factory=dict)
    worst: list[ResultRecord] = field(default_factory=list)

    def add(self, record: ResultRecord) -> None:
        self.counts.setdefault((record.target, record.suite), Counter())[record.outcome] += 1
        self.worst.append(record)
        if len(self.worst) > 4 * self.limit:
            self._trim()

    def _trim(self) -> None:
        self.worst.sort(key=_badness)
        del self.worst[self.limit:]

    def close(self) -> None:
        self._trim()

    def outcomes(self, target: str, suite: str | None) -> Counter[str]:
        out: Counter[str] = Counter()
        for (t, s), c in self.counts.items():
            if t == target and suite in (None, s):
                out.update(c)
        return out


_RANK = {"error": 0, "failed": 1, "skipped": 2, "passed": 3}


def _badness(r: ResultRecord) -> tuple[int, float, str, str, str, int]:
    return (_RANK[r.outcome], r.score if r.score is not None else float("-inf"), r.suite,
            r.case, r.target, r.repeat)


def _interval(row: LeaderboardRow, digits: int) -> str:
    s = row.score
    if s is None:
        return "-"
    if s.too_few:  # no interval over a handful of cases
        return f"{s.estimate:.{digits}f} ({TOO_FEW}, n={s.n})"
    return f"{s.estimate:.{digits}f} [{s.low:.{digits}f}, {s.high:.{digits}f}]"


def _outcome_line(c: Counter[str]) -> str:
    total = sum(c.values())
    parts = [f"{c['passed']}/{total} passed"]
    # "failed" as the terminal says it: a case the run could not complete (a CI error); a
    # case that ran and fell short of the pass rule "did not pass"
    parts += [f"{c[k]} {label}" for k, label in (("failed", "below the pass rule"),
                                                  ("error", "failed"),
                                                  ("skipped", "not scored")) if c[k]]
    return ", ".join(parts)


def run_summary(header: RunHeader, columns: Columns, headlines: Sequence[Headline],
                digest: RecordDigest) -> str:
    """The whole Markdown summary of a run."""
    total: Counter[str] = Counter()
    for c in digest.counts.values():
        total.update(c)
    bad = total["failed"] + total["error"]
    lines = [f"## Eunomia: {md_text(header.run)} ({md_text(header.title)})", ""]
    verdict = "every case passed" if not bad and total["passed"] == sum(total.values()) \
        else f"{bad} case(s) did not pass"
    lines.append(f"**{verdict}** ({_outcome_line(total)}) · run {md_text(header.status)}")
    for label, value in header.facts:
        lines.append(f"- {md_text(label)}: {md_text(value)}")
    lines.append("")
    many_suites = any(h.suite is not None for h in headlines)
    head = [columns.target, *(["Suite"] if many_suites else []), columns.score,
            *(["Detected"] if columns.detection else []), "Passed", columns.cost,
            "Mean latency", columns.consistency]
    rows = []
    for h in headlines:
        r = h.row
        rows.append([md_text(h.target), *([md_text(h.suite or "all")] if many_suites else []),
                     _interval(r, columns.score_digits),
                     *([fmt(None if r.detection_rate is None else 100 * r.detection_rate,
                            1, "%")] if columns.detection else []),
                     _outcome_line(digest.outcomes(h.target, h.suite)), fmt(r.total_cost, 4),
                     fmt(r.mean_latency_s, 3, " s"), fmt(r.consistency, 3)])
    if rows:
        lines += md_table(head, rows, [False] * (1 + many_suites) + [True] * (len(head) - 1
                                                                                - many_suites))
        lines.append("")
        lines.append(f"Score: the mean with its 95% bootstrap interval over cases "
                     f"({md_text(columns.score_label)}).")
        lines.append("")
    lines += _figures(headlines)
    notes = [(h, n) for h in headlines for n in h.notes]
    warnings = [(h, w) for h in headlines for w in h.warnings]
    for title, items in (("Notes", notes), ("Warnings", warnings)):
        if items:
            lines.append(f"**{title}**")
            lines.append("")
            lines += [f"- {_where(h, len(headlines))}{md_text(text, 1000)}" for h, text in items]
            lines.append("")
    lines += worst_cases(digest.worst, sum(total.values()) - total["passed"])
    if header.report:
        lines.append(f"HTML report: {md_text(header.report, 500)}")
        lines.append("")
    return "\n".join(lines)


def _figures(headlines: Sequence[Headline]) -> list[str]:
    """Each headline's figures in words, one a line (under its target and suite when the
    run has several)."""
    lines: list[str] = []
    for h in headlines:
        if not h.figures:
            continue
        if len(headlines) > 1:
            lines += [f"**{_where(h, len(headlines)).removesuffix(': ')}**", ""]
        lines += [f"- {md_text(f'{label}: {text}', 1000)}" for label, text in h.figures]
        lines.append("")
    return lines


def _where(h: Headline, count: int) -> str:
    if count <= 1:
        return ""
    return md_text(h.target if h.suite is None else f"{h.target} / {h.suite}") + ": "


def worst_cases(records: Sequence[ResultRecord], not_passed: int) -> list[str]:
    """The "Worst cases" section: the cases that did not pass, errors first, then the lowest
    scores."""
    shown = [r for r in records if not r.passed]
    if not shown:
        return ["**Worst cases**: none, every case passed.", ""] if records else []
    rows = [[md_text(r.suite), md_text(r.case), md_text(r.target), str(r.repeat), r.outcome,
             fmt(r.score, 2), md_text(_why(r), 300)] for r in shown]
    lines = [f"**Worst cases** ({len(rows)} of the {not_passed} that did not pass)", ""]
    lines += md_table(["Suite", "Case", "Target", "Repeat", "Outcome", "Score", "Why"], rows,
                      [False, False, False, True, False, True, False])
    lines.append("")
    return lines


def _why(r: ResultRecord) -> str:
    parts = [r.reason or ("" if r.passed else r.status)]
    if r.diff:
        parts.append(r.diff.replace("\n", "; "))
    return " — ".join(p for p in parts if p) or "-"
