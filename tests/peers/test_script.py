"""scripts/peer-athena.sh picks its version: the current Athena by default, the legacy one with
--legacy (or ATHENA_PEER_VERSION=legacy), each with its own source, venvs and run folder. No
module is started here (a few seconds)."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.peers.conftest import ATHENA_SRC, run_script


def test_versions_have_their_own_source_venvs_and_run_folder(tmp_path: Path) -> None:
    if not all((src / "modules").is_dir() for src in ATHENA_SRC.values()):
        pytest.skip("../shared/peers with both Athena versions is not present")
    env = {"EUNOMIA_PEERS_DIR": str(tmp_path / "peers")}
    current = run_script("status", env=env, timeout=60)
    legacy = run_script("status", "--legacy", env=env, timeout=60)
    also_legacy = run_script("status", env={**env, "ATHENA_PEER_VERSION": "legacy"},
                             timeout=60)
    assert current.returncode == legacy.returncode == 0, current.stderr + legacy.stderr
    assert f"version: current (llm_config.yml), source {ATHENA_SRC['current']}" in current.stdout
    assert f"version: legacy, source {ATHENA_SRC['legacy']}" in legacy.stdout
    assert also_legacy.stdout == legacy.stdout
    assert "venvs:   not set up" in current.stdout  # an empty cache: nothing built here
    # the run folder of each (its env lines carry the secret kept there)
    run_current = run_script("env", env={**env, "ATHENA_SECRET": "s3cret"}, timeout=60)
    assert run_current.stdout.startswith("export ATHENA_SECRET=s3cret")


def test_a_version_that_does_not_exist_is_refused(tmp_path: Path) -> None:
    bad = run_script("status", env={"ATHENA_PEER_VERSION": "2.8"}, timeout=60)
    assert bad.returncode == 2 and "must be current or legacy" in bad.stderr
