"""PostgreSQL for the ports that run inside it: one server for the whole harness run (of the kind
``--backend`` names in SERVERS: servers.py), each port a role of its own there, in a database only
it owns, and one cell's query streamed as lines the way a program's output is (query.py).

A port's role is no superuser and holds none of the server's file or program roles, so its SQL
runs no program, reads no file and reaches no other machine; it owns its database alone, so no
port sees, replaces, locks out or ends another's objects or sessions. Its load files and its
queries reach the server only as SQL. Whatever a port leaves running is ended when the run ends,
and on a server the harness did not start (``--dsn``), its role and database are dropped.

Every wait on the server has a deadline, so that a server that stops answering costs its cells
their time, never the run: connecting, making a port's role, loading its files and asking the
version are bounded by the cell's time, and a query past its deadline is cancelled, then ended.
"""

from __future__ import annotations

import contextlib
import functools
import getpass
import hashlib
import re
import secrets
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import psycopg
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from harness.environment import Secrets
from harness.errors import Unavailable, first_line
from harness.patience import Patience
from harness.port import Port, Query
from harness.runners.base import WAITS
from harness.runners.postgres import SERVERS
from harness.runners.postgres.connection import CONNECT_TIMEOUT, Deadline, cannot_connect, connect_seconds, server_address
from harness.runners.postgres.query import CANCEL_GRACE, QueryStream
from harness.runners.postgres.servers import Existing, Server
from harness.runners.process import HARNESS, POLL_SECONDS, alive
from harness.runners.walls import Walls
from harness.settings import Backend

ROLE_PREFIX = "hanoi_"
ROLE_COMMENT = "hanoi-polyglot harness "
"""A port's role's comment names the harness that made it, so that a later run can drop one whose
harness was killed before it could."""
SIGNALS = {"cancel": "pg_cancel_backend", "terminate": "pg_terminate_backend"}
LEAVE_SECONDS = 2.0
"""The longest the end of a run waits to leave a server someone else runs as it found it; what is
not dropped by then is the next run's to sweep."""
DROP_SECONDS = 2.0
"""What leaving a server gives each port's database and role on an idle machine, beyond
CONNECT_TIMEOUT: the first database dropped waits for the server's checkpoint."""

Answer = TypeVar("Answer")


@dataclass(frozen=True)
class Role:
    """What a port's SQL runs as: a role and the database it owns (None for both where the port's
    SQL runs as the DSN's own user, who may make no role), and the connection string to them."""

    name: str | None
    dsn: str


class Database:
    """The PostgreSQL of one harness run: started at first need, each port's role made and its files
    loaded once, everything ended by :meth:`close` (use it as a context manager), Ctrl-C included."""

    def __init__(
        self, backend: Backend, walls: Walls, port: Port, masked: Secrets, dsn: str | None = None, parent: Path | None = None,
        unsafe_superuser: bool = False,
    ) -> None:
        """``walls``: where an embedded server runs (the run's mode); ``port``: the port whose image makes
        the server's for the docker backend; ``masked``: the run's secrets, to which each role's
        password is added; ``parent``: where a server the harness starts keeps its folder (default:
        the temporary folder); ``unsafe_superuser``: with a DSN whose user can make no role for a
        port, run the ports' SQL as that user even if it is a superuser."""
        kind = SERVERS.get(backend)
        if kind is None or (kind.needs_dsn and not dsn):
            raise ValueError(f"unknown backend {backend!r}, or the server backend without a DSN")
        self.backend: Server = kind.load()(walls, port, dsn, parent)
        self._unsafe_superuser = unsafe_superuser
        self._masked = masked
        self._lock = threading.Lock()  # starting the server, making a role, loading files: once, whoever asks
        self._guard = threading.Lock()  # what stop_all reaches at once, never held while the server is waited on
        self._dsn: str | None = None
        self.server = f"{backend} PostgreSQL"
        """The server as messages name it: its kind, host and port, once it has started."""
        self._unavailable: str | None = None
        self._version: str | None = None
        self._word = secrets.token_hex(4)
        self._roles: dict[str, Role | str] = {}  # by port: its role, or why it cannot be had
        self._made: list[str] = []  # the roles made for the run, whose files loaded or not
        self._ready: list[str] = []  # the databases the server has ready for the ports' own
        self._streams: set[QueryStream] = set()
        self._backends: dict[int, str] = {}  # the server processes of the run's queries, and their roles
        self._deadlines: set[Deadline] = set()
        self._started = False
        self._closing = False
        self._interrupted = False

    def dsn(self, timeout: float = CONNECT_TIMEOUT) -> str:
        """The administrator's connection string, starting the server the first time, which then has
        about ``timeout`` seconds to answer; :class:`Unavailable` if it cannot be had."""
        with self._held():
            if self._dsn is None and self._unavailable is None:
                self._start(timeout)
            if self._unavailable:
                raise Unavailable(self._unavailable)
            assert self._dsn is not None
            return self._dsn

    @contextlib.contextmanager
    def _held(self) -> Iterator[None]:
        """The lock that starting the server and making a port's role hold, waited for only while the
        run is not closing: a start under way never holds up the end of the run."""
        while not self._lock.acquire(timeout=POLL_SECONDS):
            if self._closing:
                raise Unavailable("the run is closing: no server starts now")
        try:
            if self._closing:
                raise Unavailable("the run is closing: no server starts now")
            yield
        finally:
            self._lock.release()

    def warm(self, ports: list[Port], timeout: float) -> None:
        """Start the server and make the ports' roles now, in the background, within ``timeout`` (a
        cell's), while the run's other cells go on: the first SQL cell then finds them ready. What
        fails is each SQL cell's to say."""

        def start() -> None:
            for port in ports:
                with contextlib.suppress(Unavailable):
                    self.prepare(port, timeout)

        threading.Thread(target=start, name="postgres-warm", daemon=True).start()

    def _start(self, timeout: float) -> None:
        dsn = ""
        try:
            self._started = True
            dsn = self.backend.start(timeout)
            self._ready = self.backend.ready()
            host, port = server_address(dsn)
            self.server = f"{self.backend.label} at host {host}, port {port}"
            with WAITS.on(self.server), self._connect(dsn, timeout) as connection:
                row = self._within(timeout, connection, lambda: connection.execute("SHOW server_version").fetchone())
                if isinstance(self.backend, Existing):
                    self._within(timeout, connection, functools.partial(_sweep_roles, connection))
            number = row[0] if row else "unknown"
        except Unavailable as error:
            self._unavailable = str(error)
        except psycopg.Error as error:
            self._unavailable = cannot_connect(dsn, first_line(error))
        else:
            self._dsn, self._version = dsn, f"PostgreSQL {number.split()[0]} ({self.backend.name})"

    @staticmethod
    def _connect(dsn: str, timeout: float) -> contextlib.closing[psycopg.Connection[Any]]:
        return contextlib.closing(psycopg.connect(dsn, autocommit=True, connect_timeout=connect_seconds(timeout)))

    def _within(self, seconds: float, connection: psycopg.Connection[Any], ask: Callable[[], Answer]) -> Answer:
        """What ``ask`` gets from the server over ``connection``, which it must answer within
        ``seconds``: else :class:`Unavailable`, naming the server. Closing the run ends the wait at once."""
        with Deadline(connection, seconds) as deadline:
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

    def prepare(self, port: Port, timeout: float = CONNECT_TIMEOUT) -> Role:
        """The port's role, made and its SQL files loaded as it, once per run, each step within about
        ``timeout`` seconds; :class:`Unavailable` if that cannot be done."""
        dsn = self.dsn(timeout)
        assert port.query is not None
        with self._held():
            if port.name not in self._roles:
                try:
                    role = self._make_role(dsn, port, timeout)
                    self._roles[port.name] = self._load(role, port.query.load, timeout) or role
                except Unavailable as error:
                    self._roles[port.name] = str(error)
            made = self._roles[port.name]
        if isinstance(made, str):
            raise Unavailable(made)
        return made

    def _make_role(self, dsn: str, port: Port, timeout: float) -> Role:
        """A role of the port's own, and a database it alone owns and reaches, made by the
        administrator the DSN names. Where that administrator may not make them (or making them
        fails), the ports' SQL runs as the administrator itself, sharing its role and database, but
        only if it is no superuser and holds none of the server's file or program roles, or the run
        was told that it may (``--unsafe-superuser-sql``)."""
        name = role_name(port.name, self._word)
        password = secrets.token_urlsafe(24)
        self._masked.add(password)
        with WAITS.on(self.server), self._connect(dsn, timeout) as connection:
            ask = functools.partial(self._within, timeout, connection)
            may_make, dangerous = ask(lambda: connection.execute(RIGHTS).fetchone() or (False, True))
            failed = "" if may_make else "it may not make roles and databases"
            if may_make:
                try:
                    for statement in _making(name, password, dangerous, HARNESS, self._ready.pop(0) if self._ready else None):
                        ask(functools.partial(connection.execute, statement))
                        if name not in self._made:  # made, if only in part: dropped at the end all the same
                            self._made.append(name)
                    return Role(name, make_conninfo(dsn, user=name, password=password, dbname=name))
                except psycopg.Error as error:
                    failed = first_line(error)
        if dangerous and not self._unsafe_superuser:
            raise Unavailable(
                f"{self.server}: no role of {port.name}'s own could be made ({failed}), and the DSN's user is a superuser or may read "
                "the server's files or run its programs: a port's SQL never runs as such a user, unless --unsafe-superuser-sql says it may"
            )
        return Role(None, dsn)

    def _load(self, role: Role, files: tuple[Path, ...], timeout: float) -> str | None:
        """Run each file as it is, as the port's role; a file that wants one transaction says BEGIN and COMMIT itself."""
        for path in files:
            try:
                text = path.read_text(encoding="utf-8")
                with WAITS.on(self.server), self._connect(role.dsn, timeout) as connection:
                    self._within(timeout, connection, functools.partial(connection.execute, text))
            except (OSError, psycopg.Error, Unavailable) as error:
                return f"loading {path.name} into PostgreSQL failed: {first_line(error)}"
        return None

    def open(self, port: Port, query: Query, method: str, n: int, timeout: float) -> QueryStream:
        """One cell's query, running as the port's role; :class:`Unavailable` if the server or the
        port's role cannot be had, or the run is closing."""
        role = self.prepare(port, timeout)
        user = role.name or str(conninfo_to_dict(role.dsn).get("user") or getpass.getuser())
        stream = QueryStream(role.dsn, user, query, method, n, timeout, self)
        with self._guard:
            closing = self._closing
            if not closing:
                self._streams.add(stream)
        if closing:  # stop_all came while the stream connected
            stream.close()
            raise Unavailable("the run is closing: no query starts now")
        return stream

    def port_dsn(self, port: Port) -> str:
        """How to reach the port's database as its role (for a document's psql session)."""
        return self.prepare(port).dsn

    def host_pid(self, backend: int) -> int | None:
        """The process on this machine that is the server's process ``backend``, where it is on this machine."""
        return self.backend.host_pid(backend)

    def started(self, backend: int, role: str) -> None:
        """A cell's query runs in the server process ``backend``, as ``role``: if it still runs when the
        run ends, it is ended then."""
        with self._guard:
            self._backends[backend] = role

    def signal(self, how: str, backend: int, role: str, answered: threading.Event) -> None:
        """Cancel the query of the server process ``backend`` (``how`` = cancel), or end that process
        (terminate), as the administrator and only if it is one of ``role``'s; ``answered`` once the
        server has. A server that does not answer keeps the caller for 2 × CANCEL_GRACE at most:
        connecting, then asking."""
        dsn = self._dsn
        if dsn is None:
            return
        with contextlib.suppress(psycopg.Error), self._connect(dsn, CANCEL_GRACE) as connection, Deadline(connection, CANCEL_GRACE):
            connection.execute(_signalling(how), ([backend], [role]))
            answered.set()

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

    def unanswered(self, cancelled: bool, ending: bool) -> str:
        """Why a query did not end within CANCEL_GRACE of being asked to, in a line: the server has
        ended, or did not answer (then it gets no more cells), or took the cancel and the end of its
        process and the query did not end even so."""
        ended = self.ended()
        if ended:
            return ended
        if cancelled and ending:
            return self._unusable(f"{self.server} ended the process of a query it was asked to, but the query did not end within {CANCEL_GRACE:g} s")
        asked = "being asked to end the process of a query" if ending else "a cancel"
        return self._unusable(f"{self.server} did not answer within {CANCEL_GRACE:g} s of {asked}")

    def _unusable(self, reason: str) -> str:
        """Make ``reason`` why every cell from now on cannot have the server (the first reason stays)."""
        with self._guard:
            self._unavailable = self._unavailable or reason
        return reason

    def stop_all(self) -> None:
        """Cancel every query still running, end every wait on the server, and start nothing more, as
        when the user interrupts the harness. Returns at once: whatever the server does, every thread
        that waits on it is free within CANCEL_GRACE. A run stopped so leaves a server someone else
        runs within LEAVE_SECONDS."""
        self._interrupted = True
        self._halt_all()

    def _halt_all(self) -> None:
        with self._guard:
            self._closing = True
            streams, deadlines = list(self._streams), list(self._deadlines)
        for deadline in deadlines:
            deadline.end()
        for stream in streams:
            stream.stop()

    def close(self) -> None:
        """Cancel every query still running, end every process the ports' roles still have (on a
        server the run did not start, drop the roles and their databases too), and stop a server this
        run started."""
        self._halt_all()
        with self._guard:
            started, self._started = self._started, False
        if not started:
            return
        # Not under the lock a start under way holds: stopping the server ends that start too.
        try:
            if self._dsn and isinstance(self.backend, Existing) and not self._unavailable:
                # A run being stopped ends within LEAVE_SECONDS, whatever the server does.
                leaving = threading.Thread(target=_leave, args=(self._dsn, dict(self._backends), list(self._made)), daemon=True)
                leaving.start()
                leaving.join(LEAVE_SECONDS if self._interrupted else None)
        finally:
            self.backend.stop()

    def __enter__(self) -> Database:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


RIGHTS = """SELECT rolsuper OR (rolcreaterole AND rolcreatedb),
       rolsuper OR pg_catalog.pg_has_role(CURRENT_USER, 'pg_read_server_files', 'USAGE')
                OR pg_catalog.pg_has_role(CURRENT_USER, 'pg_write_server_files', 'USAGE')
                OR pg_catalog.pg_has_role(CURRENT_USER, 'pg_execute_server_program', 'USAGE')
  FROM pg_catalog.pg_roles WHERE rolname = CURRENT_USER"""
"""Whether the administrator may make a port's role and database, and whether it may reach beyond
the server's SQL (a superuser, or one that may read or write the server's files or run its programs)."""


def role_name(port: str, word: str) -> str:
    """A port's role's name, and its database's: the port's name as far as an identifier shows it
    plainly, a digest that tells apart names that show alike, and the run's word; at most 63 bytes."""
    shown = re.sub(r"[^a-z0-9]+", "_", port.lower()).strip("_")[:30]
    return f"{ROLE_PREFIX}{shown}_{hashlib.sha256(port.encode('utf-8', 'surrogateescape')).hexdigest()[:6]}_{word}"


def _making(name: str, password: str, superuser: bool, owner: str, ready: str | None) -> list[sql.Composable]:
    """The statements that make a port's role, which may do nothing beyond its own database, and the
    database, which it alone owns and may reach: one the server has ``ready``, renamed and handed to
    the role, or a new one. ``superuser``: whether the administrator may hand the database to the
    role as it is."""
    role = sql.Identifier(name)
    statements: list[sql.Composable] = [
        sql.SQL("CREATE ROLE {} LOGIN PASSWORD {} NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS").format(role, sql.Literal(password)),
        sql.SQL("COMMENT ON ROLE {} IS {}").format(role, sql.Literal(f"{ROLE_COMMENT}{owner}")),
    ]
    if not superuser:  # a CREATEROLE administrator may hand a database to a role only once it holds it
        statements.append(sql.SQL("GRANT {} TO CURRENT_USER").format(role))
    if ready is None:  # from template0, which no session holds, as the administrator may hold template1
        statements.append(sql.SQL("CREATE DATABASE {} OWNER {} TEMPLATE template0").format(role, role))
    else:
        statements += [
            sql.SQL("ALTER DATABASE {} RENAME TO {}").format(sql.Identifier(ready), role),
            sql.SQL("ALTER DATABASE {} OWNER TO {}").format(role, role),
        ]
    statements.append(sql.SQL("REVOKE ALL ON DATABASE {} FROM PUBLIC").format(role))
    return statements


def _signalling(how: str) -> sql.Composed:
    """Cancel the queries of (``how`` = cancel), or end (terminate), the server processes of the
    numbers given that run as the roles given, pair by pair."""
    return sql.SQL(
        "SELECT pg_catalog.{}(activity.pid) FROM pg_catalog.pg_stat_activity AS activity"
        " JOIN unnest(%s::int[], %s::name[]) AS given(pid, role) ON activity.pid = given.pid AND activity.usename = given.role"
    ).format(sql.Identifier(SIGNALS[how]))


def _leave(dsn: str, backends: dict[int, str], roles: list[str]) -> None:
    """Leave a server someone else runs as the run found it: end every process the run's queries
    still have there, and every process of the ports' roles, and drop the roles and their databases,
    within CONNECT_TIMEOUT and DROP_SECONDS a role, stretched while the machine is busy."""
    with contextlib.suppress(psycopg.Error), contextlib.closing(
        psycopg.connect(dsn, autocommit=True, connect_timeout=CONNECT_TIMEOUT)
    ) as connection, Deadline(connection, Patience(CONNECT_TIMEOUT + DROP_SECONDS * len(roles)).limit()):
        connection.execute(_signalling("terminate"), (list(backends), list(backends.values())))
        _drop(connection, roles)


def _drop(connection: psycopg.Connection[Any], roles: list[str]) -> None:
    connection.execute(
        "SELECT pg_catalog.pg_terminate_backend(pid) FROM pg_catalog.pg_stat_activity WHERE usename = ANY(%s)", (roles,)
    )
    for name in roles:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))
        connection.execute(sql.SQL("DROP ROLE IF EXISTS {}").format(sql.Identifier(name)))


def _sweep_roles(connection: psycopg.Connection[Any]) -> None:
    """Drop the ports' roles, and their databases, that an earlier run on this server made and could
    not drop because it was killed: those whose harness is provably gone (run on this machine). A
    server that will not say, or drop them, keeps them: the run goes on all the same."""
    with contextlib.suppress(psycopg.Error):
        found = connection.execute(
            "SELECT rolname, pg_catalog.shobj_description(oid, 'pg_authid') FROM pg_catalog.pg_roles WHERE pg_catalog.starts_with(rolname, %s)",
            (ROLE_PREFIX,),
        ).fetchall()
        gone = [name for name, comment in found if (comment or "").startswith(ROLE_COMMENT) and not alive(comment.removeprefix(ROLE_COMMENT))]
        if gone:
            _drop(connection, gone)
