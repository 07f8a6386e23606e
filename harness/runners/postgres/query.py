"""One cell's query, run by psql: the port's SQL reaches the server only as SQL (psql sends it as it
is, reading no meta-command in it), as the port's own role, and its rows reach the harness through a
pipe, as a program's output does; or, for a port whose moves are the NOTICEs its query raises, these
reach it through psql's stderr as the server sends them, the moment each is raised.

psql runs three things in order. First a few lines the harness writes: the server's own deadline
for the query, and which server process is psql's (the harness asks for it by its full name, which
no object of a port's can stand in for). Only once the harness has heard that is the query sent, so
there is always a process to cancel and to measure from before it. After the query psql says so
(END_OF_QUERY and the cell's word) and waits, still connected, while the harness reads what that
process used; then its standard input is closed and it exits.
"""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo

from harness.errors import Unavailable
from harness.model import Finish, Usage
from harness.port import Query
from harness.runners.base import WAITS, Runner
from harness.runners.postgres.connection import connect_seconds, psql_executable
from harness.runners.process import POLL_SECONDS, Pipes, describe_exit, let_fill, process_details, process_status

CANCEL_GRACE = 2.0
"""Seconds a server has, once asked to cancel a query (and again, once asked to end its process), to end it."""
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
NOTICE = re.compile(rb"NOTICE:  [0-9A-Z]{5}: ")
"""The start of a NOTICE as psql prints it with VERBOSITY=verbose: its text follows, on this line and
on the next ones up to the next field of the server's report (``LOCATION:  ``)."""
BACKEND = "SELECT pg_catalog.pg_backend_pid() AS backend \\gset\n\\warn :backend\n"
"""How psql says which server process is its own: by the function's full name, which no function a
port makes in its own schema (and puts first on its search path) can stand in for."""
HEARD = "SET client_min_messages = notice;\n"
"""For a query whose moves are its NOTICEs: the server sends them to psql whatever its own settings say."""
PSQL_LINE_BYTES = 1 << 16
"""The most of one line of psql's stderr kept while it goes on: a port's notices reach it too, of any length."""


def statement(query: Query, method: str, n: int) -> str:
    """One cell's query: {method} quoted as an identifier, {n} as a literal."""
    return sql.SQL(query.sql).format(method=sql.Identifier(method), n=sql.Literal(n)).as_string()


def psql_command(dsn: str, timeout: float, script: int, *commands: str) -> tuple[list[str], dict[str, str]]:
    """psql's command line and environment for a cell that has ``timeout`` seconds: it runs the
    script it reads from the file descriptor ``script``, then each of ``commands`` as it is (``-c``:
    SQL goes to the server unread, and only a command that begins with a backslash is psql's own),
    then what it reads on its standard input. The password goes in the environment: a command line
    is there for every user of the machine to read."""
    params = conninfo_to_dict(dsn)
    password = params.pop("password", None)
    conninfo = make_conninfo(
        "", **params, application_name=APPLICATION_NAME, client_encoding="UTF8", connect_timeout=connect_seconds(timeout)
    )
    environment = {**os.environ, "PGPASSWORD": str(password)} if password else dict(os.environ)
    given = [part for command in commands for part in ("-c", command)]
    return [psql_executable(), "-X", "-q", "-v", "VERBOSITY=verbose", "-d", conninfo, "-f", f"/dev/fd/{script}", *given, "-f", "-"], environment


class QueryServer(Protocol):
    """What a query stream reports to, and asks of, the server its query runs on (the run's
    ``Database``): so that the stream knows no more of it than this, and can be held to it without one."""

    server: str
    """The server, named as a message names it."""

    def host_pid(self, backend: int) -> int | None:
        """The process on this machine that is the server's process ``backend``, where it is on this machine."""

    def started(self, backend: int, role: str) -> None:
        """A cell's query runs in the server process ``backend``, as ``role``."""

    def signal(self, how: str, backend: int, role: str, answered: threading.Event) -> None:
        """Cancel the query of ``backend`` (``how`` = cancel) or end that process (terminate); ``answered`` once the server has."""

    def unreachable(self, dsn: str, reason: str) -> str:
        """Why a cell could not connect (libpq's ``reason``), in a line."""

    def ended(self, wait: float = 0.0) -> str | None:
        """That the server has ended, if it has (looking for ``wait`` seconds)."""

    def unanswered(self, cancelled: bool, ending: bool) -> str:
        """Why a query did not end within CANCEL_GRACE of being asked to, in a line."""


@dataclass
class Verdict:
    """How a query ended, as what psql said tells it: its failure and the evidence for it, whether it
    ran out of time, and why the server, not the port, ended it (``silence``)."""

    failure: str | None = None
    evidence: str = ""
    timed_out: bool = False
    silence: str | None = None


class PsqlSays:
    """What psql says on its standard error, heard block by block as it comes: which server process is
    its own (``on_backend`` is told, once), the end of the query (``on_end``), the server's first
    error and psql's own first complaint; and for a query whose moves are its NOTICEs, their texts."""

    def __init__(self, end_of_query: str, notices: bool, on_backend: Callable[[int], None], on_end: Callable[[], None]) -> None:
        self.end_of_query, self.notices = end_of_query, notices
        self.on_backend, self.on_end = on_backend, on_end
        self.backend: int | None = None
        self.query_ended = False  # psql said END_OF_QUERY: what the server says after it is no longer the query's
        self.error: tuple[str, str] | None = None  # the first error the server reported: SQLSTATE, message
        self.said = ""  # psql's own first complaint (a connection that failed or was lost)
        self._partial = b""  # the line so far
        self._in_notice = False  # the line before was a NOTICE's text

    def hear(self, block: bytes) -> bytes:
        """Take in ``block``; the NOTICEs' texts it completes, for a query whose moves they are."""
        *lines, partial = (self._partial + block).split(b"\n")
        self._partial = partial[:PSQL_LINE_BYTES]
        said: list[bytes] = []
        for line in lines:
            if self.notices and not self.query_ended and (notice := self._notice_text(line)) is not None:
                said.append(notice)
                continue
            text = line.decode("utf-8", "replace").rstrip()
            if self.backend is None and text.isdigit():
                self.backend = int(text)
                self.on_backend(self.backend)
            elif text == self.end_of_query:
                self.query_ended = True
                self.on_end()
            elif (error := SERVER_ERROR.match(text)) and self.error is None and not self.query_ended:
                self.error = error["sqlstate"], error["message"]
            elif text and not self.said and not SERVER_FIELD.match(text) and not text[0].isspace():
                self.said = text.removeprefix("psql: error: ")
        return b"".join(said)

    def _notice_text(self, line: bytes) -> bytes | None:
        """A line of a NOTICE's text, with its line ending (none for the LOCATION line that ends it);
        None for any other line. psql prints a notice whole, its text then its fields, so nothing of
        psql's own comes between."""
        if line.startswith(b"NOTICE:  ") and (notice := NOTICE.match(line)):
            self._in_notice = True
            return line[notice.end():] + b"\n"
        if self._in_notice:
            if line.startswith(b"LOCATION:  "):
                self._in_notice = False
                return b""
            if not SERVER_FIELD.match(line.decode("utf-8", "replace")):
                return line + b"\n"
            self._in_notice = False
        return None

    def verdict(self, server: QueryServer, dsn: str, exit: str) -> Verdict:
        """How the query ended, psql having said all it had to and ended as ``exit`` says: out of
        time by the server's own deadline, never connected (the server asked why), connected and
        lost (the server asked whether it has ended), or failed with the server's error."""
        sqlstate, message = self.error or ("", "")
        if sqlstate == "57014":  # the server's own statement_timeout: the deadline, seen from there
            return Verdict(timed_out=True)
        if self.backend is None:
            return Verdict(silence=server.unreachable(dsn, self.said or exit))
        if not self.query_ended:  # psql lost its connection
            # A server killed closes its connections a moment before it is seen to have ended.
            silence = server.ended(LOST_WAIT)
            return Verdict(None if silence else "the connection to PostgreSQL was lost", message or self.said, silence=silence)
        if sqlstate:
            return Verdict(f"the query failed with SQLSTATE {sqlstate}", message)
        return Verdict()


class _ServerProcess:
    """The server process that runs a connection's queries: ``backend``, its number as the server
    knows it, and ``pid``, the process on this machine that it is, seen through /proc: what it used
    from now on. Where it is not on this machine (another one's server) nothing is read."""

    def __init__(self, backend: int, pid: int | None) -> None:
        self.backend, self.pid = backend, pid
        self._cpu_before = self._cpu()

    def _cpu(self) -> float | None:
        if self.pid is None:
            return None
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
        assert self.pid is not None  # a process with a CPU time
        peak = (process_details(self.pid) or {}).get("VmHWM", [])  # in kB, where the process is still there
        return Usage(cpu - self._cpu_before, int(peak[0]) * 1024 if peak and peak[0] != "0" else None)


class QueryStream(Runner):
    """One cell's query, run by psql: its rows arrive through a pipe, as a program's output does, so
    the harness spends on them no more of its time (and of the GIL) than on any port's. Each row is
    one line, its columns joined by spaces.

    psql reads a script on its stdin in two steps. First it sets the server's own deadline and says
    which server process is its own; only then is the query sent, so that there is a process to
    cancel from the start and to measure from before it. After the query psql says so (END_OF_QUERY
    and the cell's word) and waits, still connected, while the harness reads what that process used;
    then its stdin is closed and it exits."""

    def __init__(self, dsn: str, role: str, query: Query, method: str, n: int, timeout: float, database: QueryServer) -> None:
        """``dsn`` connects as the port's ``role``, whose server processes alone the harness signals for the cell."""
        super().__init__(timeout)
        self._dsn, self._role = dsn, role
        self._database = database
        self._end_of_query = f"{END_OF_QUERY} {uuid.uuid4().hex}"
        self._says = PsqlSays(self._end_of_query, query.notices, self._send_query, self._end_session)
        self._lock = threading.Lock()  # starting the cancel, sending the query, killing psql: one at a time
        self._ended = threading.Event()  # nothing reads psql any more
        self._halting: threading.Thread | None = None
        self._closed = False
        self._heard_all = False  # psql has closed its output: it has exited, and said all it had to
        self._failure: str | None = None
        self._silence: str | None = None  # why the server, not the port, ended the cell, if it did
        self._waiting: float | None = None  # since when the reading waits for psql, if it does
        self._evidence = ""
        self._server: _ServerProcess | None = None
        self._usage: Usage | None = None  # read once, while the server process still lives
        script, self._script = os.pipe()
        argv, environment = psql_command(dsn, timeout, script, f"COPY ({statement(query, method, n)}) TO STDOUT", f"\\warn {self._end_of_query}")
        try:
            self._psql = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, env=environment,
                pass_fds=(script,),
            )
        except OSError as error:
            os.close(self._script)
            raise Unavailable(f"psql could not start: {error}") from None
        finally:
            os.close(script)
        # The server keeps the deadline too, should a cancel ever cross the query on the wire. The
        # script fits in the pipe; psql runs the query once the harness closes it (_send_query).
        with contextlib.suppress(OSError):  # psql has exited: its stderr says why
            os.write(self._script, f"SET statement_timeout = {max(int(timeout * 1000), 1)};\n{HEARD if query.notices else ''}{BACKEND}".encode())
        self._alarm = threading.Timer(max(self.deadline - time.monotonic(), 0), self._expire)
        self._alarm.daemon = True
        self._alarm.start()

    def output(self) -> Iterator[bytes]:
        """The rows as lines of text, in blocks as psql prints them, or for a query whose moves are its
        NOTICEs, their texts, a line each, as psql prints them; until psql exits or the cell is stopped."""
        try:
            yield from self._read()
        finally:
            self._ended.set()

    def _read(self) -> Iterator[bytes]:
        assert self._psql.stdout is not None and self._psql.stderr is not None
        messages = self._psql.stderr.fileno()
        pipes = Pipes(self._psql.stdout.fileno(), messages)
        while pipes.open and not self.stopped:
            self._waiting = time.monotonic()
            with WAITS.on(self._database.server):
                ready = pipes.ready()
            self._waiting = None
            for fd, block in ready:
                if not block:
                    continue
                if fd == messages:
                    if said := self._says.hear(block):
                        yield said
                        let_fill(block)
                elif not self._says.notices:
                    yield block.replace(b"\t", b" ")
                    let_fill(block)
        if not pipes.open:
            if said := self._says.hear(b"\n"):
                yield said
            self._heard_all = True

    def _send_query(self, backend: int) -> None:
        """psql is connected, its server process is ``backend``: let it run the query (its script
        ends), unless the cell was stopped meanwhile (then psql is killed before it does)."""
        server = _ServerProcess(backend, self._database.host_pid(backend))
        self._database.started(backend, self._role)
        with self._lock:
            self._server = server
            if self._halting is not None:
                self._psql.kill()
                return
        self._end_script()

    def _end_script(self) -> None:
        with self._lock:
            script, self._script = self._script, -1
        if script >= 0:
            os.close(script)

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
        """Ask the server to cancel the query, then watch the reading until it ends. A query still
        running CANCEL_GRACE after the cancel (PL/pgSQL can catch one) has its server process ended;
        once the reading has waited CANCEL_GRACE for psql after that too, or after a cancel the server
        did not answer, the server is not answering, or is gone. psql is then killed, which ends the
        reading at once, and the cell says why. (A reading busy with rows psql printed before is not
        waiting for it.)"""
        asked, answered, ending = time.monotonic(), threading.Event(), False
        if self._server is not None and not self._ended.is_set():  # else no query runs, nor will
            self._signal("cancel", answered)
        while not self._ended.wait(POLL_SECONDS):
            waiting = self._waiting
            if waiting is None or time.monotonic() - max(waiting, asked) < CANCEL_GRACE:
                continue
            if answered.is_set() and not ending:  # the server took the cancel, and the query goes on
                asked, answered, ending = time.monotonic(), threading.Event(), True
                self._signal("terminate", answered)
                continue
            silence = self._database.unanswered(answered.is_set(), ending)
            with self._lock:
                if not self._closed:
                    self._silence = self._silence or silence
                    self._psql.kill()
            return

    def _signal(self, how: str, answered: threading.Event) -> None:
        """Ask the server, from a thread of its own, to cancel the query or to end its process: only
        a process of the port's role, whatever number psql said. ``answered`` once it has."""
        assert self._server is not None
        backend = self._server.backend
        threading.Thread(target=self._database.signal, args=(how, backend, self._role, answered), daemon=True).start()

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
        verdict = self._says.verdict(self._database, self._dsn, describe_exit(self._psql.returncode))
        if verdict.timed_out:
            self._timed_out.set()
        self._failure, self._evidence, self._silence = verdict.failure, verdict.evidence, verdict.silence

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
        self._end_script()
        self._psql.kill()
        self._psql.wait()
        for stream in (self._psql.stdin, self._psql.stdout, self._psql.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):  # a write psql never read
                    stream.close()
