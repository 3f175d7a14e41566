#!/usr/bin/env bash
# README command 1: set up, then run the main job (the bundled example scenario).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/eunomia demo "$@"
