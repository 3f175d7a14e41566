#!/usr/bin/env bash
# README command 2 (and CI): set up with the dev tools, then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --dev
scripts/install-chromium.sh || true  # browser tests of the HTML report; they skip without it
echo "==> ruff"
.venv/bin/ruff check .
echo "==> mypy"
.venv/bin/mypy
echo "==> pytest"
exec .venv/bin/pytest "$@"
