"""A Docker engine for the tests that need one, with no registry.

The engine the environment names (DOCKER_HOST, else the default socket) if it answers; otherwise,
as root with Debian's docker.io installed (`make test` installs it where it can), a ``dockerd``
started for the test session and stopped after it. Then the base image every port's image starts
from, built here by containers/base.sh if it is not built yet, and testcontainers told what a
machine without a registry needs: no Ryuk (its image is on a registry; the harness removes its own
containers) and the engine's own address for published ports (this machine has a /.dockerenv,
which would otherwise send testcontainers to a gateway address).

Where no engine can be had, the tests that need one are skipped with the reason, or fail if
``HANOI_REQUIRE_DOCKER=1`` (set by .ci/run, so that a green CI means they ran).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import docker
import docker.errors

from harness.containers import LOCAL_BASE

ROOT = Path(__file__).resolve().parent.parent
REQUIRE = "HANOI_REQUIRE_DOCKER"
DEFAULT_HOST = "unix:///var/run/docker.sock"
START_SECONDS = 60
BASE_SECONDS = 900


def required() -> bool:
    return os.environ.get(REQUIRE) == "1"


def _answers() -> str | None:
    """None if the engine answers, else why not."""
    try:
        docker.from_env().ping()
    except Exception as error:  # the SDK raises unrelated types when no engine is there
        return f"no Docker engine answers at {os.environ.get('DOCKER_HOST', DEFAULT_HOST)} ({type(error).__name__})"
    return None


class Engine:
    """The session's engine: :meth:`start` finds or starts one and says why not if it cannot;
    :meth:`stop` stops only a daemon it started."""

    def __init__(self) -> None:
        self.daemon: subprocess.Popen[bytes] | None = None
        self._log: Path | None = None

    def start(self) -> str | None:
        problem = _answers()
        if problem:
            problem = self._start_daemon(problem)
        if problem:
            return problem
        os.environ.setdefault("TESTCONTAINERS_RYUK_DISABLED", "true")
        os.environ.setdefault("TESTCONTAINERS_CONNECTION_MODE", "docker_host")
        return _build_base()

    def _start_daemon(self, problem: str) -> str | None:
        host = os.environ.get("DOCKER_HOST", DEFAULT_HOST)
        if shutil.which("dockerd") is None:
            return f"{problem}, and dockerd is not installed (Debian: apt-get install docker.io)"
        if os.geteuid() != 0:
            return f"{problem}, and only root can start dockerd"
        if not host.startswith("unix://"):
            return f"{problem}, and a dockerd is started here only on a local socket"
        self._log = Path(tempfile.mkstemp(prefix="hanoi-dockerd-", suffix=".log")[1])
        with self._log.open("wb") as log:
            self.daemon = subprocess.Popen(
                ["dockerd", "--host", host], stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
            )
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline and self.daemon.poll() is None:
            if _answers() is None:
                return None
            time.sleep(0.5)
        said = self._log.read_text(errors="replace").strip().splitlines()[-3:]
        self.stop()
        return f"{problem}; dockerd, started for the tests, did not answer: " + " | ".join(said)

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.send_signal(signal.SIGTERM)  # it stops its containerd and its containers
            try:
                self.daemon.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.daemon.pid, signal.SIGKILL)
                self.daemon.wait()
            self.daemon = None
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None


def _build_base() -> str | None:
    """Build the local base image unless it is there already; None on success, else why not."""
    try:
        docker.from_env().images.get(LOCAL_BASE)
        return None
    except docker.errors.ImageNotFound:
        pass
    try:
        done = subprocess.run(
            ["bash", str(ROOT / "containers" / "base.sh")], capture_output=True, text=True, timeout=BASE_SECONDS,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return f"containers/base.sh ran past {BASE_SECONDS} s"
    if done.returncode:
        said = (done.stderr or done.stdout).strip().splitlines()
        return f"containers/base.sh failed: {said[-1] if said else f'exit code {done.returncode}'}"
    return None
