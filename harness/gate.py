"""The one gate through which the harness runs anything on a port's behalf: a cell's program, each
command of its build, its interpreters' version commands, and, for a port that runs in PostgreSQL,
its SQL and the server that runs it. The gate applies the run's mode (``--isolation``, a module of
``harness.runners.modes``), its limits, each job's deadline and the environment the mode allows;
what it starts, it ends. A new kind of port gets those walls by going through here.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from harness.build import Builds, Site
from harness.environment import Secrets
from harness.errors import StartFailed, Unavailable
from harness.extras import lacking
from harness.limits import BUILD_BYTES
from harness.patience import Patience
from harness.port import CONTAINERFILE, Built, Port, Program, Requirement
from harness.runners.base import Runner
from harness.runners.postgres import SERVERS
from harness.runners.walls import Job, Walls, open_walls
from harness.settings import Settings

if TYPE_CHECKING:
    from harness.runners.postgres.database import Database

VERSION_SECONDS = 10.0
"""The longest the version commands of a run may take, all at once, on an idle machine."""
MAX_ASKED = 64
"""The most version commands asked at once."""
NOT_ASKED = "version not asked: harness list --verbose asks it"
DISCARDS = {"stdout": ">/dev/null", "stderr": "2>/dev/null", "both": ">/dev/null 2>&1"}
"""How the shell that starts a program whose output is not read sends its moves to /dev/null, by the stream they are on."""
"""Why a version is unknown where the version commands were not run: each is the port's code."""


class Gate:
    """The run's walls, and its PostgreSQL if any of its ports runs in one (started at first need)."""

    def __init__(
        self, settings: Settings, dsn: str | None = None, ports: list[Port] | tuple[Port, ...] = (), parent: Path | None = None,
    ) -> None:
        """``dsn``: the server named for ``--backend server``; ``ports``: the run's, the first of which
        that runs in PostgreSQL and has a Containerfile gives the server's image for ``--backend
        docker``; ``parent``: where a server the harness starts keeps its folder (default: the
        temporary folder)."""
        self.settings = settings
        self.secrets = Secrets(os.environ)
        """The run's secrets, masked wherever a report quotes what a port printed: the environment's,
        the value of every variable a port's manifest passes it (``env``: no pattern of names or of
        values can tell every secret), the DSN's password, and each port's role's."""
        for port in ports:
            for name in {name for program in port.programs.values() for name in program.env}:
                self.secrets.add(os.environ.get(name))
        self._no_postgres = self._postgres_lacking(settings) if any(port.query for port in ports) else None
        if dsn:
            self.secrets.add(dsn)
            if not self._no_postgres:  # the DSN is read by the PostgreSQL client; without it no cell uses the DSN
                from harness.runners.postgres.connection import dsn_password

                self.secrets.add(dsn_password(dsn))
        self.walls: Walls = open_walls(settings.isolation, settings.limits, settings.build_seconds)
        self.builds = Builds(self.walls.processes.closing)
        in_postgres = [port for port in ports if port.query]
        self._server_port = next((port for port in in_postgres if (port.folder / CONTAINERFILE).is_file()), next(iter(in_postgres), None))
        self._dsn, self._parent = dsn, parent
        self._database: Database | None = None
        self._database_lock = threading.Lock()
        self._closed = False

    @property
    def database(self) -> Database | None:
        """The run's PostgreSQL, made (not yet started: that waits for a cell that needs it) when
        first asked for; None where no port of the run runs in one. A command that never asks, such
        as ``list``, loads no PostgreSQL client at all."""
        with self._database_lock:
            if self._database is None and self._server_port is not None and not self._closed and not self._no_postgres:
                from harness.runners.postgres.database import Database  # psycopg, only for a run that has a port in PostgreSQL

                self._database = Database(
                    self.settings.backend, self.walls, self._server_port, self.secrets, self._dsn, self._parent,
                    unsafe_superuser=self.settings.unsafe_superuser_sql,
                )
            return self._database

    def refusal(self, program: Program) -> str | None:
        """Why the program cannot run in this run's mode here, if it cannot: a port in PostgreSQL
        runs in its server, which says for itself once started, where this install has what starts one."""
        return self.walls.refusal() if program.query is None else self._no_postgres

    @staticmethod
    def _postgres_lacking(settings: Settings) -> str | None:
        """What this install lacks to run a port in PostgreSQL on the run's kind of server, if anything."""
        missing = lacking("postgres", "containers") if SERVERS[settings.backend].uses_engine else lacking("postgres")
        return f"not installed here: {missing}" if missing else None

    def missing(self, program: Program) -> tuple[Requirement, str] | None:
        """The first executable the program needs that cannot run in the run's walls here, and why:
        one this machine lacks, or the sandbox cannot see (in a container, the port's image brings its own)."""
        return next(((requirement, why) for requirement in program.requires if (why := self.walls.lacks(requirement))), None)

    def start(
        self, port: Port, method: str, n: int, settings: Settings, discard: bool = False, spelled: tuple[str, str] | None = None,
    ) -> Runner:
        """The cell running, within the time ``settings`` give a cell and a build: its query in the
        run's PostgreSQL, or its program (built first if it must be) within the walls; a
        :class:`~harness.errors.CellError` if it cannot be started. With ``discard``, the program's
        output goes to /dev/null, sent there by the shell that starts it (bench's floor), not read.
        ``spelled``: the method's name and n as the program is given them, where they are not
        ``method`` and ``n`` (harness smoke's probes of its usage); its build is the cell's."""
        program = port.program(method)
        if program.query is not None:
            database = self.database
            if database is None:
                raise Unavailable(f"{port.name} runs in PostgreSQL, and this run has none")
            return database.open(port, program.query, method, n, settings.timeout)
        try:
            built = self.build(port, program, method, n, settings.build_seconds)
            called, given = spelled or (method, n)
            argv = program.argv(called, given, self._seen(built))
            stream = program.output.stream
            if discard:
                argv = ["sh", "-c", f'exec "$@" {DISCARDS[stream]}', "sh", *argv]
            reads = (built.folder.parent,) if built else ()
            job = Job(port, argv, port.folder, settings.timeout, program.stdin(called, given), program.env, reads, stream=stream)
            return self.walls.start(job)
        except OSError as error:  # a cache folder that cannot be written, a port folder that is gone
            raise StartFailed(f"could not start the port's program: {error}") from None

    def build(self, port: Port, program: Program, method: str, n: int, seconds: float) -> Built | None:
        """The cell's program built within ``seconds``, or None if it needs no build. Each build
        command runs within the walls as the cell's program does, with its limits, in its private
        build folder, which alone it may write."""
        if not program.build:
            return None

        def start(argv: list[str], folder: Path, left: float) -> Runner:
            return self.walls.start(Job(port, argv, folder, left, names=program.env, writes=(folder.parent,), file_bytes=BUILD_BYTES))

        return self.builds.build(port, program, method, n, seconds, start, Site(self.walls.toolchain(port), self.walls.build_place(), self.walls.mode))

    def _seen(self, built: Built | None) -> Built | None:
        place = self.walls.build_place()
        return built.at(place) if built and place else built

    def versions(self, ports: list[Port], start: bool = True) -> dict[str, dict[str, tuple[str | None, str]]]:
        """Each port's interpreters' versions, by port and executable, and why one says nothing, if it
        does not; for a port in PostgreSQL, its server's. Without ``start``, only what can be known
        without running anything of a port's or starting a server: no version command (it is the
        port's code), and the embedded server's version, from its program. Each version command runs within the walls
        as the port's programs do, all at once (up to MAX_ASKED), within one VERSION_SECONDS (and the
        cell's --timeout) for them all, however many there are, stretched while the machine is busy
        (a container's start is slow then)."""
        patience = Patience(min(self.settings.timeout, VERSION_SECONDS))
        asks = [(port, requirement) for port in ports if not port.query for requirement in port.requires]
        pool = ThreadPoolExecutor(max_workers=min(len(asks) + 1, MAX_ASKED))
        try:
            asked = {
                port.name: {"postgresql": pool.submit(self._server_version, start)} if port.query
                else {requirement.executable: pool.submit(self._version, port, requirement, patience, start) for requirement in port.requires}
                for port in ports
            }
            return {name: {executable: answer.result() for executable, answer in answers.items()} for name, answers in asked.items()}
        except BaseException:  # Ctrl-C: the version commands end now, not at their deadline
            self.stop_all()
            raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _version(self, port: Port, requirement: Requirement, patience: Patience, start: bool) -> tuple[str | None, str]:
        lacking = self.walls.lacks(requirement)
        if lacking:
            return None, lacking
        if not start:
            return None, NOT_ASKED
        left = patience.deadline() - time.monotonic()
        if left <= 0:
            return None, f"not asked: the run's {patience.bound()} for asking versions were over"
        version, why = self.walls.version(port, requirement, left)
        return (self.secrets.mask(version) if version else None), self.secrets.mask(why)

    def _server_version(self, start: bool) -> tuple[str | None, str]:
        """``PostgreSQL 18.6 (embedded)``, starting the server if it must and ``start`` lets it."""
        if not start:
            if not SERVERS[self.settings.backend].version_without_starting:
                return None, f"not asked: the {self.settings.backend} server is asked only once started (harness list --verbose starts it)"
            from harness.runners.postgres.wheel import embedded_version

            return embedded_version()
        database = self.database
        if database is None:
            return None, self._no_postgres or "this run has no PostgreSQL"
        try:
            return database.version(), ""
        except Unavailable as error:
            return None, str(error)

    def _ending(self) -> Database | None:
        """The run's PostgreSQL, if one was made; none is made from now on."""
        with self._database_lock:
            self._closed = True
            return self._database

    def stop_all(self) -> None:
        """End everything running and start nothing more, as when the user interrupts the run."""
        self.walls.stop_all()
        database = self._ending()
        if database is not None:
            database.stop_all()
        self.walls.close()

    def close(self) -> None:
        """End what the run started: its queries and server, then its containers."""
        try:
            database = self._ending()
            if database is not None:
                database.close()
        finally:
            self.walls.close()

    def __enter__(self) -> Gate:
        return self

    def __exit__(self, failed: type[BaseException] | None, *exc_info: object) -> None:
        if failed is not None:  # Ctrl-C or an error: whatever still runs ends now
            self.stop_all()
        self.close()
