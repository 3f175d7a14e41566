"""Write the task suite of ``bench_cli.py`` as a promptfoo config: one test per case with the
same system prompt and instruction, an ``equals`` assertion on the expected answer, and
promptfoo's ``openai:chat`` provider pointed at the benchmark's server (``apiBaseUrl``).

Used by ``bench_cli.py`` (promptfoo runs it with ``promptfoo eval -c FILE -j 100
--no-cache``); promptfoo is a measurement tool only, never a dependency of Eunomia.

    python bench/peers/promptfoo_config.py CASES.jsonl --base-url URL --out promptfooconfig.yaml
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

# A chat prompt: promptfoo sends a JSON list of messages as the conversation.
PROMPT = json.dumps([{"role": "system", "content": "{{system_prompt}}"},
                     {"role": "user", "content": "{{instruction}}"}])


def config(cases: Iterable[dict[str, Any]], base_url: str, model: str = "bench",
           api_key: str = "bench") -> dict[str, Any]:
    """The config as a mapping; each case has ``system_prompt``, ``instruction`` and
    ``expected_answer`` (the whole answer text the ``equals`` assertion wants)."""
    return {
        "description": "eunomia bench_cli task suite",
        "prompts": [PROMPT],
        "providers": [{"id": f"openai:chat:{model}",
                       "config": {"apiBaseUrl": base_url, "apiKey": api_key,
                                  "temperature": 0, "max_tokens": 512}}],
        "tests": [{"description": c["case_id"],
                   "vars": {"system_prompt": c["system_prompt"],
                            "instruction": c["instruction"]},
                   "assert": [{"type": "equals", "value": c["expected_answer"]}]}
                  for c in cases],
    }


def write(path: Path, cases: Iterable[dict[str, Any]], base_url: str) -> Path:
    """Write the config (JSON, which is YAML too) to ``path``."""
    path.write_text(json.dumps(config(cases, base_url), indent=1), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("cases", type=Path, help="JSON lines, one case a line")
    parser.add_argument("--base-url", required=True)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    with args.cases.open(encoding="utf-8") as f:
        write(args.out, (json.loads(line) for line in f if line.strip()), args.base_url)
    return 0


if __name__ == "__main__":
    sys.exit(main())
