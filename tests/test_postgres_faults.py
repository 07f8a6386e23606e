"""PostgreSQL that never answers, freezes in the middle of a query, or is killed during a run: every
wait on it ends, the SQL cells name the server, nothing the run started is left behind, and the
run ends within seconds of its --timeout."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT, compare_json

RYUK_CONFIG = """\
import sys
from testcontainers.core.config import testcontainers_config
from harness.errors import Unavailable
from harness.postgres import Database
try:
    Database("docker", folder=sys.argv[1]).dsn()
except Unavailable:
    pass
print(testcontainers_config.ryuk_disabled)
"""


def test_the_harness_disables_ryuk_itself(tmp_path):
    """testcontainers' Ryuk would be pulled from a registry; the harness removes its own containers,
    so it turns Ryuk off in testcontainers' configuration, whatever the environment says."""
    done = subprocess.run(
        [sys.executable, "-c", RYUK_CONFIG, str(ROOT / "sql")], capture_output=True, text=True, timeout=120, cwd=ROOT,
        env={**os.environ, "TESTCONTAINERS_RYUK_DISABLED": "false", "DOCKER_HOST": f"unix://{tmp_path}/no-engine.sock"},
    )
    assert done.stdout.strip() == "True", done.stdout + done.stderr


@pytest.mark.docker
def test_a_container_backend_needs_no_ryuk_image(tmp_path, docker_engine, run_tmpdir):
    """Ryuk's image named as one no registry has: were Ryuk started, every SQL cell would error."""
    done, report = compare_json(
        tmp_path, "--n", "3", "--lang", "sql", "--backend", "docker", tmpdir=run_tmpdir,
        env={"TESTCONTAINERS_RYUK_DISABLED": "false", "RYUK_CONTAINER_IMAGE": "hanoi-test/no-such-ryuk:never"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert {cell["outcome"] for cell in report["cells"]} == {"pass"}
