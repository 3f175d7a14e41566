"""Serve the tests' scripted Athena stand-in LLM on 127.0.0.1 until stopped (bench/peers.md).

    .venv/bin/python bench/peers_standin.py [--port N] [--log FILE]

Prints the base URL (``http://127.0.0.1:<port>/v1``) on its first line. On SIGINT/SIGTERM it
writes a JSON line per chat completion it answered (kind, usage, seconds since start) to
``--log`` when given, and a one-line count to stdout.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from aiohttp import web  # noqa: E402
from tests.support.athena_llm_standin import AthenaLLMStandin  # noqa: E402


class FixedPortStandin(AthenaLLMStandin):
    port = 0

    async def start(self) -> None:
        app = web.Application()
        self.add_routes(app)
        self._runner = web.AppRunner(app, access_log=None)
        await self._runner.setup()
        await web.TCPSite(self._runner, "127.0.0.1", self.port).start()
        port = int(self._runner.addresses[0][1])
        self.url = f"http://127.0.0.1:{port}{self.url_path}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log")
    args = parser.parse_args()
    standin = FixedPortStandin()
    standin.port = args.port
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    signal.signal(signal.SIGINT, lambda *_: done.set())
    started = time.monotonic()
    with standin.in_thread():
        print(standin.url, flush=True)
        done.wait()
        calls = standin.completions
    if args.log:
        with open(args.log, "w") as out:
            for e in calls:
                usage = (e.response_json or {}).get("usage", {})
                out.write(json.dumps({"kind": e.kind, "status": e.status,
                                      "at_s": round(e.at - started, 3), **usage}) + "\n")
    print(f"{len(calls)} chat completions answered", flush=True)


if __name__ == "__main__":
    main()
