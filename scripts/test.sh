#!/usr/bin/env bash
# README command 2 (and CI): set up with the dev tools, the embedded local model used by the
# end-to-end tests (gemma3-270m; llama-cpp-python builds from source, about 9 minutes on 2
# cores the first time) and headless Chromium, then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --dev --ray --anthropic
scripts/setup-local-model.sh gemma3-270m
scripts/install-chromium.sh || true  # browser tests of the HTML report; they skip without it
echo "==> ruff"
.venv/bin/ruff check .
echo "==> mypy"
.venv/bin/mypy
echo "==> pytest"
exec .venv/bin/pytest "$@"
