"""The CI workflow: actionlint passes on every workflow, and the per-port jobs come from the ports'
manifests through ``harness list --format json``, not from a list kept by hand."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REAL_PORTS, ROOT, harness

WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))


def actionlint() -> str:
    found = shutil.which("actionlint", path=str(Path(sys.executable).parent)) or shutil.which("actionlint")
    assert found, "actionlint is not installed (pip install -e '.[test]')"
    return found


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda path: path.name)
def test_actionlint_passes(workflow):
    done = subprocess.run([actionlint(), "-no-color", str(workflow)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path):
    broken = tmp_path / "broken.yml"
    broken.write_text((ROOT / ".github" / "workflows" / "ci.yml").read_text().replace("needs: ports", "needs: no-such-job"))
    done = subprocess.run([actionlint(), "-no-color", str(broken)], capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "no-such-job" in done.stdout


def test_the_port_jobs_come_from_harness_list():
    text = (ROOT / ".github" / "workflows" / "ci.yml").read_text()
    assert "harness list --format json" in text and "fromJSON(needs.ports.outputs.ports)" in text
    assert not any(f"- {port}" in text or f"[{port}" in text for port in REAL_PORTS)
    assert "harness merge reports/report-*.json" in text and "$GITHUB_STEP_SUMMARY" in text

    listed = harness("list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    ports = {port["name"]: port for port in json.loads(listed.stdout)["ports"]}
    assert set(REAL_PORTS) <= set(ports)
    assert ports["prolog"]["debian"] == ["swi-prolog-nox"] and ports["cpp"]["debian"] == ["g++"]
    assert ports["sql"]["postgresql"] is True and ports["sql"]["debian"] == []
