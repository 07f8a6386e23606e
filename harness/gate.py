"""The one gate through which the harness runs anything on a port's behalf: a cell's program, each
command of its build, its interpreters' version commands, and, for a port that runs in PostgreSQL,
its SQL and the server that runs it. The gate applies the run's mode (``--isolation``, a module of
``harness.runners.modes``), its limits, each job's deadline and the environment the mode allows;
what it starts, it ends. A new kind of port gets those walls by going through here.
"""

from __future__ import annotations

import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from harness.build import build
from harness.discover import CONTAINERFILE, Built, Port, Program, Requirement
from harness.environment import SECRETS
from harness.errors import StartFailed, Unavailable
from harness.runners.base import Runner
from harness.runners.process import PortProcess
from harness.runners.walls import VERSION_SECONDS, Job, Walls, open_walls
from harness.settings import Settings

if TYPE_CHECKING:
    from harness.runners.postgres import Database

MAX_ASKED = 64
"""The most version commands asked at once."""


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
        self.walls: Walls = open_walls(settings.isolation, settings.limits)
        self.database: Database | None = None
        in_postgres = [port for port in ports if port.query]
        sql = next((port for port in in_postgres if (port.folder / CONTAINERFILE).is_file()), next(iter(in_postgres), None))
        if sql is not None:
            from harness.runners.postgres import Database  # psycopg, only for a run that has a port in PostgreSQL

            self.database = Database(settings.backend, self.walls, sql, dsn, parent, unsafe_superuser=settings.unsafe_superuser_sql)

    def refusal(self, program: Program) -> str | None:
        """Why the program cannot run in this run's mode here, if it cannot (a port in PostgreSQL
        runs in its server, which says for itself)."""
        return self.walls.refusal() if program.query is None else None

    def missing(self, program: Program) -> Requirement | None:
        """The first executable the program needs that this machine lacks, where it uses this
        machine's (in a container, the port's image brings its own)."""
        return program.missing() if self.walls.host_interpreters else None

    def start(self, port: Port, method: str, n: int, settings: Settings, discard: bool = False) -> Runner:
        """The cell running, within the time ``settings`` give a cell and a build: its query in the
        run's PostgreSQL, or its program (built first if it must be) within the walls; a
        :class:`~harness.errors.CellError` if it cannot be started. With ``discard``, the program's
        output goes to /dev/null, sent there by the shell that starts it (bench's floor), not read."""
        program = port.program(method)
        if program.query is not None:
            if self.database is None:
                raise Unavailable(f"{port.name} runs in PostgreSQL, and this run has none")
            return self.database.open(port, program.query, method, n, settings.timeout)
        try:
            built = self.build(port, program, method, n, settings.build_seconds)
            argv = program.argv(method, n, self._seen(built))
            if discard:
                argv = ["sh", "-c", 'exec "$@" >/dev/null', "sh", *argv]
            reads = (built.folder.parent,) if built else ()
            return self.walls.start(Job(port, argv, port.folder, settings.timeout, program.stdin(method, n), program.env, reads))
        except OSError as error:  # a cache folder that cannot be written, a port folder that is gone
            raise StartFailed(f"could not start the port's program: {error}") from None

    def build(self, port: Port, program: Program, method: str, n: int, seconds: float) -> Built | None:
        """The cell's program built within ``seconds``, or None if it needs no build. Each build
        command runs within the walls as the cell's program does, with its limits, in its private
        build folder, which alone it may write."""
        if not program.build:
            return None

        def start(argv: list[str], folder: Path, left: float) -> Runner:
            return self.walls.start(Job(port, argv, folder, left, names=program.env, writes=(folder.parent,)))

        return build(port, program, method, n, seconds, start, self.walls.toolchain(port), inside=self.walls.build_place())

    def _seen(self, built: Built | None) -> Built | None:
        place = self.walls.build_place()
        return built.at(place) if built and place else built

    def versions(self, ports: list[Port]) -> dict[str, dict[str, tuple[str | None, str]]]:
        """Each port's interpreters' versions, by port and executable, and why one says nothing, if it
        does not; for a port in PostgreSQL, its server's. Each version command runs within the walls
        as the port's programs do, all at once (up to MAX_ASKED), within one VERSION_SECONDS (and the
        cell's --timeout) for them all, however many there are."""
        deadline = time.monotonic() + min(self.settings.timeout, VERSION_SECONDS)
        asks = [(port, requirement) for port in ports if not port.query for requirement in port.requires]
        pool = ThreadPoolExecutor(max_workers=min(len(asks) + 1, MAX_ASKED))
        try:
            asked = {
                port.name: {"postgresql": pool.submit(self._server_version)} if port.query
                else {requirement.executable: pool.submit(self._version, port, requirement, deadline) for requirement in port.requires}
                for port in ports
            }
            return {name: {executable: answer.result() for executable, answer in answers.items()} for name, answers in asked.items()}
        except BaseException:  # Ctrl-C: the version commands end now, not at their deadline
            self.stop_all()
            raise
        finally:
            pool.shutdown(wait=False, cancel_futures=True)

    def _version(self, port: Port, requirement: Requirement, deadline: float) -> tuple[str | None, str]:
        if self.walls.host_interpreters and shutil.which(requirement.executable) is None:
            return None, f"{requirement.executable} is not on PATH"
        left = deadline - time.monotonic()
        if left <= 0:
            return None, f"not asked: the run's {VERSION_SECONDS:g} s for asking versions were over"
        version, why = self.walls.version(port, requirement, left)
        return (SECRETS.mask(version) if version else None), SECRETS.mask(why)

    def _server_version(self) -> tuple[str | None, str]:
        """``PostgreSQL 18.6 (embedded)``, starting the server if it must."""
        if self.database is None:
            return None, "this run has no PostgreSQL"
        try:
            return self.database.version(), ""
        except Unavailable as error:
            return None, str(error)

    def stop_all(self) -> None:
        """End everything running and start nothing more, as when the user interrupts the run."""
        PortProcess.stop_all()
        if self.database is not None:
            self.database.stop_all()
        self.walls.close()

    def close(self) -> None:
        """End what the run started: its queries and server, then its containers."""
        try:
            if self.database is not None:
                self.database.close()
        finally:
            self.walls.close()

    def __enter__(self) -> Gate:
        return self

    def __exit__(self, failed: type[BaseException] | None, *exc_info: object) -> None:
        if failed is not None:  # Ctrl-C or an error: whatever still runs ends now
            self.stop_all()
        self.close()
