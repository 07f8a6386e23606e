"""PostgreSQL for the ports that run inside it: the run's server, of one of the kinds :data:`SERVERS`
names (``--backend``; servers.py), each port a role of its own there (database.py), and one cell's
query streamed as lines the way a program's output is (query.py).

This module says what each kind is without loading it, so that the command line and the gate can
ask without loading a PostgreSQL client: a kind's class is loaded when a run makes its server.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from harness.settings import Backend

if TYPE_CHECKING:
    from harness.runners.postgres.servers import Server


@dataclass(frozen=True)
class ServerKind:
    """A kind of server, by the name ``--backend`` gives it: its class, and what is asked of it
    before any is made."""

    name: Backend
    server: str
    """Its class in servers.py, a :class:`~harness.runners.postgres.servers.Server`."""
    on_this_machine: bool
    """Whether it is a program of this machine's, started within the run's walls: a mode whose
    programs use no interpreter of this machine's (containers) cannot run it."""
    needs_dsn: bool
    """Whether it is someone else's, named by a DSN (``--dsn``, HANOI_PG_DSN), which no other kind takes."""
    uses_engine: bool
    """Whether it is a container of the Docker engine, so that a run that starts one first removes
    those a killed run left."""
    version_without_starting: bool
    """Whether its version is known without starting it (``harness list`` asks no other, unless --verbose)."""

    def load(self) -> type[Server]:
        """Its class, loaded (and psycopg with it) at first need."""
        server: type[Server] = getattr(importlib.import_module("harness.runners.postgres.servers"), self.server)
        return server


SERVERS: Final[dict[Backend, ServerKind]] = {
    kind.name: kind
    for kind in (
        ServerKind("embedded", "Embedded", on_this_machine=True, needs_dsn=False, uses_engine=False, version_without_starting=True),
        ServerKind("server", "Existing", on_this_machine=False, needs_dsn=True, uses_engine=False, version_without_starting=False),
        ServerKind("docker", "Container", on_this_machine=False, needs_dsn=False, uses_engine=True, version_without_starting=False),
    )
}
"""The kinds of server, by the name ``--backend`` gives."""
