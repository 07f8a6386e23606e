"""What both tiers of tests share: where the checkout is, suites that mix its ports with faulty
ones, the harness command run in this process as it runs in one of its own, and what a harness run
may leave behind. Nothing here starts a process or looks for ports when it is imported: the tier of
tests/unit starts nothing it does not test."""

from __future__ import annotations

import contextlib
import functools
import io
import json
import locale
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING
from unittest import mock

import hypothesis
import jsonschema
import pytest

if TYPE_CHECKING:
    from harness.port import Port

hypothesis.settings.register_profile("patient", deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow])
hypothesis.settings.load_profile("patient")
"""Examples are judged by what they find, not by how fast a busy machine makes them: no deadline, and
no failing for slow generation, so that the suite passes while other work runs beside it."""

ROOT = Path(__file__).resolve().parent.parent
FAKE_PORTS = Path(__file__).resolve().parent / "fake_ports"
HEADLINE = tuple(re.search(r"^HEADLINE \?= (.+)$", (ROOT / "Makefile").read_text(), re.MULTILINE).group(1).split(","))
"""The ports `make compare` installs and runs, as the Makefile names them: those the tests also run
in containers, whose images the whole catalogue's would cost a test run too much to build."""
REPORT_SCHEMA = json.loads((ROOT / "harness" / "report.schema.json").read_text())
jsonschema.Draft202012Validator.check_schema(REPORT_SCHEMA)


@functools.cache
def project_ports() -> dict[str, Port]:
    """The project's ports, found as the harness finds them (a new folder with a manifest joins every
    test), looked for when a test first asks."""
    from harness.discover import discover

    return {port.name: port for port in discover(ROOT)}


@pytest.fixture(scope="session")
def real_ports() -> dict[str, Port]:
    """The project's ports, once their manifests are known to be sound."""
    problems = {name: port.manifest_error for name, port in project_ports().items() if port.manifest_error}
    assert not problems, f"the project's manifests must be sound: {problems}"
    return project_ports()


def valid_report(data: dict) -> dict:
    """``data``, once checked against the report's JSON Schema (harness/report.schema.json)."""
    jsonschema.validate(data, REPORT_SCHEMA)
    return data


def suite(tmp_path: Path, *fakes: str, real: tuple[str, ...] = HEADLINE, fakes_from: Path = FAKE_PORTS) -> Path:
    """A folder of ports: links to some of the project's real ones (by default the headline ports: a test
    of the harness needs a few languages, not all) and to fakes (from tests/fake_ports)."""
    root = tmp_path / "ports"
    root.mkdir()
    for name in real:
        (root / name).symlink_to(ROOT / name)
    for name in fakes:
        (root / name).symlink_to(fakes_from / name)
    return root


def run_folder() -> Path:
    """A temporary folder of one harness run's own, given to it as TMPDIR, that every user may pass
    through but not list (0711), as root's embedded server's user must to keep its folder there: in
    a folder of 0700, as mkdtemp makes it, the server's folder goes to /tmp (see docs/postgresql.md)."""
    folder = Path(tempfile.mkdtemp(prefix="hanoi-test-run-"))
    folder.chmod(0o711)
    return folder


def postgres_servers(under: Path) -> set[str]:
    """The data folders, below ``under``, of the PostgreSQL servers running now (not exited ones
    awaiting their parent): only what one test started, whatever else runs on the machine."""
    found = set()
    for _, argv in _live("cmdline"):
        if argv[0].endswith(b"/postgres") and b"-D" in argv[:-1]:
            data = argv[argv.index(b"-D") + 1].decode()
            if Path(data).is_relative_to(under):
                found.add(data)
    return found


def started_in(folder: Path) -> list[int]:
    """The live processes whose TMPDIR is ``folder``: everything one harness run started (its ports,
    their children however they forked, its PostgreSQL), and nothing any other run did."""
    wanted = f"TMPDIR={folder}".encode()
    return [pid for pid, variables in _live("environ") if wanted in variables]


def _live(name: str) -> Iterator[tuple[int, list[bytes]]]:
    """Each running process (not an exited one awaiting its parent), with its /proc file ``name``
    (cmdline or environ) split at its NULs."""
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                parts = (proc / name).read_bytes().split(b"\0")
                state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
            except (OSError, IndexError):
                continue
            if state != "Z":
                yield int(proc.name), parts


def left_behind(folder: Path) -> str | None:
    """What a harness run whose TMPDIR was ``folder`` left running or on disk, if anything."""
    processes, servers = started_in(folder), postgres_servers(folder)
    data = sorted(str(path) for path in folder.glob("hanoi-postgres-*"))
    if processes or servers or data:
        return f"processes {processes}, servers {sorted(servers)}, server folders {data}"
    return None


def finished(args: tuple[str, ...], tmpdir: Path, own: bool) -> None:
    """The check after a harness run: nothing it started is left running or on disk; its TMPDIR is
    removed if the run was given none."""
    leftovers = left_behind(tmpdir)
    assert leftovers is None, f"harness {' '.join(args)} left behind {leftovers}"
    if own:
        shutil.rmtree(tmpdir, ignore_errors=True)


def harness_here(*args: str, env: dict[str, str] | None = None, tmpdir: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The harness command run in this process, seeing what it sees as a process of its own started
    with ``python -m harness`` (tests/integration/conftest.py's ``harness``): main's own way from its
    arguments to its exit code (harness.cli.invoke), standard output and error written to pipes and
    read back as text, the environment with ``env``, COLUMNS=200 and a TMPDIR of its own, and the
    checkout as the current folder. What the harness does to its whole process is left undone:
    main's signal handlers and frozen collector, and the group making the process the reaper of
    orphans. Nothing it started is left running or on disk when it ends."""
    from harness.cli import invoke

    own = tmpdir is None
    tmpdir = tmpdir or run_folder()
    encoding = locale.getpreferredencoding(False)
    out, err = io.TextIOWrapper(io.BytesIO(), encoding), io.TextIOWrapper(io.BytesIO(), encoding, errors="backslashreplace")
    with (
        mock.patch.dict(os.environ, {"COLUMNS": "200", **(env or {}), "TMPDIR": str(tmpdir)}),
        mock.patch.object(tempfile, "tempdir", None),
        mock.patch("harness.runners.process.become_subreaper", lambda: None),
        contextlib.chdir(ROOT),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = invoke(list(args), prog_name="python -m harness")
    done = subprocess.CompletedProcess(["python", "-m", "harness", *args], code, _piped(out, encoding), _piped(err, encoding))
    finished(args, tmpdir, own)
    return done


def _piped(stream: io.TextIOWrapper, encoding: str) -> str:
    """What was written to ``stream``, read as subprocess reads a pipe as text (universal newlines)."""
    stream.flush()
    written = stream.buffer.getvalue().decode(encoding)
    return written.replace("\r\n", "\n").replace("\r", "\n")
