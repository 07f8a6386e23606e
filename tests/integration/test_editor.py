"""The manifests as an editor built on taplo reads them: with this repository's .taplo.toml, taplo
(the real one, from the test extra) finds every port's manifest, reads each against
harness/language.schema.json, and refuses one whose key has the wrong type."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, harness_here
from harness import published
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
    # the schema's words: taplo's closing "schema validation failed" line was missing once under load
    assert refused.returncode != 0 and 'is not of type "string"' in refused.stderr, refused.stderr


def offline(command: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``command`` in a network namespace of its own, where no address answers (as on a plane)."""
    return subprocess.run(
        ["unshare", "--net", *command], cwd=cwd, capture_output=True, text=True, timeout=120, env={"PATH": "/usr/bin:/bin", "RUST_LOG": "info"},
    )


def test_a_port_new_language_makes_in_another_repository_passes_taplo_with_no_network(tmp_path):
    """Outside this repository new-language writes a copy of the schema the installed harness holds
    and a .taplo.toml naming it, so that taplo and editors read the manifest with no network (the
    public address answers only where the site is deployed and reachable); the copy's ``$id`` is
    still the public address, the schema's identity."""
    if subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare --net cannot make a network namespace here (it needs root or user namespaces)")
    repository = tmp_path / "course"
    repository.mkdir()
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    printed = subprocess.run([str(Path(sys.executable).parent / "harness"), "schema"], cwd=repository, capture_output=True, text=True, timeout=120)
    assert printed.returncode == 0 and printed.stdout == (ROOT / "harness" / "language.schema.json").read_text(), printed.stderr
    made = harness_here("--root", str(repository), "new-language", "awk", "--interpreter", "awk -f", "--version-flag", "-W version")
    assert made.returncode == 0, made.stderr
    copy = repository / "schemas" / "language.schema.json"
    assert copy.read_bytes() == (ROOT / "harness" / "language.schema.json").read_bytes()
    assert json.loads(copy.read_text())["$id"] == published("schemas/language.schema.json")
    assert (repository / "awk" / "language.toml").read_text().startswith("#:schema ../schemas/language.schema.json\n")

    checked = offline([str(TAPLO), "check"], repository)
    assert checked.returncode == 0, checked.stderr
    assert "found files total=1" in checked.stderr, checked.stderr
    manifest = repository / "awk" / "language.toml"
    manifest.write_text(manifest.read_text().replace('summary = "awk"', "summary = 3"))
    refused = offline([str(TAPLO), "check"], repository)
    # the schema's words: taplo's closing "schema validation failed" line was missing once under load
    assert refused.returncode != 0 and 'is not of type "string"' in refused.stderr, refused.stderr
