"""What of the harness's environment a port may see, and what of it must never show; and which of
the machine's paths a manifest may ask the sandbox to show a port beyond what it shows every port.

A port is code someone else sent in. In the sandbox and in a container it sees an allowlist of
the harness's variables (the locale, the terminal's name, and what its manifest's ``env`` names)
with a PATH, HOME and TMPDIR of its own; never a variable that holds a secret. In every mode, the
values of the harness's secrets are masked wherever a report quotes what a port printed.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import PurePosixPath

PASSED_THROUGH = ("LANG", "LANGUAGE", "TERM", "TZ")
"""Variables every port sees as the harness does, with every ``LC_*`` one."""
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|KEY|CREDENTIAL", re.IGNORECASE)
"""A variable whose name says this holds a secret: never passed on, its value masked in reports."""
SECRET_VARIABLES = ("HANOI_PG_DSN", "DATABASE_URL", "PGPASSWORD")
"""Variables that hold a secret, or a connection string with one, under a name that does not say so."""
SHORTEST_SECRET = 4
"""A shorter value (``1``, ``yes``) is no secret worth masking, and masking it would garble every report."""
MASK = "***"
VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def secret_name(name: str) -> bool:
    """Whether a variable of this name holds a secret, or may."""
    return bool(SECRET_NAME.search(name)) or name in SECRET_VARIABLES


def port_environment(names: Iterable[str], home: str, tmpdir: str, path: str | None = None) -> dict[str, str]:
    """A port's environment where it is held (sandbox, container): the locale and terminal, the
    variables ``names`` lists as the harness has them (a secret's never), and its own HOME, TMPDIR
    and PATH (the harness's, unless given: an image has its own)."""
    environment = {
        name: value
        for name, value in os.environ.items()
        if (name in PASSED_THROUGH or name.startswith("LC_") or name in names) and not secret_name(name)
    }
    environment.update(HOME=home, TMPDIR=tmpdir, PATH=path if path is not None else os.environ.get("PATH", os.defpath))
    return environment


class Secrets:
    """The values that must never appear in a report: those of the harness's secret variables, and
    any other a command line gave (a DSN's password)."""

    def __init__(self, environment: Mapping[str, str]) -> None:
        self._lock = threading.Lock()
        self._values: set[str] = set()
        for name, value in environment.items():
            if secret_name(name):
                self.add(value)

    def add(self, value: str | None) -> None:
        """Mask ``value`` from now on (one too short to be a secret is not)."""
        if value and len(value) >= SHORTEST_SECRET:
            with self._lock:
                self._values.add(value)

    def mask(self, text: str) -> str:
        """``text`` with every secret in it replaced by ``***``, the longest first."""
        with self._lock:
            values = sorted(self._values, key=len, reverse=True)
        for value in values:
            if value in text:
                text = text.replace(value, MASK)
        return text



NEVER_SHOWN = tuple(
    PurePosixPath(path)
    for path in (
        "/root", "/home", "/srv", "/mnt", "/media", "/opt", "/tmp", "/var/tmp", "/run", "/var/run", "/proc", "/sys", "/dev", "/boot",
        "/lost+found", "/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-", "/etc/ssh", "/etc/sudoers", "/etc/sudoers.d",
        "/etc/ssl/private", "/etc/docker", "/var/lib/docker", "/var/lib/containerd", "/var/lib/postgresql", "/var/lib/sudo",
        "/var/log", "/var/mail", "/var/spool", "/var/backups", "/var/cache",
    )
)
"""Where secrets and other people's files live: a manifest's ``reads`` may name nothing in one of
these, nor a folder that holds one (``/etc``, ``/var``, ``/``)."""
READ_PATH = re.compile(r"(?:/[A-Za-z0-9_+][A-Za-z0-9_.+-]{0,99}){2,16}")
"""A path a manifest may ask to read: absolute, two folders deep at least, plain names (no ``..``,
no option, no space), as bubblewrap takes it as one argument."""


def refused_read(path: str) -> str | None:
    """Why a port may not be shown ``path`` (from a manifest's ``reads``), if it may not."""
    if not READ_PATH.fullmatch(path) or ".." in path.split("/"):
        return f"{path[:80]!r} is not an absolute path of plain names, two folders deep at least (/etc/java-17-openjdk)"
    asked = PurePosixPath(path)
    hidden = next((never for never in NEVER_SHOWN if asked.is_relative_to(never) or never.is_relative_to(asked)), None)
    if hidden is not None:
        return f"{path} would show {hidden}, which no port may read (home folders, keys, secrets, other services' data)"
    return None
