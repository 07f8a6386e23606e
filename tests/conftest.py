"""Shared helpers: the project's real ports, suites that mix them with faulty ones, and the harness
run as a real process, as a user runs it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness.compare import StreamDigest
from harness.discover import Port, discover
from harness.build import build
from harness.model import METHODS
from harness.postgres import Database

ROOT = Path(__file__).resolve().parent.parent
FAKE_PORTS = Path(__file__).resolve().parent / "fake_ports"
PROGRAM_PORTS = ("python", "bash", "prolog", "cpp")
REAL_PORTS = (*PROGRAM_PORTS, "sql")


@pytest.fixture(scope="session")
def real_ports() -> dict[str, Port]:
    ports = {port.name: port for port in discover(ROOT)}
    assert set(REAL_PORTS) <= set(ports), f"expected the ports {REAL_PORTS}, found {sorted(ports)}"
    return ports


@pytest.fixture(scope="session")
def database():
    """One embedded PostgreSQL for the tests that run the SQL port in-process; none left running after."""
    before = postgres_servers()
    with Database() as started:
        yield started
    assert postgres_servers() == before, "the embedded PostgreSQL outlived its Database"


def postgres_servers() -> set[str]:
    """The data folders of the PostgreSQL servers running now (not exited ones awaiting their parent)."""
    found = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
                state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
            except (OSError, IndexError):
                continue
            if argv[0].endswith(b"/postgres") and b"-D" in argv[:-1] and state != "Z":
                found.add(argv[argv.index(b"-D") + 1].decode())
    return found


def reference_digest(n: int, method: str = "recursive") -> str:
    digest = StreamDigest()
    for move in METHODS[method].reference(n):
        digest.update(move)
    return digest.hexdigest()


def program_argv(port: Port, method: str, n: int) -> list[str]:
    """How the harness runs a port's program for one cell, built first if the port builds it."""
    program = port.program(method)
    return program.argv(method, n, build(port, program, method, n, timeout=300))


def suite(tmp_path: Path, *fakes: str, real: tuple[str, ...] = REAL_PORTS) -> Path:
    """A folder of ports: links to some of the project's real ones and to fakes from tests/fake_ports."""
    root = tmp_path / "ports"
    root.mkdir()
    for name in real:
        (root / name).symlink_to(ROOT / name)
    for name in fakes:
        (root / name).symlink_to(FAKE_PORTS / name)
    return root


def harness(*args: str, timeout: float = 600, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The harness command, run as a separate process, its tables wide enough not to wrap; every
    PostgreSQL it started is gone when it ends."""
    before = postgres_servers()
    done = subprocess.run(
        [sys.executable, "-m", "harness", *args],
        capture_output=True, text=True, timeout=timeout, cwd=ROOT, env={**os.environ, "COLUMNS": "200", **(env or {})},
    )
    assert postgres_servers() <= before, f"harness {' '.join(args)} left a PostgreSQL server running"
    return done


def compare_json(
    tmp_path: Path, *args: str, root: Path | None = None, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], dict]:
    """``harness compare`` with a JSON report, and that report."""
    report = tmp_path / "report.json"
    prefix = ("--root", str(root)) if root else ()
    done = harness(*prefix, "compare", *args, "--json", str(report), env=env)
    assert report.exists(), done.stderr
    return done, json.loads(report.read_text())


def processes_running(*words: bytes, parent: int | None = None) -> list[str]:
    """The pids of processes whose command line has all these words (and, if given, whose parent is
    ``parent``): ports a run should have ended."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
                ppid = int((proc / "stat").read_text().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            if all(word in argv for word in words) and parent in (None, ppid):
                found.append(proc.name)
    return found
