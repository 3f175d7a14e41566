#!/usr/bin/env bash
# The current Athena modeling module (release 2.7) on an embedded model through
# `eunomia serve-model`, metered: one `eunomia run` against the module (LLM usage read from
# serve-model's record) and baseline:default, everything under `nice -n 10`.
#
#   bench/peers_current.sh OUT MODEL SCHEMA [EUNOMIA RUN ARGS...]
#     OUT     folder for the results, logs, the usage record and the load averages
#     MODEL   an embedded model (qwen2.5-coder-0.5b, qwen2.5-coder-1.5b...)
#     SCHEMA  a JSON schema file every json_object answer follows (--json-object-schema),
#             or "none"
#   e.g. bench/peers_current.sh /tmp/b05 qwen2.5-coder-0.5b examples/athena/feedback-schema.json \
#            examples/scenarios/project_management --run-name example
# Variables: EUNOMIA (the command, default .venv/bin/eunomia), GRADED (true; false sends
# isGraded false), SERVE_ARGS (more serve-model options).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$(realpath -m "$1")"; MODEL="$2"; SCHEMA="$3"; shift 3
read -r -a EUNOMIA <<< "${EUNOMIA:-$ROOT/.venv/bin/eunomia}"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
LLM_PORT="$(free_port)"; MODULE_PORT="$(free_port)"
mkdir -p "$OUT"
echo "before $(date -u +%FT%TZ) $(cat /proc/loadavg)" >> "$OUT/load.txt"
schema_args=()
[ "$SCHEMA" = none ] || schema_args=(--json-object-schema "$(realpath "$SCHEMA")")
# shellcheck disable=SC2086
nice -n 10 "${EUNOMIA[@]}" serve-model --model "local:$MODEL" --alias gpt-local --port "$LLM_PORT" \
    "${schema_args[@]}" ${SERVE_ARGS:-} > "$OUT/serve-model.log" 2>&1 &
SERVE_PID=$!
export ATHENA_PEER_RUN_DIR="$OUT/athena-run"
cleanup() {
    "$ROOT/scripts/peer-athena.sh" stop || true
    kill "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
    echo "after  $(date -u +%FT%TZ) $(cat /proc/loadavg)" >> "$OUT/load.txt"
}
trap cleanup EXIT
for _ in $(seq 1 240); do
    curl -fsS "http://127.0.0.1:$LLM_PORT/health" >/dev/null 2>&1 && break
    kill -0 "$SERVE_PID" 2>/dev/null || { cat "$OUT/serve-model.log"; exit 1; }
    sleep 1
done
"$ROOT/scripts/peer-athena.sh" start --llm-url "http://127.0.0.1:$LLM_PORT/v1" --no-manager \
    --port "$MODULE_PORT"
eval "$("$ROOT/scripts/peer-athena.sh" env)"
options="llm_usage=http://127.0.0.1:$LLM_PORT"
[ "${GRADED:-true}" = true ] || options="graded=false&$options"
status=0
ATHENA_SECRET="$ATHENA_SECRET" nice -n 10 "${EUNOMIA[@]}" run "$@" \
    --target "athena:$ATHENA_MODULE_URL?$options" --target baseline:default \
    --results "$OUT/results" --concurrency 1 --retries 2 --timeout 1800 --no-cache \
    > "$OUT/run.log" 2>&1 || status=$?
curl -fsS "http://127.0.0.1:$LLM_PORT/eunomia/usage" > "$OUT/usage.json"
echo "eunomia run exited $status; $OUT/run.log"
exit "$status"
