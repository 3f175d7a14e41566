"""The floor for ``bench_cli.py``: a plain asyncio + aiohttp loop doing the same work as an
``eunomia`` command, with nothing else (no store, no cache, no retries, no report).

``tasks`` reads the suite file ``eunomia eval`` reads (YAML, libyaml's loader), sends each
case's system prompt and instruction to an OpenAI-compatible ``/chat/completions`` with
``--concurrency`` requests in flight, applies each case's ``regex`` checks to the answer (as
``eunomia`` does: ``re.search`` ignoring case, multi-line), and writes one JSON line per case.

``scenario`` posts each test case file of an SGI scenario to an Athena-contract
``feedback_suggestions`` URL (the exercise part read from ``--exercise``, a JSON file of the
exercise as sent, made once by the caller), compares the structured grading instructions
chosen with the expected ones (``--expected``, a JSON file: case file name without ``.json``
→ the expected instruction ids, numbers as sent) and writes one JSON file per case (as
``eunomia run`` does).

It prints one JSON line: ``{"cases": N, "passed": P, "failed": F, "errors": E}``.

    python bench/plain_loop.py tasks SUITE.yaml --base-url URL --out FILE
    python bench/plain_loop.py scenario CASES_DIR --url URL --exercise EX.json \
        --expected EXPECTED.json --out DIR
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import Any

import aiohttp
import yaml

Job = Callable[[aiohttp.ClientSession], Awaitable[None]]


async def run_all(jobs: Iterable[Job], concurrency: int) -> None:
    """Run every job with at most ``concurrency`` in flight (a fixed pool of workers)."""
    connector = aiohttp.TCPConnector(limit=concurrency, limit_per_host=0)
    timeout = aiohttp.ClientTimeout(total=60)
    iterator = iter(jobs)
    async with aiohttp.ClientSession(connector=connector, timeout=timeout) as session:

        async def worker() -> None:
            for job in iterator:  # shared iterator: each job is taken once
                await job(session)

        await asyncio.gather(*(worker() for _ in range(concurrency)))


def tasks(args: argparse.Namespace) -> dict[str, int]:
    with open(args.suite, encoding="utf-8") as f:
        data = yaml.load(f, Loader=yaml.CSafeLoader)
    cases: list[dict[str, Any]] = data["test_cases"] if isinstance(data, dict) else data
    url = args.base_url.rstrip("/") + "/chat/completions"
    headers = {"Authorization": f"Bearer {args.api_key}"}
    counts = {"cases": len(cases), "passed": 0, "failed": 0, "errors": 0}
    out = open(args.out, "w", encoding="utf-8")  # noqa: SIM115 - closed below

    def job(case: dict[str, Any]) -> Job:
        async def call(session: aiohttp.ClientSession) -> None:
            messages = [{"role": "user", "content": case["instruction"]}]
            if case.get("system_prompt"):
                messages.insert(0, {"role": "system", "content": case["system_prompt"]})
            body = {"model": args.model, "messages": messages, "temperature": 0.0,
                    "max_tokens": 512}
            try:
                async with session.post(url, json=body, headers=headers) as response:
                    response.raise_for_status()
                    payload = await response.json()
                answer = payload["choices"][0]["message"]["content"]
            except (TimeoutError, aiohttp.ClientError, KeyError) as exc:
                counts["errors"] += 1
                out.write(json.dumps({"case_id": case["case_id"], "error": str(exc)}) + "\n")
                return
            checks = [c["regex"] for c in case.get("checks", []) if "regex" in c]
            ok = all(re.search(p, answer, re.IGNORECASE | re.MULTILINE) for p in checks)
            counts["passed" if ok else "failed"] += 1
            out.write(json.dumps({"case_id": case["case_id"], "answer": answer,
                                  "passed": ok}) + "\n")

        return call

    try:
        asyncio.run(run_all((job(c) for c in cases), args.concurrency))
    finally:
        out.close()
    return counts


def scenario(args: argparse.Namespace) -> dict[str, int]:
    exercise = Path(args.exercise).read_bytes()
    expected = {k: set(v) for k, v in json.loads(Path(args.expected).read_text()).items()}
    files = sorted(Path(args.cases).glob("*.json"))
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    headers = {"Content-Type": "application/json", "X-Server-URL": "http://localhost"}
    counts = {"cases": len(files), "passed": 0, "failed": 0, "errors": 0}

    def job(index: int, path: Path) -> Job:
        async def call(session: aiohttp.ClientSession) -> None:
            # small files read and written inline, as a plain script would; the diagram
            # goes as a JSON string (Athena answers 422 to an object)
            model = json.dumps(path.read_text(encoding="utf-8"))  # noqa: ASYNC240
            submission = (b'{"id":' + str(index + 1).encode() + b',"exerciseId":1,"model":'
                          + model.encode() + b',"meta":{}}')
            body = b'{"exercise":' + exercise + b',"submission":' + submission + \
                b',"isGraded":true}'
            try:
                async with session.post(args.url, data=body, headers=headers) as response:
                    response.raise_for_status()
                    payload = await response.json()
                chosen = {f["structuredGradingInstructionId"] for f in payload["data"]}
                credits = sum(float(f["credits"]) for f in payload["data"])
            except (TimeoutError, aiohttp.ClientError, KeyError, TypeError) as exc:
                counts["errors"] += 1
                (out_dir / f"{path.stem}.json").write_text(json.dumps({"error": str(exc)}))
                return
            ok = chosen == expected[path.stem]
            counts["passed" if ok else "failed"] += 1
            (out_dir / f"{path.stem}.json").write_text(json.dumps(
                {"case": path.stem, "chosen": sorted(chosen), "credits": credits,
                 "passed": ok, "response": payload}))

        return call

    asyncio.run(run_all((job(i, p) for i, p in enumerate(files)), args.concurrency))
    return counts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="kind", required=True)
    t = sub.add_parser("tasks", help="a task suite against an OpenAI-compatible server")
    t.add_argument("suite")
    t.add_argument("--base-url", required=True, help="…/v1 of the server")
    t.add_argument("--model", default="bench")
    t.add_argument("--api-key", default="bench")
    t.add_argument("--out", required=True, help="JSON lines, one per case")
    s = sub.add_parser("scenario", help="SGI test case files against an Athena-contract URL")
    s.add_argument("cases", help="folder of test case JSON files")
    s.add_argument("--url", required=True, help="the feedback_suggestions URL")
    s.add_argument("--exercise", required=True, help="JSON file: the exercise as sent")
    s.add_argument("--expected", required=True, help="JSON: case → expected instruction ids")
    s.add_argument("--out", required=True, help="folder: one result JSON file per case")
    for p in (t, s):
        p.add_argument("--concurrency", type=int, default=100)
    args = parser.parse_args()
    counts = tasks(args) if args.kind == "tasks" else scenario(args)
    print(json.dumps(counts), flush=True)
    return 0 if counts["errors"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
