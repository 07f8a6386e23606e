"""``--isolation sandbox``: bubblewrap, with no network, the whole file system read-only, the
port's folder and its build read-only where they are, a private writable /tmp, empty /run and
/var/run (no host's socket: the Docker engine's, D-Bus), a process namespace of its own, and death
with the harness. The program uses this machine's interpreters and sees an allowlisted environment.
A job that writes (a build, the PostgreSQL server) sees its own folder writable, and nothing else.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from harness.environment import port_environment
from harness.runners.process import PortProcess
from harness.runners.walls import Job, Walls, run_as

RUNTIME_FOLDERS = (Path("/run"), Path("/var/run"))
"""Where a machine keeps its services' sockets; empty in the sandbox (/var/run is often a link to /run)."""
BWRAP = "bwrap"
BWRAP_INSTALL = "Debian: apt-get install bubblewrap"
SHARED_USERS = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try")
"""Every namespace ``--unshare-all`` makes but the users'."""
USER_NAMESPACES = (
    "where unprivileged user namespaces are restricted (Ubuntu 24.04: kernel.apparmor_restrict_unprivileged_userns=1), "
    "allow them with sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or give bwrap an AppArmor profile "
    "that allows userns (README: Running as a user who is not root)"
)


class SandboxWalls(Walls):
    """A bubblewrap sandbox around each program, within the run's limits."""

    mode = "sandbox"

    def refusal(self) -> str | None:
        """Why bubblewrap cannot make a sandbox here, if it cannot."""
        return sandbox_problem()

    def start(self, job: Job) -> PortProcess:
        """The job's program in a sandbox of its own, as the job's ``user`` where one is given: then
        the harness, as root, makes the sandbox, and the program in it becomes that user, with no
        capability left, before it starts."""
        dropped = run_as(job.user, job.argv)
        argv = sandboxed(
            dropped, job.folder, readable=[job.port.folder, *job.reads], writable=job.writes, own_users=dropped is job.argv, size=self.limits.memory,
        )
        tmpdir = os.environ.get("TMPDIR") or "/tmp"
        environment = port_environment(job.names, home="/tmp", tmpdir=tmpdir)
        return PortProcess(argv, job.folder, job.seconds, job.stdin, limits=self.limits, env=environment, processes=self.processes)


WALLS = SandboxWalls


@functools.cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot run here, if it cannot: bubblewrap is missing, or cannot make the
    namespaces it needs (as a user who is not root where the kernel or AppArmor forbids them), which
    only trying shows."""
    if shutil.which(BWRAP) is None:
        return f"the sandbox needs bubblewrap, and {BWRAP} is not on PATH; {BWRAP_INSTALL}"
    try:
        tried = subprocess.run(
            sandboxed(["true"], Path("/"), readable=[]), stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{BWRAP} could not be run: {error}"
    if tried.returncode == 0:
        return None
    said = next(iter(tried.stderr.strip().splitlines()), f"exit code {tried.returncode}")
    return f"{BWRAP} cannot make a sandbox here ({said}); {USER_NAMESPACES}"


def sandboxed(  # noqa: PLR0913
    argv: list[str], folder: Path, readable: list[Path], writable: Sequence[Path] = (), own_users: bool = True, size: int | None = None,
) -> list[str]:
    """The command under bubblewrap, run in ``folder``: it sees the machine read-only, ``readable``
    (the port's folder, its build) where they are and read-only too, ``writable`` (a build's own
    folder) where it is and writable, a private /tmp (and TMPDIR) of its own, empty /run and
    /var/run (no host's socket: the Docker engine's, D-Bus), no network, no other process. With
    ``own_users`` False, the sandbox keeps the machine's users, so that a command run in it as root
    can become another of them (setpriv), which a user namespace of its own would not map. Each
    private folder holds at most ``size`` bytes: its files are memory, which no sample of the
    program's processes counts."""
    private = [Path("/tmp"), *(run for run in RUNTIME_FOLDERS if run.is_dir() and not run.is_symlink())]
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and Path(tmpdir) != Path("/tmp"):
        private.append(Path(tmpdir))
    shown = [*readable, *writable]
    sealed = list(dict.fromkeys(filter(None, (_sealed(path, private) for path in shown))))
    bounded = ("--size", str(size)) if size else ()
    tmpfs: list[tuple[Path, tuple[str, ...]]] = [(path, (*bounded, "--tmpfs", str(path))) for path in [*private, *sealed]]
    # The folders between a sealed tmpfs and what is shown inside it are made open to every user, as
    # bubblewrap would make them for its own user alone: a server run as a user of its own (root's)
    # must pass through them. They are empty but for the way down.
    between = dict.fromkeys(
        folder for path in shown for top in sealed if path.is_relative_to(top) for folder in path.parents if folder.is_relative_to(top) and folder != top
    )
    folders: list[tuple[Path, tuple[str, ...]]] = [(folder, ("--perms", "0755", "--dir", str(folder))) for folder in between]
    binds: list[tuple[Path, tuple[str, ...]]] = [
        *((path, ("--ro-bind", str(path), str(path))) for path in readable),
        *((path, ("--bind", str(path), str(path))) for path in writable),
    ]
    # Each mount after those that hold it (a stable sort: a tmpfs before a bind at the same depth), so
    # none hides another: a TMPDIR or a build inside the port's folder stays private and writable, or
    # readable, as it would anywhere else.
    mounts = sorted(tmpfs + folders + binds, key=lambda mount: len(mount[0].parts))
    return [
        BWRAP, "--die-with-parent", *(("--unshare-all",) if own_users else SHARED_USERS), "--new-session",
        "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        *(part for _, arguments in mounts for part in arguments),
        *(part for path in sealed for part in ("--remount-ro", str(path))),
        "--chdir", str(folder), "--", *argv,
    ]


def _sealed(path: Path, private: list[Path]) -> Path | None:
    """Where ``path`` lies inside a private /tmp (a checkout under /tmp, say), the folder just below
    that /tmp which leads to it: an empty read-only tmpfs there keeps what surrounds ``path`` as
    read-only as the rest of the machine, and the host's other files in /tmp out of sight."""
    inside = [tmp for tmp in private if path.is_relative_to(tmp) and path != tmp]
    if not inside:
        return None
    tmp = max(inside, key=lambda tmp: len(tmp.parts))
    top = tmp / path.relative_to(tmp).parts[0]
    return top if top != path else None
