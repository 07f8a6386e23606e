"""What every mode does: start a program on a port's behalf within the walls of the mode, with the
run's limits, a deadline and the environment the mode allows, and leave nothing of it behind.

The gate (gate.py) sends everything through here: a cell's program, each command of its build, a
version command, the embedded PostgreSQL server. Each mode (``harness.runners.modes``) says only
how it walls a program in; what a job is, how its output is read and how it is ended are the same
for all of them.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import pwd
import shutil
import stat
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from harness.errors import BuildFailed, CellError
from harness.extras import Extra, NotInstalled, lacking
from harness.limits import Limits
from harness.model import OUTPUT_ATTEMPTS
from harness.output import Stream
from harness.port import Port, Requirement
from harness.runners.base import Runner
from harness.runners.process import Processes
from harness.settings import DEFAULT_TIMEOUT, Backend, Mode


def platform_problem() -> str | None:
    """Why this machine cannot run a port, if it cannot: the walls are Linux's (control groups and
    namespaces, bubblewrap, the tree of a port's processes read from /proc to cap and to kill it, the
    sweep of what a killed run left), and elsewhere they would do nothing, saying nothing: a run
    that claims limits it does not keep. What runs nothing of a port's works anywhere."""
    if sys.platform.startswith("linux"):
        return None
    return (
        f"the harness runs ports on Linux alone, and this is {sys.platform}: its walls (the memory and process caps, the kill of a"
        " port's whole process tree, the sandbox, the sweep of a killed run) are Linux's, and would do nothing here."
        " check, merge, new-language and completion work anywhere; run the ports in a Linux machine or container (see docs/isolation.md)"
    )


VERSION_BYTES = 4096
"""The most of a version command's output that is read: its first line is the version."""


@dataclass(frozen=True)
class Job:
    """One program to run on a port's behalf: its command line and the folder it runs in, its time,
    what it is fed, and what of the machine it may see beyond what the mode shows every program."""

    port: Port
    """Whose it is: a container runs it in this port's image."""
    argv: list[str]
    folder: Path
    seconds: float
    stdin: bytes | None = None
    names: tuple[str, ...] = ()
    """The harness's variables it sees where the environment is held, beyond the allowlist."""
    reads: tuple[Path, ...] = ()
    """Folders it reads besides the port's own (a build's)."""
    writes: tuple[Path, ...] = ()
    """The folders it may write (a build's own, a server's data), read-only everything else."""
    user: str | None = None
    """The system user it runs as, where the harness runs as root (a server that refuses root)."""
    inherits: bool = True
    """Whether it sees the harness's environment in a mode that lets programs (a plain subprocess):
    the server never does, whatever the mode."""
    stream: Stream = "stdout"
    """Which of its streams the runner's output gives: standard output (the other kept as the
    evidence of how it ended), standard error, or both as one pipe, in the order written."""
    file_bytes: int | None = None
    """The largest file it may write (the kernel's RLIMIT_FSIZE, which fails a write past it): a
    build's, so that no one file of it outgrows the bound on its cache entry between two measures."""


class Walls(ABC):
    """A mode: how it walls a program in, and what that costs the caller to know."""

    mode: ClassVar[Mode]
    """The mode's name, its module's; a class that sets it annotates it as ``ClassVar[Mode]`` again, or
    mypy takes it for that one name, and a mode made from that class could not set its own."""
    host_interpreters: ClassVar[bool] = True
    """Whether programs use this machine's interpreters (so a missing one skips the cell here), as a
    PostgreSQL server of this machine's must (``SERVERS``: ``on_this_machine``)."""
    default_backend: ClassVar[Backend] = "embedded"
    """The PostgreSQL server of a run in this mode that names none (``--backend``, ``--dsn``)."""
    uses_engine: ClassVar[bool] = False
    """Whether its programs run in containers of the Docker engine, so that a run in this mode first
    removes those a killed run left."""

    def __init__(self, limits: Limits, build_seconds: float = DEFAULT_TIMEOUT) -> None:
        self.limits = limits
        self.build_seconds = build_seconds
        """How long a port's build may take (``--build-timeout``): where a mode builds the port's own
        recipe for an image, that recipe's build too."""
        self.processes = Processes()
        """The run's port processes, which :meth:`stop_all` ends."""

    def stop_all(self) -> None:
        """End every program running within the walls and start no other."""
        self.processes.stop_all()

    def refusal(self) -> str | None:
        """Why no program can run in this mode here, if none can."""
        return None

    @abstractmethod
    def start(self, job: Job) -> Runner:
        """The job's program running, within the walls; a :class:`~harness.errors.CellError` if it
        cannot be started."""

    def lacks(self, requirement: Requirement) -> str | None:
        """Why the executable cannot run within these walls here, if it cannot: where programs use this
        machine's interpreters, one that is not on PATH."""
        if self.host_interpreters and shutil.which(requirement.executable) is None:
            return f"not installed here: {requirement.executable} not found on PATH"
        return None

    def build_place(self) -> Path | None:
        """Where a build's cache entry is, as the build's commands see it: None where they see it where it is."""
        return None

    def toolchain(self, port: Port) -> str:
        """Where a port's compilers are, if not on this machine: a build with other compilers is another build."""
        return ""

    def version(self, port: Port, requirement: Requirement, seconds: float) -> tuple[str | None, str]:
        """The first line the requirement's version command prints, run as the port's program would
        be, within ``seconds`` and its first VERSION_BYTES; and why it says nothing, if it does not."""
        argv = list(requirement.version)
        if not argv:
            return None, "the manifest gives no version command"
        shown = " ".join(argv)
        names = tuple(dict.fromkeys(name for program in port.programs.values() for name in program.env))
        for _ in range(OUTPUT_ATTEMPTS):  # asked again, while its output is lost on the way (Finish.lost)
            try:
                head, finish = self.start(Job(port, argv, port.folder, seconds, names=names)).head(VERSION_BYTES)
            except CellError as error:  # it could not start, or the Docker engine stopped answering while it ran
                return None, f"{shown}: {error}"
            if not finish.lost:
                break
        if finish.lost:
            return None, f"{shown}: {finish.lost}"
        said = next((line.strip() for line in head[:VERSION_BYTES].decode("utf-8", "replace").splitlines() if line.strip()), "")
        said = said or next((line.strip() for line in finish.evidence.removeprefix("stderr:\n").splitlines() if line.strip()), "")
        if finish.timed_out:
            return None, f"{shown} did not answer within {seconds:.0f} s"
        if finish.failure and not finish.stopped:
            return None, f"{shown} {finish.failure}" + (f": {said[:200]}" if said else "")
        return (said[:200], "") if said else (None, f"{shown} printed nothing")

    def close(self) -> None:  # noqa: B027 - most modes hold nothing for the run
        """Let go of what the mode holds for the run (the Docker engine, its containers)."""


EXTRAS: dict[Mode, Extra] = {"container": "containers"}
"""The extra a mode needs beyond a plain install, by mode."""


def walls_class(mode: Mode) -> type[Walls]:
    """The class of ``mode``'s walls, from its module in ``harness.runners.modes``: only that mode is
    loaded; :class:`~harness.extras.NotInstalled` where the mode needs an extra this install lacks."""
    missing = lacking(EXTRAS[mode]) if mode in EXTRAS else None
    if missing:
        raise NotInstalled(f"--isolation {mode}: not installed here: {missing}")
    walls: type[Walls] = importlib.import_module(f"harness.runners.modes.{mode}").WALLS
    return walls


def open_walls(mode: Mode, limits: Limits, build_seconds: float = DEFAULT_TIMEOUT) -> Walls:
    """The walls of ``mode``, within ``limits``, whose builds may take ``build_seconds``."""
    return walls_class(mode)(limits, build_seconds)


def becomes(user: str | None) -> int | None:
    """The uid a program run_as ``user`` becomes, where the harness is root; None where it stays the harness's."""
    return pwd.getpwnam(user).pw_uid if user is not None and os.geteuid() == 0 else None


def run_as(user: str | None, argv: list[str]) -> list[str]:
    """The command run as ``user`` where the harness is root, by setpriv, with no other group, no
    capability left and none to gain; the very same list otherwise."""
    uid = becomes(user)
    if uid is None:
        return argv
    entry = pwd.getpwuid(uid)
    drop = ("--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs")
    return ["setpriv", f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", *drop, "--", *argv]


def file_bounded(argv: list[str], most: int | None) -> list[str]:
    """The command with no file it writes larger than ``most`` bytes (prlimit sets RLIMIT_FSIZE,
    which everything it starts inherits); the very same list where ``most`` is None."""
    return argv if most is None else ["prlimit", f"--fsize={most}", "--", *argv]


TREE_DEPTH = 64
"""How deep the folders a build makes may nest. What a build leaves is walked (measured, stripped,
handed over, removed) without recursion, which a tree a thousand folders deep would exhaust; a
deeper tree is the build's error."""


def tree(top: Path) -> Iterator[Path]:
    """``top`` and everything below it, each file, folder and link as itself (no link is followed),
    walked without recursion; :class:`~harness.errors.BuildFailed` past TREE_DEPTH."""
    yield top
    folders = [(top, 0)]
    while folders:
        folder, depth = folders.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except (FileNotFoundError, NotADirectoryError):  # gone, or a file: nothing below it
            continue
        for entry in entries:
            yield Path(entry.path)
            if entry.is_dir(follow_symlinks=False):
                if depth >= TREE_DEPTH:
                    raise BuildFailed(f"the build made folders more than {TREE_DEPTH} deep: {Path(entry.path).relative_to(top)}"[:300])
                folders.append((Path(entry.path), depth + 1))


def remove_tree(top: Path) -> None:
    """Remove a folder a build wrote, however deep, without recursion and following no link (a link
    is removed, not what it names). What cannot be removed is left (a later build of the port tries
    again, and is that port's error if it cannot)."""
    pending = [(top, False)]
    while pending:
        path, emptied = pending.pop()
        with contextlib.suppress(OSError):
            if emptied:
                path.rmdir()
            elif not stat.S_ISDIR(path.lstat().st_mode):
                path.unlink()
            else:
                pending.append((path, True))
                with os.scandir(path) as listing:
                    pending += [(Path(entry.path), False) for entry in listing]


def hand_over(folder: Path, uid: int, gid: int) -> None:
    """Make a job's own folder (a build's) the user's it runs as, so that it may write there and
    nowhere else: each file and link as itself, no link followed, and no file of another's that has
    other names (a hard link an earlier command made to a file elsewhere), which would hand that file
    over too."""
    for path in tree(folder):
        found = path.lstat()
        if (found.st_uid, found.st_gid) != (uid, gid) and (found.st_nlink == 1 or stat.S_ISDIR(found.st_mode)):
            os.chown(path, uid, gid, follow_symlinks=False)
