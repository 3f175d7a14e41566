"""Summarise one bench/peers_current.sh folder: the module's cases (status, score, feedback,
SGI ids), the LLM calls serve-model recorded (tokens, seconds), and the load averages.

    python bench/peers_current_summary.py OUT [OUT...]
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def summarise(out: Path) -> dict[str, object]:
    calls = json.loads((out / "usage.json").read_text())["calls"]
    done = [c for c in calls if c["input_tokens"] is not None]
    seconds = [c["ended_at"] - c["started_at"] for c in calls]
    # the run's folder, not the store's lock folder beside it
    [results] = [p for p in (out / "results").iterdir() if (p / "run.json").is_file()]
    athena = next(p for p in results.iterdir() if p.is_dir() and p.name.startswith("athena"))
    scenario = next(p for p in athena.iterdir() if p.is_dir())
    summary = json.loads((scenario / "scenario_results.json").read_text())
    cases = [json.loads(p.read_text()) for p in sorted((scenario / "test_cases").glob("*.json"))]
    scored = [c for c in cases if c["status"] == "scored"]
    answers = {tuple(sorted(i["id"] for i in c.get("returned_instructions", []))) for c in scored}
    latency = [c["request_time_s"] for c in scored if c["request_time_s"] is not None]
    metered = [c["cost"].get("metered", {}) for c in scored]
    return {
        "folder": out.name,
        "load": (out / "load.txt").read_text().split("\n")[:2],
        "cases": len(cases), "scored": len(scored),
        "failed": [(c["test_case"], c["error"][:80] if c["error"] else None)
                   for c in cases if c["status"] != "scored"],
        "score_percent": summary["average_test_case_score"],
        "fully_correct": summary["fully_correct_cases"],
        "feedback_items": summary["feedback_items"],
        "naming_an_instruction": summary["feedback_items_naming_an_instruction"],
        "distinct_answers": len(answers),
        "cases_with_unknown_cost": summary["cases_with_unknown_cost"],
        "total_cost": summary["total_cost"],
        "run_input_tokens": summary["input_tokens"], "run_output_tokens": summary["output_tokens"],
        "attribution": sorted({m.get("attribution", "-") for m in metered}),
        "llm_calls": len(calls), "llm_calls_with_usage": len(done),
        "llm_status": sorted({c["status"] for c in calls}),
        "llm_in_per_call": statistics.median([c["input_tokens"] for c in done]) if done else None,
        "llm_cached_per_call": statistics.median([c["cached_input_tokens"] for c in done])
        if done else None,
        "llm_out_per_call": (min(c["output_tokens"] for c in done),
                             statistics.median([c["output_tokens"] for c in done]),
                             max(c["output_tokens"] for c in done)) if done else None,
        "llm_seconds_first_median_range": (round(seconds[0], 1),
                                           round(statistics.median(seconds[1:] or seconds), 1),
                                           round(min(seconds), 1), round(max(seconds), 1))
        if seconds else None,
        "case_seconds_median_range": (round(statistics.median(latency), 1),
                                      round(min(latency), 1), round(max(latency), 1))
        if latency else None,
    }


if __name__ == "__main__":
    for folder in sys.argv[1:]:
        print(json.dumps(summarise(Path(folder)), indent=1))
