#!/usr/bin/env bash
# Create (or update) the virtual environment at .venv and install Eunomia into it.
#   scripts/setup.sh          runtime only
#   scripts/setup.sh --dev    plus the test and lint tools
#   scripts/setup.sh --ray    plus Ray for --executor ray
#   scripts/setup.sh --anthropic   plus the Anthropic SDK (options combine)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "Eunomia needs Python 3.11 or newer (found: $("$PYTHON" --version 2>&1))." >&2
    exit 1
fi

extras=""
for arg in "$@"; do
    case "$arg" in
        --dev) extras="${extras:+$extras,}dev" ;;
        --ray) extras="${extras:+$extras,}ray" ;;
        --anthropic) extras="${extras:+$extras,}anthropic" ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done

if [ ! -x .venv/bin/python ]; then
    echo "==> creating the virtual environment in .venv"
    "$PYTHON" -m venv .venv
fi
echo "==> installing Eunomia${extras:+ with [$extras]} into .venv"
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
if [ -n "$extras" ]; then
    .venv/bin/python -m pip install --disable-pip-version-check --progress-bar on -e ".[$extras]"
else
    .venv/bin/python -m pip install --disable-pip-version-check --progress-bar on -e .
fi
