"""A Docker engine for the tests that need one, with no registry.

The engine the environment names (DOCKER_HOST, else the default socket) if it answers; otherwise,
as root with Debian's docker.io installed (`make test` installs it where it can), a ``dockerd``
started for the test session and stopped after it. Then the base image every port's image starts
from, built here by containers/base.sh if it is not built yet.

Another test session on the same machine may use the engine a session started: each session holds
a shared lock, beside the engine's socket, while it runs, and a ``dockerd`` the tests started is
stopped by whichever session ends last, not from under another.

Where no engine can be had, the tests that need one are skipped with the reason, or fail if
``HANOI_REQUIRE_DOCKER=1`` (set by .ci/run, so that a green CI means they ran).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import docker
import docker.errors

from harness.patience import Patience
from harness.runners.images import LOCAL_BASE

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
    :meth:`stop` stops a daemon the tests started once no other session uses it."""

    def __init__(self) -> None:
        host = os.environ.get("DOCKER_HOST", DEFAULT_HOST)
        self.socket = Path(host.removeprefix("unix://")) if host.startswith("unix://") else None
        self.daemon: subprocess.Popen[bytes] | None = None
        self._log: Path | None = None
        self._users: int | None = None

    def start(self) -> str | None:
        with self._one_at_a_time():
            problem = _answers()
            if problem:
                problem = self._start_daemon(problem)
            if problem:
                return problem
            self._users = self._open("users")
            if self._users is not None:
                fcntl.flock(self._users, fcntl.LOCK_SH)
                if self.daemon is not None:
                    os.truncate(self._users, 0)
                    os.write(self._users, str(self.daemon.pid).encode())
        return _build_base()

    def _start_daemon(self, problem: str) -> str | None:
        host = os.environ.get("DOCKER_HOST", DEFAULT_HOST)
        if shutil.which("dockerd") is None:
            return f"{problem}, and dockerd is not installed (Debian: apt-get install docker.io)"
        if os.geteuid() != 0:
            return f"{problem}, and only root can start dockerd"
        if self.socket is None:
            return f"{problem}, and a dockerd is started here only on a local socket"
        self._log = Path(tempfile.mkstemp(prefix="hanoi-dockerd-", suffix=".log")[1])
        with self._log.open("wb") as log:
            self.daemon = subprocess.Popen(
                ["dockerd", "--host", host], stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
            )
        patience = Patience(START_SECONDS)
        while not patience.over() and self.daemon.poll() is None:
            if _answers() is None:
                return None
            time.sleep(0.5)
        said = self._log.read_text(errors="replace").strip().splitlines()[-3:]
        _stop_daemon(self.daemon.pid)
        self.daemon = None
        return f"{problem}; dockerd, started for the tests, did not answer: " + " | ".join(said)

    def stop(self) -> None:
        """Stop the dockerd the tests started (this session or another), if no other session uses it."""
        with self._one_at_a_time():
            if self._users is not None:
                try:
                    fcntl.flock(self._users, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:  # another session still uses it: the last to end stops it
                    pass
                else:
                    started = os.pread(self._users, 32, 0).decode(errors="replace")
                    if started.isdigit():
                        _stop_daemon(int(started))
                    os.truncate(self._users, 0)
                os.close(self._users)
                self._users = None
            elif self.daemon is not None:  # no lock to share it by: no other session knows of it
                _stop_daemon(self.daemon.pid)
            self.daemon = None
        if self._log is not None:
            self._log.unlink(missing_ok=True)
            self._log = None

    def _open(self, role: str) -> int | None:
        """The lock file for ``role`` beside the engine's socket; None where there is none to share."""
        if self.socket is None:
            return None
        try:
            return os.open(self.socket.with_name(f"{self.socket.name}.hanoi-tests-{role}"), os.O_RDWR | os.O_CREAT, 0o600)
        except OSError:  # not root: such a session starts and stops no daemon either
            return None

    @contextmanager
    def _one_at_a_time(self) -> Iterator[None]:
        """Finding or starting the engine, and stopping it, one session at a time."""
        lock = self._open("start")
        try:
            if lock is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            yield
        finally:
            if lock is not None:
                os.close(lock)


def _stop_daemon(pid: int) -> None:
    """Stop the dockerd ``pid`` (it stops its containerd and its containers), if it is still one."""
    try:
        if not Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"dockerd\0"):
            return
        os.kill(pid, signal.SIGTERM)
    except OSError:
        return
    deadline = time.monotonic() + 60
    while _running(pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    if _running(pid):
        with suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    with suppress(ChildProcessError):  # this session's own child; another's is reaped by whoever adopted it
        os.waitpid(pid, 0)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a process that has not ended (a zombie has)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False


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
