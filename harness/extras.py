"""What a plain ``pip install`` of the harness leaves out, each an extra of the package (pyproject.toml):
the modules each brings, and the one line that says how to get it where it is missing.

A plain install holds what ``harness check`` needs, and compares every port that runs as a program:
it is the commit hook's whole environment, so it stays small. Where an extra is missing, the cells
that need it, or the command, say which extra to install; ``all`` holds every one.
"""

from __future__ import annotations

import importlib.util
from typing import Literal

from harness.errors import HarnessError

Extra = Literal["postgres", "containers", "pretty", "gallery", "transcripts"]

MODULES: dict[Extra, tuple[str, ...]] = {
    # the ports that run in PostgreSQL: its client, and the embedded server (checked where it starts)
    "postgres": ("psycopg",),
    # --isolation container and --backend docker: the Docker engine's SDK
    "containers": ("docker", "requests"),
    # the coloured table and the progress bar on a terminal; without it, the plain table
    "pretty": ("rich",),
    # harness gallery, which highlights each port's code
    "gallery": ("pygments",),
    # harness transcripts, which types into a real interpreter and shows what it answered
    "transcripts": ("pexpect", "rich"),
}
"""The modules each extra brings that the harness imports, by extra."""


class NotInstalled(HarnessError):
    """A command needs an extra that is not installed here; the message names it."""


def lacking(*extras: Extra) -> str | None:
    """What of ``extras`` is missing here, in the words a missing interpreter is said in (what is not
    found, and the one command that installs it); None where all are installed. Asked of the import
    system, without importing anything."""
    missing = {extra: [module for module in MODULES[extra] if importlib.util.find_spec(module) is None] for extra in extras}
    modules = list(dict.fromkeys(module for found in missing.values() for module in found))
    if not modules:
        return None
    wanted = ",".join(extra for extra, found in missing.items() if found)
    return f"{', '.join(modules)} not found; pip install 'hanoi-polyglot[{wanted}]' installs {'it' if len(modules) == 1 else 'them'}"


def require(what: str, *extras: Extra) -> None:
    """Raise :class:`NotInstalled` if ``what`` (``harness gallery``) needs an extra that is missing."""
    missing = lacking(*extras)
    if missing:
        raise NotInstalled(f"{what}: not installed here: {missing}")
