"""The integration tier's own: the project's real ports, the sandbox and the Docker engine where
they can be had, the embedded PostgreSQL, and the harness run as a real process, as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from conftest import ROOT, finished, postgres_servers, project_ports, run_folder, valid_report
from harness.compare import StreamDigest
from harness.gate import Gate
from harness.limits import Limits
from harness.model import METHODS
from harness.port import Port
from harness.runners.modes.container import RUN_LABEL
from harness.runners.modes.sandbox import sandbox_problem
from harness.runners.walls import open_walls, walls_class
from harness.settings import MODES, Settings

PORTS = project_ports()
"""The project's ports by name, which the tier's tests are parametrized over."""
REAL_PORTS = tuple(PORTS)
OFFERED = [(name, method) for name, port in PORTS.items() for method in port.methods]
"""Each (port, method) its manifest lists."""


def offered(method: str, n: int, among: tuple[str, ...] = REAL_PORTS) -> list[str]:
    """The project's ports (``among`` them) that run ``method`` for ``n`` discs: they list it, take
    that n, and their interpreter is here (a missing one is skipped, with how to install it)."""
    return [
        name for name, port in PORTS.items()
        if name in among and method in port.methods and n >= port.program(method).min_n and port.program(method).missing() is None
    ]


@pytest.fixture(scope="session")
def gate():
    """One gate, with one embedded PostgreSQL, for the tests that run the SQL port in-process; none
    left running after. Its data lies outside pytest's own temporary folders, which another pytest
    run on the machine may lock to their owner or prune while this one still runs."""
    folder = run_folder()
    with Gate(Settings(), ports=[PORTS["sql"]], parent=folder) as started:
        yield started
    assert postgres_servers(folder) == set(), "the embedded PostgreSQL outlived its gate"
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def database(gate):
    """That gate's PostgreSQL."""
    return gate.database


MARKED_BY_FIXTURE = {"docker_engine": "docker", "browser": "browser"}
"""A test that asks for one of these fixtures carries that marker, so that ``-m "not docker"`` and
``-m "not browser"`` leave out exactly the tests that need an engine or a browser."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, marker in MARKED_BY_FIXTURE.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(marker)


@pytest.fixture(scope="session")
def docker_engine():
    """A Docker engine and the local base image (see docker_engine.py); the tests that ask for it are
    skipped where none can be had, or fail if HANOI_REQUIRE_DOCKER=1."""
    from docker_engine import Engine, required

    engine = Engine()
    problem = engine.start()
    if problem:
        engine.stop()
        (pytest.fail if required() else pytest.skip)(problem)
    yield
    engine.stop()


@pytest.fixture
def run_tmpdir() -> Iterator[Path]:
    """A harness run's own TMPDIR (:func:`run_folder`), removed after the test."""
    folder = run_folder()
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=MODES)
def mode(request):
    """Each mode the harness has (harness.settings.MODES), for a test that must hold in every one: a
    new mode is tested by default."""
    return usable(request, request.param)


def usable(request, mode: str) -> str:
    """``mode``, once it can run here: one that cannot is skipped, saying why (its walls' refusal);
    containers ask for the Docker engine."""
    if walls_class(mode).uses_engine:
        request.getfixturevalue("docker_engine")
    refusal = open_walls(mode, Limits()).refusal()
    if refusal:
        pytest.skip(refusal)
    return mode


NO_SANDBOX = sandbox_problem()
"""Why the sandbox cannot run here, as the harness says it: bubblewrap is missing, or cannot make its
namespaces (a user who is not root where user namespaces are restricted, as on Ubuntu 24.04)."""
needs_bubblewrap = pytest.mark.skipif(NO_SANDBOX is not None, reason=f"{NO_SANDBOX}")
"""For a test that runs the sandbox: skipped where it cannot run, saying why and what to do."""


def harness_process(*args: str, tmpdir: Path, env_extra: dict[str, str] | None = None, **popen) -> subprocess.Popen[str]:
    """The harness command started as a process of its own, with ``tmpdir`` as its TMPDIR, and Ctrl-C
    as a terminal would send it: a test suite started in the background, where SIGINT is ignored,
    would otherwise pass that on, and the harness rightly keeps ignoring it."""
    return subprocess.Popen(
        [sys.executable, "-m", "harness", *args], cwd=ROOT, text=True,
        env={**os.environ, "COLUMNS": "200", **(env_extra or {}), "TMPDIR": str(tmpdir)},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), **popen,
    )


def reference_digest(n: int, method: str = "recursive") -> str:
    digest = StreamDigest()
    for move in METHODS[method].reference(n):
        digest.update(move)
    return digest.hexdigest()


def program_argv(port: Port, method: str, n: int) -> list[str]:
    """How the harness runs a port's program for one cell, built first if the port builds it."""
    program = port.program(method)
    with Gate(Settings()) as gate:
        return program.argv(method, n, gate.build(port, program, method, n, seconds=300))


def git(*args: str, cwd: Path) -> str:
    """git's output, run in ``cwd`` as a user who has said who they are."""
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=60).stdout.strip()


def checkout_copy(destination: Path) -> Path:
    """The files git would commit (tracked, and new ones it does not ignore), copied: a build never writes into the checkout."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT, capture_output=True, check=True, timeout=60,
    ).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (destination / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, destination / name)
    return destination


def harness(
    *args: str, timeout: float = 600, env: dict[str, str] | None = None, tmpdir: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The harness command, run as a separate process with a TMPDIR of its own, its tables wide
    enough not to wrap; nothing it started is left running or on disk when it ends."""
    own = tmpdir is None
    tmpdir = tmpdir or run_folder()
    done = subprocess.run(
        [sys.executable, "-m", "harness", *args], capture_output=True, text=True, timeout=timeout, cwd=ROOT,
        env={**os.environ, "COLUMNS": "200", **(env or {}), "TMPDIR": str(tmpdir)},
    )
    finished(args, tmpdir, own)
    return done


def port_containers(run: Path) -> set[str]:
    """The containers, running or not, that the harness run whose TMPDIR is ``run`` started: only
    this test's, whatever else runs on the machine. For tests that have the engine."""
    import docker

    client = docker.from_env()
    try:
        return {container.id for container in client.containers.list(all=True, ignore_removed=True, filters={"label": f"{RUN_LABEL}={run}"})}
    finally:
        client.close()


def compare_json(
    tmp_path: Path, *args: str, root: Path | None = None, env: dict[str, str] | None = None, tmpdir: Path | None = None,
    run: Callable[..., subprocess.CompletedProcess[str]] = harness,
) -> tuple[subprocess.CompletedProcess[str], dict]:
    """``harness compare`` with a JSON report, and that report; ``tmpdir`` as in :func:`harness`. The
    harness is a process of its own unless ``run`` is harness_here, for a test that needs no such process."""
    report = tmp_path / "report.json"
    prefix = ("--root", str(root)) if root else ()
    done = run(*prefix, "compare", *args, "--json", str(report), env=env, tmpdir=tmpdir)
    assert report.exists(), done.stderr
    return done, valid_report(json.loads(report.read_text()))


def serve_each(server: socket.socket, handle: Callable[[socket.socket], None]) -> None:
    """Hand each connection ``server`` accepts to ``handle``, one after another, from a thread of its
    own, until the server is closed. A handler that must keep a connection starts its own thread."""

    def accept() -> None:
        while True:
            try:
                connection, _ = server.accept()
            except OSError:
                return
            handle(connection)

    threading.Thread(target=accept, daemon=True).start()


class Listener:
    """A TCP server on this machine's own address that counts the connections it accepts."""

    def __init__(self) -> None:
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks the outward address
            host = probe.getsockname()[0]
        except OSError:
            host = "127.0.0.1"
        finally:
            probe.close()
        self.server = socket.create_server((host, 0))
        self.address = f"{host}/{self.server.getsockname()[1]}"
        self.accepted = 0
        serve_each(self.server, self._count)

    def _count(self, connection: socket.socket) -> None:
        self.accepted += 1
        connection.close()

    def close(self) -> None:
        self.server.close()


def harness_measured(*args: str, env: dict[str, str], tmpdir: Path) -> tuple[subprocess.CompletedProcess[str], float, int]:
    """The harness as a process of its own: what it printed, how long it took, and its own peak
    resident memory in bytes (VmHWM, read while it runs: not its children's)."""
    started = time.monotonic()
    process = subprocess.Popen(
        [sys.executable, "-m", "harness", *args], cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={**os.environ, "COLUMNS": "200", **env, "TMPDIR": str(tmpdir)},
    )
    peak = 0

    def watch() -> None:
        nonlocal peak
        while process.poll() is None:
            try:
                status = Path(f"/proc/{process.pid}/status").read_text()
            except OSError:
                return
            peak = max([peak, *(int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmHWM:"))])
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    out, err = process.communicate(timeout=300)
    watcher.join()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err), time.monotonic() - started, peak


ARCHIVE = ("hanoi-interpreter", "hanoi-tool")
"""The packages the stubbed apt's lists hold."""


def stubbed_installers(tmp_path: Path) -> tuple[str, Path]:
    """A PATH whose apt-get, sudo and brew only write down how they were called, and that file, and
    whose apt-cache lists the names of ARCHIVE that start as asked (``pkgnames PREFIX``)."""
    stubs, calls = tmp_path / "stubs", tmp_path / "calls"
    stubs.mkdir()
    for name in ("apt-get", "sudo", "brew", "apt-cache"):
        (stubs / name).write_text(f'#!/bin/sh\necho "{name} $*" >> {calls}\n' + ('exec "$@"\n' if name == "sudo" else ""))
        (stubs / name).chmod(0o755)
    with (stubs / "apt-cache").open("a") as lists:
        lists.write(f'for name in {" ".join(ARCHIVE)}; do case "$name" in "$3"*) echo "$name";; esac; done\n')
    return f"{stubs}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}", calls
