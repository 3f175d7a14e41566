"""Loading the local provider's llama.cpp models: ``llama-cpp-python`` imported (or an error
naming the install command), each model loaded once per process with its one worker thread
and its kept system prefix, and the CPU threads it runs with."""

from __future__ import annotations

import contextlib
import importlib
import os
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from eunomia import defaults
from eunomia.errors import EunomiaError
from eunomia.models._weights import LocalModel, ensure_weights
from eunomia.models.providers._local_prefix import SystemPrefixCache

INSTALL_HINT = "pip install 'eunomia[local]'  (or scripts/setup-local-model.sh)"


def import_llama_cpp() -> Any:
    """The ``llama_cpp`` module, or a clear error naming the install command."""
    try:
        return importlib.import_module("llama_cpp")
    except ImportError as exc:
        raise EunomiaError(
            "the local model provider needs llama-cpp-python, which is not installed "
            f"({exc}). Install it with:\n  {INSTALL_HINT}\n"
            "It builds from source: about 9 minutes on 2 cores."
        ) from None


@dataclass(slots=True)
class Loaded:
    """A model loaded in this process, with the one thread allowed to use it."""

    llama: Any
    executor: ThreadPoolExecutor
    load_s: float
    path: Path
    prefix_cache: SystemPrefixCache


_LOADED: dict[tuple[str, int, int], Loaded] = {}
_LOAD_LOCK = threading.Lock()


@contextlib.contextmanager
def _without_extra_buffers(llama_cpp: Any) -> Iterator[None]:
    """Load models without llama.cpp's extra CPU buffer types (AMX, repacked weights).

    llama-cpp-python does not expose ``use_extra_bufts``. On this project's
    reference machine (a virtualised Xeon with AMX) the AMX buffer type crashes
    the process on the first decode; without extra buffers llama.cpp runs the
    ordinary AVX2/AVX-512 kernels. Called under ``_LOAD_LOCK``.
    """
    low = llama_cpp.llama_cpp
    original = low.llama_model_default_params

    def params() -> Any:
        p = original()
        p.use_extra_bufts = False
        return p

    low.llama_model_default_params = params
    try:
        yield
    finally:
        low.llama_model_default_params = original


def local_threads(threads: int | None) -> int:
    """Explicit value, else ``$EUNOMIA_LOCAL_THREADS``, else the default (all cores but one)."""
    if threads:
        return threads
    env = os.environ.get(defaults.LOCAL_THREADS_ENV, "").strip()
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise EunomiaError(
                f"{defaults.LOCAL_THREADS_ENV} must be a whole number, got {env!r}"
            ) from None
    return defaults.LOCAL_THREADS or max(1, (os.cpu_count() or 1) - 1)


def load_model(
    model: LocalModel,
    *,
    context_tokens: int = defaults.LOCAL_CONTEXT_TOKENS,
    threads: int | None = None,
) -> Loaded:
    """Load ``model`` once per process (thread-safe); later calls return the same object."""
    n_threads = local_threads(threads)
    key = (model.name, context_tokens, n_threads)
    with _LOAD_LOCK:
        loaded = _LOADED.get(key)
        if loaded is not None:
            return loaded
        llama_cpp = import_llama_cpp()
        path = ensure_weights(model.name)
        started = time.perf_counter()
        try:
            with _without_extra_buffers(llama_cpp):
                llama = llama_cpp.Llama(
                    model_path=str(path),
                    n_ctx=context_tokens,
                    n_threads=n_threads,
                    n_threads_batch=n_threads,
                    seed=defaults.MODEL_SEED,
                    chat_format=model.chat_format,
                    verbose=False,
                )
        except (ValueError, RuntimeError, OSError) as exc:
            raise EunomiaError(
                f"cannot load local model {model.name!r} from {path}: {exc}"
            ) from None
        prefix_cache = SystemPrefixCache(llama)
        llama.generate = prefix_cache
        loaded = Loaded(
            llama=llama,
            prefix_cache=prefix_cache,
            executor=ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"llama-{model.name}"),
            load_s=time.perf_counter() - started,
            path=path,
        )
        _LOADED[key] = loaded
        return loaded
