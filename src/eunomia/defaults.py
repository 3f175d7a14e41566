"""Every default value Eunomia uses, in one place.

Modules import their defaults from here so a newcomer can see (and a user can
look up) what happens when an option is not given.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

# --- operational settings (never part of a cache key) -----------------------
CONCURRENCY: Final = 10
"""Requests in flight at once per target."""
REQUEST_TIMEOUT_S: Final = 120.0
"""Per-request timeout in seconds (connect + full response)."""
RETRIES: Final = 3
"""Extra attempts after the first one for retryable failures."""
BACKOFF_INITIAL_S: Final = 0.5
"""First backoff delay; doubled at each attempt, with full jitter."""
BACKOFF_MAX_S: Final = 30.0
"""Upper bound for one backoff delay."""
RETRY_AFTER_MAX_S: Final = 120.0
"""A server's Retry-After is honoured up to this many seconds."""

MAX_RESPONSE_BYTES: Final = 10_000_000
"""The largest answer body read from a system under test, a model or a judge (10 MB): past it
the case fails with a reason naming the limit, and nothing more is read, so memory stays
bounded whatever a system answers (see :mod:`eunomia.scheduler._body`). Operational: not part
of a cache key."""
MAX_RESPONSE_OPTION: Final = "--max-response-mb"
"""The run option that sets another response limit, in megabytes (e.g. ``50``)."""
MAX_RESPONSE_MB_LIMIT: Final = 100_000
"""The largest response limit that may be set, in megabytes."""
FEEDBACK_TEXT_MAX: Final = 100_000
"""A feedback item's text (title, description...) longer than this many characters is cut in
the result files and the report, saying so; the whole answer stays in the run store."""
ERROR_BODY_BYTES: Final = 65_536
"""Of an error answer (HTTP 4xx/5xx), only this much is read: its start is all a reason shows."""

GC_THRESHOLDS: Final = (20_000, 20, 20)
"""The ``eunomia`` command's cyclic garbage collector thresholds (Python's: 700, 10, 10). A run
allocates many short-lived objects with few cycles; at Python's thresholds the collector took
0.05 (eval) to 0.1 ms (run) of CPU per case on 5,000 cases, at these ~0.01 ms (bench/README.md).
Memory is bounded the same way: unreachable cycles are still collected, less often."""

# --- Athena feedback servers --------------------------------------------------
ATHENA_SECRET_ENV: Final = "ATHENA_SECRET"
"""Environment variable holding the Authorization secret."""
ATHENA_X_SERVER_URL: Final = "http://localhost"
"""Value of the X-Server-URL header (the LMS the module believes it serves)."""
ATHENA_MODULE_URL: Final = "http://127.0.0.1:5008/feedback_suggestions"
"""The ``server_url`` a scenario made by ``eunomia import athena`` names by default."""

# --- files and folders ----------------------------------------------------------
RESULTS_DIR: Final = Path("results")
MANIFEST_FILE: Final = "manifest.yml"
TEST_CASES_DIR: Final = "test_cases"
MUTATIONS_FILE: Final = "mutations.yml"
"""A scenario's mutation rules when they are not in its manifest (``eunomia mutate``)."""
MUTATE_MAX_PER_CASE: Final = 2
"""``eunomia mutate --max-mutations``: a generated case combines 1 to this many mutations."""
MUTATE_SEED: Final = 0
MAX_MUTANTS: Final = 100_000
"""The most cases one ``eunomia mutate`` writes."""
MUTATE_CASES_SHOWN: Final = 20
"""Generated cases listed on the terminal (all are in the manifest)."""
LLM_COST_FILE: Final = "llm_cost.yml"
LABELS_FILE: Final = "labels.yml"
"""Labels given with ``eunomia label``: beside a scenario's manifest (the expected
instructions of its cases) or in a folder of task suites (human scores of answers)."""

# --- example feedback server -----------------------------------------------------
EXAMPLE_SERVER_HOST: Final = "127.0.0.1"
EXAMPLE_SERVER_PORT: Final = 5008

# --- scoring -------------------------------------------------------------------------
DIFF_INSTRUCTION_WEIGHT: Final = 2.0
"""Weight of the instructions a test case is about (its diffs) in the case score."""
DEFAULT_INSTRUCTION_WEIGHT: Final = 1.0
"""Weight of every other expected instruction in the case score."""
SCORE_TOLERANCE: Final = 1e-9
"""Two point totals closer than this are equal."""

# --- terminal ---------------------------------------------------------------------------
PROGRESS_REFRESH_PER_S: Final = 4.0
"""The progress bar redraws at most this often, whatever the case rate."""

# --- models (eunomia.models) ----------------------------------------------------------
MODEL_TEMPERATURE: Final = 0.0
"""Sampling temperature; 0 makes answers reproducible. Part of cache keys."""
MODEL_MAX_TOKENS: Final = 1024
"""Upper bound on the tokens of one answer. Part of cache keys."""
MODEL_SEED: Final = 0
"""Sampling seed sent to providers that accept one. Part of cache keys."""
MODEL_SPEC: Final = "local"
"""Model used when none is given (``--model``)."""
LOCAL_MODEL: Final = "qwen2.5-coder-0.5b"
"""The local model that ``local`` (without ``:<name>``) means.

Chosen by measurement (bench/llm_engine.md): the only one that grades the 14 example
cases within the 5-minute budget on 2 CPU cores, with judgements about as good as the
1.5B's there (which needs about 6 minutes)."""
DEMO_TARGET: Final = "llm:local"
"""What ``eunomia demo`` (the README's first command) evaluates the example scenario with."""
LOCAL_CONTEXT_TOKENS: Final = 8192
"""Context window the local model is loaded with (prompt + answer)."""
LOCAL_THREADS: Final[int | None] = None
"""CPU threads for local inference; ``None`` means every core but one (at least 1).

Measured on 2 cores (bench/local_models.md): when other work shares the CPU, llama.cpp's
threads spin-wait for each other and 2 threads need up to 10x the CPU of 1 for the same
answer; one thread stays steady.
"""
LOCAL_THREADS_ENV: Final = "EUNOMIA_LOCAL_THREADS"
"""Environment variable overriding the thread count (fewer when other work shares the CPU)."""
MODEL_CACHE_ENV: Final = "EUNOMIA_CACHE_DIR"
"""Environment variable overriding the cache folder (assembled weights go in ``models/``)."""
MODEL_CONFIG_FILE: Final = "models.yml"
"""Model configuration file looked up in the working directory."""
OPENAI_BASE_URL: Final = "https://api.openai.com/v1"
"""Endpoint of the ``openai`` provider when neither the config nor the environment set one."""
OPENAI_BASE_URL_ENV: Final = "OPENAI_BASE_URL"
"""Environment variable with an OpenAI-compatible base URL."""
OPENAI_API_KEY_ENV: Final = "OPENAI_API_KEY"
"""Environment variable with the key of the ``openai`` provider."""
ANTHROPIC_API_KEY_ENV: Final = "ANTHROPIC_API_KEY"
"""Environment variable with the key of the ``anthropic`` provider."""

# --- built-in LLM feedback engine (eunomia.llm_feedback, --target llm:<spec>, serve) ---------
ENGINE_SERVER_HOST: Final = "127.0.0.1"
"""Address ``eunomia serve`` binds."""
ENGINE_SERVER_PORT: Final = 5008
"""Port ``eunomia serve`` listens on (Athena modules' usual port)."""
MODEL_SERVER_HOST: Final = "127.0.0.1"
"""``eunomia serve-model`` binds here (loopback: only this machine can use the model)."""
MODEL_SERVER_PORT: Final = 8000
"""``eunomia serve-model``'s port (the port OpenAI-compatible local servers use)."""
ENGINE_MODULE_NAME: Final = "module_modeling_llm"
"""Module name in the module-manager path of ``eunomia serve``."""
ENGINE_SYSTEM_TEMPLATE: Final = "system.txt"
"""File name of the system prompt template (in the engine's prompts folder or --prompt-dir)."""
ENGINE_USER_TEMPLATE: Final = "user.txt"
"""File name of the user prompt template."""
ENGINE_FEEDBACK_MAX_CHARS: Final[int | None] = 160
"""``maxLength`` of each feedback sentence in the answer schema (bounds generation time)."""
ENGINE_TOKENS_PER_CRITERION: Final = 80
"""Answer budget per criterion; ``max_tokens`` = this x criteria + ENGINE_TOKENS_BASE."""
ENGINE_TOKENS_BASE: Final = 32
"""Fixed part of the answer budget (braces, keys)."""
ENGINE_MODES: Final = ("generate", "likelihood")
"""How the engine chooses instructions: ``generate`` a JSON answer (any chat model), or score
every instruction's label by ``likelihood`` (models with log-probabilities: the local ones).
``--target llm:<mode>:<spec>`` picks one; ``llm:<spec>`` takes the model's default."""
ENGINE_LOCAL_MODE: Final = "likelihood"
"""The mode of ``llm:local`` (faster, and better than ``baseline:default`` on the example
scenario: bench/llm_engine.md). Other providers generate."""
ENGINE_LIKELIHOOD_MARGIN: Final = 0.5
"""Likelihood mode: the default instruction (highest credits) is kept unless another one's
calibrated mean log-probability beats it by more than this."""

# --- run store and cache ---------------------------------------------------------
STORE_FILE: Final = "eunomia.db"
"""The run store, inside the results folder unless ``--store`` says otherwise."""
STORE_BUSY_TIMEOUT_S: Final = 5.0
"""How long to wait for a database locked by another process before failing clearly."""
RUN_LOCK_WAIT_S: Final = 1.0
"""A run that starts or resumes waits this long for its lock when another process holds it
(one that only asks whether the run is alive holds it for microseconds) before it says that
the run is running elsewhere (see :mod:`eunomia.store._lock`)."""
FILE_WRITE_INLINE_MAX_S: Final = 100e-6
"""Per-case result files are written on the event loop while writing one takes at most this
long on average, on a background thread once it takes longer (see
:class:`eunomia.exports.FileWriter`)."""
STORE_GROUP_DELAY_S: Final = 0.05
"""During a run, finished cases are committed together, one transaction for the cases that
finished within this many seconds: a larger group costs less per case (SQLite: ~65 µs per
task case in groups of 20, ~40 µs in groups of 200); a crash loses at most these cases,
which --resume asks for again."""
STORE_GROUP_MAX_CASES: Final = 500
"""A group of finished cases is committed at once when it reaches this many."""
STORE_KNOWN_BLOBS_MAX: Final = 50_000
"""Blob hashes remembered as already stored (to skip compressing them again); the memory
is cleared when it reaches this many, so it does not grow with the run (~6 MB at most)."""
STORE_RAW_BLOB_BYTES: Final = 1024
"""Blobs below this size are stored as they are: zlib would halve them at ~10 µs each (a
task case stores four: its case, request, answer and result), more than their writing costs."""
CACHE_LOOKUP_CHUNK: Final = 256
"""A scenario run looks its cases up in the response cache this many at a time (one query)."""

# --- judged task suites (eunomia eval, eunomia.tasks, eunomia.judge) -------------------
JUDGE_SPEC: Final = "local:qwen2.5-coder-1.5b"
"""Judge model used when ``--judge`` is not given: the embedded model that, of the local
ones, tells good from bad answers (judge-check AUC 0.95 sampled, 0.97 probability-weighted
on the bundled suite; the default local model, the 0.5B, gives nearly every answer 5:
bench/local_models.md, "As judges"). Its weights: scripts/setup-local-model.sh
qwen2.5-coder-1.5b."""
JUDGE_WEIGHTED: Final = True
"""Judges ask for the score tokens' probabilities (``logprobs``) and report the probability-
weighted (G-Eval) score beside the sampled one, where the provider gives them; a server that
refuses ``logprobs`` is asked again without (bench/local_models.md, "As judges")."""
JUDGE_REPEATS: Final = 1
"""Times each answer is scored by the judge (``--judge-repeats``); >1 measures judge agreement."""
JUDGE_MAX_TOKENS: Final = 400
"""Answer budget of one judge call (score + feedback). Part of judge cache keys."""
JUDGE_FEEDBACK_MAX_CHARS: Final = 800
"""``maxLength`` of the judge's feedback in its answer schema (bounds generation time)."""
JUDGE_RUBRIC_FILE: Final = "rubric_0_5.txt"
"""The bundled rubric prompt (in ``eunomia/judge/prompts``); ``--rubric`` replaces it."""
CONTROL_SAMPLE: Final = 20
"""Cases per suite whose control answers (the content-free answer, another case's reference)
the judge scores beside the candidates; every case of a smaller suite (eunomia.tasks)."""
CONTROL_SEED: Final = 0
"""Seed of the sample of control cases: the same suite, the same sample."""
LOCAL_JUDGE_SECONDS: Final = {
    "generate": {"qwen2.5-coder-1.5b": 19.0, "qwen2.5-coder-0.5b": 13.5, "gemma3-270m": 4.0},
    "likelihood": {"qwen2.5-coder-1.5b": 5.0, "qwen2.5-coder-0.5b": 3.7, "gemma3-270m": 1.3},
}
"""CPU seconds a local judge takes per judged answer on one idle core (bench/local_models.md,
bench/judge_floor.md): what ``eval`` says its controls will take before it starts them."""
LENIENT_FLOOR: Final = 2.0
"""A judge whose content-free answers average this much or more (of 5) is lenient."""
DIFFICULTY_WEIGHTS: Final = {"easy": 1.0, "medium": 2.0, "hard": 3.0}
"""Weight of a case by difficulty in the difficulty-weighted mean (``--weights``)."""
CONFIDENCE: Final = 0.95
"""Confidence level of the bootstrap intervals in task summaries."""
BOOTSTRAP_RESAMPLES: Final = 2000
"""Bootstrap resamples for the confidence intervals of task summaries."""
BOOTSTRAP_SEED: Final = 0
"""Seed of the bootstrap, so the same results give the same intervals."""
SPEED_LENGTH_INSTRUCTION: Final = "Answer in about {words} words."
"""Appended to inference-speed instructions that carry ``expected_output_length``."""
SPEED_TOKENS_PER_WORD: Final = 2.0
"""Answer budget of inference-speed cases: this many tokens per expected word (at least
MODEL_MAX_TOKENS), so a long answer is not cut short."""
TASK_SUITE_EXTENSIONS: Final = (".yaml", ".yml")
"""Files of a folder given to ``eunomia eval`` that are read as task suites."""
TASK_SNAPSHOT_CHUNK_CASES: Final = 500
"""Cases per stored chunk of a suite snapshot in the run store (one blob each): a run, and
an export from the store, hold one chunk of the suite at a time, never the whole suite."""

# --- HTML report and viewer (eunomia report, eunomia view) ----------------------------
REPORT_FILE: Final = "report.html"
"""The report of a run, written to ``<results>/<run>/`` unless ``--output`` says otherwise."""
REPORT_WORST_CASES: Final = 10
"""Worst cases shown per suite and target, with their diagram and feedback."""
VIEWER_HOST: Final = "127.0.0.1"
"""Address ``eunomia view`` binds to: this machine only unless ``--host`` says otherwise."""
VIEWER_PORT: Final = 8750
LABEL_PORT: Final = 8760
"""Port of ``eunomia label`` (it binds to VIEWER_HOST, this machine, unless told otherwise)."""

# --- comparing runs (eunomia compare) ------------------------------------------------
COMPARE_ALPHA: Final = 0.05
"""Significance level of the paired tests; below it a difference counts."""
COMPARE_MAX_NEW_FAILURES: Final = 0
"""Cases scored in A that may fail in B before it counts as a regression."""
COMPARE_CONFIDENCE: Final = 0.95
"""Level of the confidence intervals of the deltas."""
COMPARE_RESAMPLES: Final = 10000
"""Bootstrap resamples for the intervals and p-values of the score, cost and latency deltas."""
COMPARE_SEED: Final = 0
"""Seed of the bootstrap: the same runs always give the same p-values."""
POWER: Final = 0.8
"""Power at which the minimum detectable effect is stated (the chance of detecting it)."""

# --- how many cases a figure needs (every kind) --------------------------------------
MIN_CASES_FOR_INTERVAL: Final = 10
"""Below this many cases (independent units: a case's repeats are one), an interval, a
p-value or an agreement figure is not shown as a number but as "too few cases to tell", and
no regression or improvement verdict is drawn from it.

Why 10 (docs/statistics.md): the percentile bootstrap that every interval here uses covers
the true mean of a normal sample, at a nominal 95%, 48% of the time with 2 cases, 83% with
5, 88% with 8 and 90% with 10 (93% with 20); of a 0/1 rate of 0.8 (detection), 31%, 68%,
81% and 90% (simulation, 2000 samples each: tests/stats/test_small_samples.py re-runs a
smaller one). Below 10 a "95%" interval is wrong more than one time in ten. And an exact
paired test (sign test, McNemar) cannot reach p < 0.05 with fewer than 6 cases changing,
so below 10 cases only near-unanimous changes could be told apart from chance at all."""
JUDGE_REPEAT_TEMPERATURE: Final = 0.7
"""Judge temperature when ``--judge-repeats`` > 1 and the judge's own is 0: at temperature 0
the K scorings would be identical and their agreement says nothing."""

TARGET_SPECS: Final = ("athena, athena:<url>, example, llm:<model spec>, http:<name>, "
                       "baseline:default, baseline:constant, recorded (the feedback recorded "
                       "in the scenario) or recorded:tutor; athena and http take options "
                       "after ?: graded=false, llm_usage=<serve-model URL>")
"""The systems under test ``--target`` names (help and error messages)."""

CACHE_FRESH_KEYS_MAX: Final = 1_000_000
"""Cache keys a run remembers having written to a cache that was empty when it began."""
CHECK_PATTERNS_CACHED: Final = 8192
"""Compiled ``regex`` check patterns kept (a suite is read in several passes)."""

# --- limits of what a file or an option may say (eunomia.bounds) ------------------------------
MAX_POINTS: Final = 10_000.0
"""An exercise's points, and an instruction's credits (either sign), at most this much."""
MAX_PRICE_PER_MILLION: Final = 100_000.0
"""A model price (currency units per million tokens) at most this much."""
MAX_TIMEOUT_S: Final = 86_400.0
"""A request timeout at most a day."""
MAX_CONCURRENCY: Final = 10_000
"""Requests in flight at once, at most."""
MAX_REPEATS: Final = 10_000
"""Repeats of a case (candidate or judge), at most."""
MAX_WORDS: Final = 1_000_000
"""Word counts of checks and asked lengths, at most."""
MAX_TOKENS_ASKED: Final = 2_000_000
"""Tokens a model may be asked to generate (or hold in its context), at most."""
MAX_TOKEN_COUNT: Final = 1_000_000_000_000
"""Tokens one call may report having used, at most: a larger count in an answer is an
impossible number (the case fails saying so), never billed."""
MAX_RETRIES: Final = 100
"""Retries of a failed call, at most."""
