"""``--isolation sandbox``: bubblewrap, with no network, and a file system built from an allowlist:
the system's programs and libraries (``/usr`` and its links), the parts of ``/etc`` that programs
need to start (SYSTEM_ETC; an ``/etc/passwd`` and ``/etc/group`` of the sandbox's own), the port's
folder and its build read-only where they are, what its manifest's ``[[requires]]`` name in
``reads``, and a private writable /tmp; nothing of the homes, the keys, the checkout's ``.git``,
other ports or the harness. As root, the program runs as ``nobody``, with no capability, so that a
file that no other user may read stays unread even among what is shown; otherwise, as the user
who runs the harness, in a user namespace of its own. A process namespace of its own, and death
with the harness. A job that writes (a build, the PostgreSQL server) sees its own folder writable,
and nothing else.
"""

from __future__ import annotations

import dataclasses
import functools
import grp
import os
import pwd
import shutil
import subprocess
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

from harness.environment import port_environment, refused_read
from harness.errors import ReadRefused
from harness.port import Port, Requirement
from harness.runners.process import Launch, PortProcess, SandboxFirst
from harness.runners.walls import Job, Walls, becomes, file_bounded, hand_over, run_as
from harness.settings import Mode

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""The system's programs and libraries: folders shown read-only, or links into /usr made again as links."""
SYSTEM_ETC = (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "nsswitch.conf", "host.conf", "hosts", "gai.conf", "protocols", "services",
    "localtime", "timezone", "locale.alias", "locale.conf", "default/locale", "alternatives", "ssl/certs", "ssl/openssl.cnf",
    "ca-certificates", "mime.types", "os-release", "debian_version", "magic",
)
"""What of /etc programs need to start: the loader, names, the locale, the time zone, Debian's
alternatives, certificates. No shadow, no ssh, no sudoers, nothing a service keeps its secrets in."""
SHARED_MEMORY = Path("/dev/shm")
"""Where POSIX shared memory and semaphores live: a private file system of the sandbox's own, like /tmp."""
SANDBOX_USER = "nobody"
"""Whom root's sandbox runs a port as: a user with no file of its own."""
BWRAP = "bwrap"
BWRAP_INSTALL = "Debian: apt-get install bubblewrap"
SHARED_USERS = ("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try")
"""Every namespace ``--unshare-all`` makes but the users'."""
USER_NAMESPACES = (
    "where unprivileged user namespaces are restricted (Ubuntu 24.04: kernel.apparmor_restrict_unprivileged_userns=1), "
    "allow them with sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0, or give bwrap an AppArmor profile "
    "that allows userns (docs/isolation.md: Running as a user who is not root)"
)


class SandboxWalls(Walls):
    """A bubblewrap sandbox around each program, within the run's limits."""

    mode: ClassVar[Mode] = "sandbox"

    def refusal(self) -> str | None:
        """Why bubblewrap cannot make a sandbox here, if it cannot."""
        return sandbox_problem()

    def lacks(self, requirement: Requirement) -> str | None:
        """Why the executable cannot run in the sandbox here, if it cannot: not on PATH, or on PATH
        only in a folder the sandbox does not show (a toolchain in a home: rustup, pyenv, nvm), where
        there is a sandbox at all (where there is none, its refusal says why)."""
        return super().lacks(requirement) or (None if sandbox_problem() else hidden(requirement))

    def start(self, job: Job) -> PortProcess:
        """The job's program in a sandbox of its own, as the job's ``user`` where one is given (the
        server), as SANDBOX_USER where the harness is root, else as the harness's user: root makes
        the sandbox, and the program in it becomes that user, with no capability left, before it starts."""
        user = job.user or (SANDBOX_USER if os.geteuid() == 0 else None)
        if job.user is None and user is not None:
            entry = pwd.getpwnam(user)
            for folder in job.writes:
                hand_over(folder, entry.pw_uid, entry.pw_gid)
        readable = [job.port.folder, *job.reads, *shown_reads(job.port)]
        tmpdir = os.environ.get("TMPDIR") or "/tmp"
        environment = port_environment(job.names, home="/tmp", tmpdir=tmpdir)
        limits = dataclasses.replace(self.limits, files=(SHARED_MEMORY, *temporary_folders()))
        with walled(job.argv, job.folder, user, readable, job.writes, self.limits.memory) as (argv, descriptors, status):
            launch = Launch(job.stdin, limits, environment, pass_fds=descriptors, owner=becomes(user), stream=job.stream, status=status)
            return PortProcess(file_bounded(argv, job.file_bytes), job.folder, job.seconds, launch, self.processes)


WALLS = SandboxWalls


@functools.cache
def sandbox_problem() -> str | None:
    """Why the sandbox cannot run here, if it cannot: bubblewrap is missing, or cannot make the
    namespaces it needs (as a user who is not root where the kernel or AppArmor forbids them), which
    only trying shows, as a port would run: as SANDBOX_USER where the harness is root."""
    if shutil.which(BWRAP) is None:
        return f"the sandbox needs bubblewrap, and {BWRAP} is not on PATH; {BWRAP_INSTALL}"
    user = SANDBOX_USER if os.geteuid() == 0 else None
    try:
        with walled(["true"], Path("/"), user) as (argv, descriptors, status), subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, pass_fds=descriptors,
        ) as tried:
            first = SandboxFirst(status, tried.pid)
            try:
                _, stderr = tried.communicate(timeout=30)
            finally:
                tried.kill()
                tried.wait()
                first.reap()
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{BWRAP} could not be run: {error}"
    if tried.returncode == 0:
        return None
    said = next(iter(stderr.strip().splitlines()), f"exit code {tried.returncode}")
    return f"{BWRAP} cannot make a sandbox here ({said}); {USER_NAMESPACES}"


@contextmanager
def walled(
    argv: list[str], folder: Path, user: str | None, readable: Sequence[Path] = (), writable: Sequence[Path] = (), size: int | None = None,
) -> Iterator[tuple[list[str], tuple[int, ...], int]]:
    """``argv`` in a sandbox (:func:`sandboxed`), run as ``user`` where the harness is root (else as
    the harness's user, in a user namespace of its own), with the sandbox's own accounts: bubblewrap's
    command line, the descriptors the process that starts it must pass on, open while this lasts, and
    the reading end of its status pipe (``--json-status-fd``), which the caller takes and closes."""
    dropped = run_as(user, argv)
    status, written = os.pipe()
    try:
        with accounts(user) as (files, descriptors):
            sandbox = sandboxed(dropped, folder, readable=list(readable), writable=writable, own_users=dropped is argv, size=size, files=files)
            yield [sandbox[0], "--json-status-fd", str(written), *sandbox[1:]], (*descriptors, written), status
    finally:
        os.close(written)


def sandbox_user() -> str:
    """Who a port runs as in the sandbox, for harness doctor."""
    if os.geteuid() == 0:
        return f"{SANDBOX_USER} (root makes the sandbox; the port keeps no capability and reads no file that only root may)"
    return f"{pwd.getpwuid(os.getuid()).pw_name} (the harness's user), in a user namespace of its own"


def hidden(requirement: Requirement) -> str | None:
    """Where the executable is, if the sandbox cannot run it: found on PATH, but in no folder of
    PATH that the sandbox shows (the system's, or what the requirement's ``reads`` show). A program
    in the sandbox looks it up on the same PATH, whose folders outside its view are not there, so it
    would find the first copy that is inside, or none. The sandbox never shows a home to reach one."""
    found = shutil.which(requirement.executable)
    if found is None:
        return None
    shown = [*map(Path, SYSTEM), *(Path(path).resolve() for path in requirement.reads)]
    inside = [folder for folder in os.environ.get("PATH", os.defpath).split(os.pathsep) if folder and _within(Path(folder).resolve(), shown)]
    if shutil.which(requirement.executable, path=os.pathsep.join(inside)) is not None:
        return None
    return (
        f"not installed in the sandbox: {requirement.executable} is {found}, in a folder the sandbox does not show"
        " (it shows the system's programs under /usr, never a home); the sandbox needs a system copy"
    )


def shown_reads(port: Port) -> list[Path]:
    """What the port's requirements name in ``reads`` and this machine has, where each leads once
    its links are resolved, held there to the rule the manifest was held to (with the folder that
    holds the port for the checkout); a :class:`~harness.errors.ReadRefused` for one that leads
    where no port may read, before bubblewrap is asked for anything."""
    shown = []
    for requirement in port.requires:
        for path in requirement.reads:
            real = Path(path).resolve()
            if not real.exists():
                continue
            if why := refused_read(str(real), (port.folder.parent,)):
                raise ReadRefused(f"[[requires]] 'reads' names {path}, which leads to {real} on this machine: {why}")
            shown.append(real)
    return shown


@contextmanager
def accounts(user: str | None) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    """The sandbox's own /etc/passwd and /etc/group, each read by bubblewrap from a pipe: root,
    nobody, and whoever runs inside; nobody else of this machine. Yields bubblewrap's arguments
    and the descriptors the program that starts it must pass on; they are closed after."""
    entries = {0: pwd.getpwuid(0)}
    for known in (SANDBOX_USER, user):
        try:
            entry = pwd.getpwnam(known) if known else pwd.getpwuid(os.getuid())
        except KeyError:
            continue
        entries[entry.pw_uid] = entry
    passwd = "".join(f"{e.pw_name}:x:{e.pw_uid}:{e.pw_gid}::/tmp:/usr/sbin/nologin\n" for e in entries.values())
    groups = {e.pw_gid: _group_name(e.pw_gid, e.pw_name) for e in entries.values()}
    group = "".join(f"{name}:x:{gid}:\n" for gid, name in groups.items())
    descriptors: list[int] = []
    try:
        files = []
        for text, where in ((passwd, "/etc/passwd"), (group, "/etc/group")):
            read, write = os.pipe()
            descriptors.append(read)
            os.write(write, text.encode())  # a few lines: the pipe holds them
            os.close(write)
            files += ["--perms", "0644", "--ro-bind-data", str(read), where]
        yield files, tuple(descriptors)
    finally:
        for descriptor in descriptors:
            os.close(descriptor)


def _group_name(gid: int, fallback: str) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return fallback


def system_view() -> list[str]:
    """The system's programs, libraries and the allowlisted /etc, as bubblewrap's arguments."""
    view: list[str] = []
    for top in map(Path, SYSTEM):
        if top.is_symlink():
            view += ["--symlink", str(top.readlink()), str(top)]
        elif top.is_dir():
            view += ["--ro-bind", str(top), str(top)]
    etc = Path("/etc")
    for folder in dict.fromkeys([etc, *(etc / name for name in SYSTEM_ETC if "/" in name)]):
        view += ["--perms", "0755", "--dir", str(folder if folder == etc else folder.parent)]
    for name in SYSTEM_ETC:
        view += ["--ro-bind-try", str(etc / name), str(etc / name)]
    return view


def sandboxed(
    argv: list[str], folder: Path, readable: list[Path], writable: Sequence[Path] = (), own_users: bool = True, size: int | None = None,
    files: Sequence[str] = (),
) -> list[str]:
    """The command under bubblewrap, run in ``folder``: it sees the system (system_view), ``readable``
    (the port's folder, its build, its requirements' reads) where they are and read-only,
    ``writable`` (a build's own folder) where it is and writable, a private /tmp (and TMPDIR) of its
    own, ``files`` (accounts), no network, no other process, and nothing else of the machine. With
    ``own_users`` False, the sandbox keeps the machine's users, so that a command run in it as root
    can become another of them (setpriv), which a user namespace of its own would not map. Each
    private folder, /dev/shm among them, holds at most ``size`` bytes: its files are memory, and
    the rest of /dev is read-only, so that nothing else there holds any."""
    private = temporary_folders()
    shown = [*readable, *writable]
    sealed = list(dict.fromkeys(filter(None, (_sealed(path, private) for path in shown))))
    bounded = ("--size", str(size)) if size else ()
    tmpfs: list[tuple[Path, tuple[str, ...]]] = [(path, ("--perms", "1777", *bounded, "--tmpfs", str(path))) for path in private]
    tmpfs += [(path, (*bounded, "--tmpfs", str(path))) for path in sealed]
    # The folders on the way to what is shown are made open to every user, as bubblewrap would make
    # them for its own user alone: a program run as a user of its own (root's) must pass through them.
    # They are empty but for the way down.
    between = dict.fromkeys(folder for path in shown for folder in path.parents if folder != Path("/") and not _within(folder, [*SYSTEM, "/etc"]))
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
        *system_view(), *files, "--dev", "/dev", "--perms", "1777", *bounded, "--tmpfs", str(SHARED_MEMORY), "--proc", "/proc",
        *(part for _, arguments in mounts for part in arguments),
        *(part for path in sealed for part in ("--remount-ro", str(path))), "--remount-ro", "/dev", "--remount-ro", "/",
        "--chdir", str(folder), "--", *argv,
    ]


def temporary_folders() -> list[Path]:
    """The sandbox's own /tmp, and the TMPDIR it is given where that is elsewhere."""
    private = [Path("/tmp")]
    tmpdir = os.environ.get("TMPDIR")
    if tmpdir and Path(tmpdir) != Path("/tmp"):
        private.append(Path(tmpdir))
    return private


def _within(path: Path, tops: Sequence[str | Path]) -> bool:
    return any(path.is_relative_to(top) for top in tops)


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
