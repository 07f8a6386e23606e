"""The manifests as an editor built on taplo reads them: with this repository's .taplo.toml, taplo
(the real one, from the test extra) finds every port's manifest, reads each against
harness/language.schema.json, and refuses one whose key has the wrong type."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT
from integration.conftest import REAL_PORTS

TAPLO = Path(sys.executable).parent / "taplo"


def taplo_check(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(TAPLO), "check"], cwd=folder, capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "RUST_LOG": "info"},
    )


def test_taplo_reads_every_manifest_against_the_schema_and_refuses_a_wrong_type(tmp_path):
    done = taplo_check(ROOT)
    assert done.returncode == 0, done.stderr
    assert f"found files total={len(REAL_PORTS)}" in done.stderr, done.stderr

    copy = tmp_path / "copy"
    (copy / "harness").mkdir(parents=True)
    shutil.copy2(ROOT / ".taplo.toml", copy)
    shutil.copy2(ROOT / "harness" / "language.schema.json", copy / "harness")
    (copy / "python").mkdir()
    manifest = (ROOT / "python" / "language.toml").read_text()
    (copy / "python" / "language.toml").write_text(manifest)
    assert taplo_check(copy).returncode == 0
    (copy / "python" / "language.toml").write_text(re.sub(r"^summary = .*$", "summary = 3", manifest, count=1, flags=re.M))
    refused = taplo_check(copy)
    assert refused.returncode != 0 and "schema validation failed" in refused.stderr, refused.stderr
