"""``--isolation container``: each cell, each command of a build and each version command runs in
a fresh container of its port's image (runners/images.py), started for it and removed after it, so nothing
one cell leaves (files in /tmp, shared memory, a process) reaches the next; with no network, a
read-only root, the port's folder read-only at /port, the run's limits and an allowlisted
environment, as the user nobody. And the sweep of containers a killed run left behind.
"""

from __future__ import annotations

import contextlib
import os
import queue
import secrets
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import docker
import docker.errors
import docker.types

from harness.environment import port_environment
from harness.errors import ContainerError, first_line
from harness.limits import CellGroup, Limits
from harness.model import Finish, Usage
from harness.output import Stream
from harness.port import Port
from harness.runners.base import Runner
from harness.runners.images import PORT_LABEL, Engine, engine, port_image
from harness.runners.process import EXIT_GRACE_SECONDS, HARNESS, KEPT, POLL_SECONDS, StderrKeeper, alive, ended
from harness.runners.walls import Job, Walls, hand_over
from harness.settings import DEFAULT_TIMEOUT, Backend, Mode

NOBODY = 65534
CELL_USER = f"{NOBODY}:{NOBODY}"
"""Cells run as nobody: root in the container could do more with a read-only root than it should.
So do builds, where the harness is root: a build run as root could leave a setuid-root program."""
STDIN_VARIABLE = "HANOI_STDIN"
SHELL_SIGNALS = " ".join(str(number) for number in range(1, 32) if number not in (signal.SIGKILL, signal.SIGSTOP, signal.SIGCHLD))
"""What the shell that runs a program traps, and so outlives: every signal that would end it and may be caught."""
NO_EXIT_CODE = "ended with no exit code from the Docker engine (the program may never have run)"
PORT_MOUNT = "/port"
BUILD_MOUNT = Path("/build")
"""Where a build's cache entry is mounted: a path every user may reach, as the entry's own may not be
(below /root, say)."""
TMP_SIZE = "256m"
QUEUED_BLOCKS = 64
IDLE_COMMAND = ["sleep", "infinity"]
IDLE_PROCESSES = ("docker-init", "sleep")
"""What runs in a container besides its cell; the process limit leaves room for them."""
EXEC_PROCESSES = 4
"""Room, in a container's process limit, for the engine's own processes that start a program in it
(runc's stages, alive or awaiting runc a moment after): with none, a port reading its n on
standard input was refused a fork at ``--processes 1`` in 5 of 24 cells, and with two in 4 of 24;
with four, in none of 18."""
IMAGE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
"""The PATH of a Debian image: a program in a container finds its interpreters there, not where the host has them."""


LOST_OUTPUT = (
    "its output came without the end its container's shell writes after it: the Docker engine lost some"
    " or all of it (moby/moby#27289), or the program killed that shell, so what it printed says nothing of the port"
)
KILLED_EXIT = 128 + 9
"""An exec's exit code when its program was killed (SIGKILL): by a limit, or by its container's end."""
RUN_LABEL = "org.hanoi-polyglot.tmpdir"
OWNER_LABEL = "org.hanoi-polyglot.harness"
SWEEP_TIMEOUT = 10


def container_labels(port: str) -> dict[str, str]:
    """A port's container's labels: the port, the TMPDIR of the harness run that started it (the run's
    own scope, as for its processes in run.py) and that harness, so that one run's containers can be
    told from another's, and those of a run that was killed found by the next."""
    return {PORT_LABEL: port, RUN_LABEL: os.environ.get("TMPDIR", ""), OWNER_LABEL: HARNESS}


def sweep_containers() -> int:
    """Remove the containers an earlier harness run left, because it was killed before it could: they
    carry this run's TMPDIR, and their harness is provably gone (run.alive). Returns how many; 0
    where no engine answers in a few seconds."""
    try:
        client = engine(SWEEP_TIMEOUT)
    except ContainerError:
        return 0
    removed = 0
    try:
        found = client.containers.list(all=True, ignore_removed=True, filters={"label": f"{RUN_LABEL}={os.environ.get('TMPDIR', '')}"})
        for container in found:
            if not alive(container.labels.get(OWNER_LABEL, "")):
                try:
                    container.remove(force=True)
                    removed += 1
                except docker.errors.DockerException:  # gone already, or being removed by another run
                    pass
    except Exception:  # the SDK's errors and requests' share no base: no sweep this time
        pass
    finally:
        client.close()
    return removed


class ContainerWalls(Walls):
    """A fresh container of the port's image around each program, within the run's limits."""

    mode: ClassVar[Mode] = "container"
    host_interpreters = False
    default_backend: ClassVar[Backend] = "docker"
    uses_engine = True

    def __init__(self, limits: Limits, build_seconds: float = DEFAULT_TIMEOUT) -> None:
        super().__init__(limits, build_seconds)
        self.containers = PortContainers(limits, build_seconds)

    def start(self, job: Job) -> ContainerCell:
        """The job's program in a container of its own: the port's folder read-only at /port, the
        folder it reads (a build's cache entry) read-only at BUILD_MOUNT, or the one it writes there
        and writable. It runs as nobody, but for a build of a harness that is not root, which runs
        as this machine's user, so that what it makes is this user's to keep; root's hands the
        folder over to nobody first, as the sandbox does."""
        shared = [*((folder, f"{BUILD_MOUNT}:ro") for folder in job.reads), *((folder, f"{BUILD_MOUNT}:rw") for folder in job.writes)]
        if len(shared) > 1:
            raise ContainerError(f"a container shows one folder besides the port's, at {BUILD_MOUNT}; this program needs {len(shared)}")
        user = CELL_USER if not job.writes or os.geteuid() == 0 else f"{os.getuid()}:{os.getgid()}"
        if user == CELL_USER:
            for folder in job.writes:
                hand_over(folder, NOBODY, NOBODY)
        container = self.containers.start(job.port, dict(shared), user=user, file_bytes=job.file_bytes, stdin=job.stdin is not None)
        workdir = Path(PORT_MOUNT)
        for folder, _ in shared:
            if job.folder.is_relative_to(folder):
                workdir = BUILD_MOUNT / job.folder.relative_to(folder)
        return ContainerCell(
            container, job.argv, job.seconds, done=lambda: self.containers.discard(container), stdin=job.stdin, workdir=workdir, names=job.names,
            stream=job.stream,
        )

    def build_place(self) -> Path:
        """A build's commands see its cache entry at BUILD_MOUNT."""
        return BUILD_MOUNT

    def toolchain(self, port: Port) -> str:
        """The port's image, whose compilers build it."""
        return self.containers.image(port)

    def close(self) -> None:
        """Remove every container of the run."""
        self.containers.close()


WALLS = ContainerWalls


class PortContainers:
    """The run's containers: a fresh one for each cell and each build command, started from the
    port's image, removed when it is over, and all removed by :meth:`close`. The engine is reached
    once per run, each port's image made once per run (a failure to make it, too, is said once), a
    port's own recipe within ``build_seconds`` and the run's memory cap."""

    def __init__(self, limits: Limits, build_seconds: float = DEFAULT_TIMEOUT) -> None:
        self.limits, self.build_seconds = limits, build_seconds
        self._engine: Engine | ContainerError | None = None
        self._images: dict[Path, str | ContainerError] = {}
        self._making: dict[Path, threading.Lock] = {}
        self._running: set[PortContainer] = set()
        self._lock = threading.Lock()
        self._closing = False

    def engine(self) -> Engine:
        """The run's engine; :class:`ContainerError` if none answers (said again for each cell, asked once)."""
        with self._lock:
            if self._engine is None:
                try:
                    self._engine = Engine()
                except ContainerError as error:
                    self._engine = error
            if isinstance(self._engine, ContainerError):
                raise self._engine
            return self._engine

    def image(self, port: Port) -> str:
        """The port's image, made the first time a cell asks; :class:`ContainerError` if it cannot be."""
        engine = self.engine()
        with self._lock:
            making = self._making.setdefault(port.folder, threading.Lock())
        with making:  # cells that ask at once wait for one making, and share how it went
            made = self._images.get(port.folder)
            if made is None:
                try:
                    made = engine.call(
                        f"making the image of {port.name}", port_image, engine.client, port.name, port.folder, port.requires,
                        seconds=self.build_seconds, memory=self.limits.memory,
                    )
                except ContainerError as error:
                    made = error
                self._images[port.folder] = made
        if isinstance(made, ContainerError):
            raise made
        return made

    def start(
        self, port: Port, mounts: dict[Path, str] | None = None, user: str = CELL_USER, file_bytes: int | None = None, stdin: bool = False,
    ) -> PortContainer:
        """A fresh container of the port's image, for one cell or one build command, with ``mounts``
        (a build's cache entry: ``PATH:ro`` or ``PATH:rw``, where the container sees it), no file
        written in it past ``file_bytes``, where given, and room beside the run's process limit for
        the shell that runs the program, and for its standard input's, where it has some (:func:`wrapped`)."""
        image = self.image(port)
        with self._lock:
            if self._closing:
                raise ContainerError("the run is closing: no container starts now")
        shells = 1 + stdin
        container = PortContainer(self.engine(), image, port, self.limits, mounts or {}, user, file_bytes, shells)
        with self._lock:
            self._running.add(container)
            closing = self._closing
        if closing:
            self.discard(container)
            raise ContainerError("the run is closing: no container starts now")
        return container

    def discard(self, container: PortContainer) -> None:
        """Remove a container whose cell is over."""
        with self._lock:
            self._running.discard(container)
        container.remove()

    def close(self) -> None:
        """Remove every container of the run, and let go of the engine; none starts after this."""
        with self._lock:
            self._closing = True
            containers, self._running = list(self._running), set()
        for container in containers:
            container.remove()
        if isinstance(self._engine, Engine):
            self._engine.close()

    def __enter__(self) -> PortContainers:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class PortContainer:
    """One started container of a port's image, for one cell or one build command."""

    def __init__(
        self, engine: Engine, image: str, port: Port, limits: Limits, mounts: dict[Path, str], user: str, file_bytes: int | None, shells: int,
    ) -> None:
        """``shells``: how many processes run the program, besides its own and the idle ones."""
        self.engine, self.name, self.user = engine, port.name, user
        ulimits = [docker.types.Ulimit(name="fsize", soft=file_bytes, hard=file_bytes)] if file_bytes else None
        volumes = {str(port.folder.resolve()): {"bind": PORT_MOUNT, "mode": "ro"}}
        for path, place in mounts.items():
            inside, _, mode = place.rpartition(":")
            volumes[str(path)] = {"bind": inside, "mode": mode}
        try:
            self.container = engine.call(
                f"starting a container of {port.name}", engine.client.containers.run,
                image, IDLE_COMMAND, detach=True, init=True, network_mode="none", read_only=True,
                tmpfs={"/tmp": f"rw,noexec,nosuid,nodev,size={TMP_SIZE}"}, volumes=volumes, working_dir=PORT_MOUNT,
                mem_limit=limits.memory, memswap_limit=limits.memory, pids_limit=limits.processes + len(IDLE_PROCESSES) + shells + EXEC_PROCESSES,
                cap_drop=["ALL"], security_opt=["no-new-privileges"], labels=container_labels(port.name), ulimits=ulimits,
            )
            engine.call(f"starting a container of {port.name}", self.container.reload)
        except docker.errors.DockerException as error:
            raise ContainerError(f"the container of {port.name} did not start: {first_line(error)}") from None
        self.group = CellGroup.of_process(self.container.attrs["State"]["Pid"], limits)
        """The container's control group, read from here to name a limit the cell crossed; None if unreadable."""

    def execute(self, argv: list[str], stdin: bytes | None, workdir: Path, names: tuple[str, ...], stream: Stream, end: bytes) -> str:
        """Start ``argv`` in the container, run by its shell as :func:`wrapped` says, returning the
        exec's id. It sees the allowlisted environment (environment.py) and the manifest's ``names``.
        Its standard input, if it has some, comes through the environment: an exec's own stdin would
        need a socket held open beside the output stream."""
        environment = port_environment(names, home="/tmp", tmpdir="/tmp", path=IMAGE_PATH)
        if stdin is not None:
            environment[STDIN_VARIABLE] = stdin.decode("utf-8", "replace")
        created: dict[str, str] = self.engine.call(
            f"starting a program in a container of {self.name}", self.engine.client.api.exec_create,
            self.container.id, wrapped(argv, stdin is not None, stream, end), stdout=True, stderr=True, user=self.user,
            workdir=str(workdir), environment=environment,
        )
        return created["Id"]

    def kill_cell(self) -> None:
        """Kill every process the cell left in the container: all of its user's (the idle process is
        root's), waiting for the kill no longer than one call into the engine may take. The container
        stays, so that its control group can still tell what the cell used."""
        if self.group and len(self.group.pids()) <= len(IDLE_PROCESSES):
            return  # nothing left: no exec needed
        api, what = self.engine.client.api, f"stopping a program in a container of {self.name}"
        with contextlib.suppress(docker.errors.DockerException, ContainerError):  # the container is gone, and the cell with it; or the engine is silent
            killer = self.engine.call(what, api.exec_create, self.container.id, ["sh", "-c", "kill -KILL -1"], user=self.user)
            self.engine.call(what, api.exec_start, killer["Id"], detach=True)  # attached, the SDK would read its stream with no time limit
            until = time.monotonic() + self.engine.timeout
            while self.engine.call(what, api.exec_inspect, killer["Id"])["ExitCode"] is None and time.monotonic() < until:
                time.sleep(POLL_SECONDS / 4)

    def gone(self, patience: float = 0.0) -> bool:
        """Whether the container no longer runs, asked for up to ``patience`` seconds (the engine
        says a killed container is running for a moment after its processes died): the harness
        never stops it while a cell uses it, so it was stopped or removed from outside, or its
        engine stopped; :class:`ContainerError` if the engine does not answer."""
        until = time.monotonic() + patience
        while True:
            try:
                self.engine.call(f"asking after a container of {self.name}", self.container.reload)
            except docker.errors.DockerException:
                return True
            if self.container.status != "running":
                return True
            if time.monotonic() >= until:
                return False
            time.sleep(POLL_SECONDS)

    def remove(self) -> None:
        """Remove the container and whatever runs in it; one gone already is fine."""
        with contextlib.suppress(docker.errors.DockerException, ContainerError):  # gone already; or, the engine silent, left to the sweep
            self.engine.call(f"removing a container of {self.name}", self.container.remove, force=True)


def wrapped(argv: list[str], stdin: bool, stream: Stream, end: bytes) -> list[str]:
    """``argv`` as the container's shell runs it: its standard input piped from the environment's
    STDIN_VARIABLE, both its streams made one (``2>&1``, in the order they were written) where both
    are read, and after it, on the stream that is read, ``end``: output that comes without it was
    lost on its way through the engine, which an empty output alone could not tell from a program
    that printed nothing. The shell exits as the program did. It outlives any signal the program
    may send it but SIGKILL (its traps are not the program's), and its own words (``Segmentation
    fault``) go nowhere, so that neither can pass for the program's."""
    program = '("$@" ' + ("2>&1" if stream == "both" else "2>&3") + " 3>&-)"  # a subshell that becomes the program
    if stdin:
        program = f'printf %s "${STDIN_VARIABLE}" | {program}'
    onto = " >&3" * (stream == "stderr")
    script = f"trap : {SHELL_SIGNALS}; exec 3>&2 2>/dev/null; {program}; status=$?; printf %s {end.decode()}{onto}; exit $status"
    return ["sh", "-c", script, "sh", *argv]


class ContainerCell(Runner):
    """One cell's program (or one build command) run by ``docker exec`` in a container of its own,
    removed by ``done`` once the cell is over. An engine that stops answering is an error naming it
    (:class:`ContainerError`), never the program's time-out."""

    def __init__(
        self, container: PortContainer, argv: list[str], timeout: float, done: Callable[[], None], stdin: bytes | None = None,
        workdir: Path = Path(PORT_MOUNT), names: tuple[str, ...] = (), stream: Stream = "stdout",
    ) -> None:
        """The program runs in ``workdir`` (the port's folder, or a build's own) and sees the variables
        ``names`` lists beside the allowlisted ones. ``stream``: which of its streams :meth:`output`
        gives (:func:`wrapped`)."""
        super().__init__(timeout)
        self.container, self._done = container, done
        self.returncode: int | None = None
        self._result: Finish | None = None
        self._released = False
        self._blocks: queue.Queue[bytes | None] = queue.Queue(maxsize=QUEUED_BLOCKS)
        self._stderr = StderrKeeper(KEPT[stream])
        self._swapped = stream == "stderr"
        self._end = secrets.token_hex(16).encode()
        """Written after the program by its shell: unguessable, so that no output ends with it by chance."""
        self._ended_whole = False
        """Whether ``_end`` came through: read once the output has ended, the engine lost none of it."""
        if container.group:
            container.group.begin()
        engine = container.engine
        try:
            self._exec = container.execute(argv, stdin, workdir, names, stream, self._end)
            stream = engine.call(f"starting a program in a container of {container.name}", engine.client.api.exec_start, self._exec, stream=True, demux=True)
        except (docker.errors.DockerException, ContainerError) as error:
            self._release()
            raise ContainerError(f"the cell did not start in the container of {container.name}: {first_line(error)}") from None
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: Iterator[tuple[bytes | None, bytes | None]]) -> None:
        """Hand on the output as it comes, the end mark taken out of it where it is found (a process
        the program left behind may still write after it). Bytes that may begin the mark are held
        back until more come, so that a mark split between two blocks is found too; no more than
        those, so that all a program that hangs has printed is read."""
        held = b""
        try:
            for engine_out, engine_err in stream:
                out, err = (engine_err, engine_out) if self._swapped else (engine_out, engine_err)
                if err:
                    self._stderr.feed(err)
                if out:
                    ready, held = self._unmarked(held + out)
                    if ready:
                        self._hand_on(ready)
        except Exception:  # the container was removed under the stream: the cell is over
            pass
        finally:
            if held:
                self._hand_on(held)
            self._hand_on(None)

    def _unmarked(self, output: bytes) -> tuple[bytes, bytes]:
        """``output`` without the first end mark in it (noting that it came), as what may be handed
        on and what must be held: its longest end that is how the mark begins."""
        if not self._ended_whole:
            before, mark, after = output.partition(self._end)
            self._ended_whole, output = bool(mark), before + after
        if self._ended_whole:
            return output, b""
        held = next((size for size in range(min(len(self._end) - 1, len(output)), 0, -1) if output.endswith(self._end[:size])), 0)
        return output[: len(output) - held], output[len(output) - held :]

    def _hand_on(self, block: bytes | None) -> None:
        """Queue a block (None: the end) for :meth:`output`; once the cell is stopped or out of time no
        one reads the queue, so the block is let go rather than waited on: the stream must still be
        read to its end, or the engine holds the program's output, and with it its end, unread."""
        while not (self.stopped or self.timed_out):
            with contextlib.suppress(queue.Full):
                self._blocks.put(block, timeout=POLL_SECONDS)
                return

    def processes(self) -> list[int]:
        """Every process in the container's control group, as this machine numbers them (the idle
        ones among them, which hold nothing of a cell's)."""
        return self.container.group.pids() if self.container.group else []

    def _state(self) -> dict[str, Any] | None:
        """The engine's view of the exec; None once the engine no longer knows it (its container is
        gone); :class:`ContainerError` if the engine does not answer."""
        engine = self.container.engine
        try:
            state: dict[str, Any] = engine.call(f"asking how a program in {self.container.name}'s container runs", engine.client.api.exec_inspect, self._exec)
        except docker.errors.DockerException:
            return None
        return state

    def _ended(self) -> bool:
        """Whether the program has ended: it has an exit code, or is gone. One that is not running has
        not always ended: the engine answers an exec's start before it starts the program."""
        state = self._state()
        return state is None or state["ExitCode"] is not None

    def _exit_code(self) -> int | None:
        """The exit code once the output has ended (the engine may record it a moment later); None if
        the engine has none to give."""
        deadline = time.monotonic() + EXIT_GRACE_SECONDS
        while (state := self._state()) is not None and state["ExitCode"] is None and time.monotonic() < deadline:
            time.sleep(POLL_SECONDS / 4)
        return None if state is None else state["ExitCode"]

    def output(self) -> Iterator[bytes]:
        """The program's stdout in blocks, until it ends (a process it left behind holding the
        output is killed), until a limit is crossed, or until the deadline: the engine, asked first,
        must answer for the time-out to be the program's."""
        exited_at: float | None = None
        while not self.stopped:
            now = time.monotonic()
            if now >= self.deadline:
                self._ended()  # raises if the engine is what stopped answering
                self._expire()
                return
            if self._breach():
                return
            try:
                block = self._blocks.get(timeout=min(POLL_SECONDS, self.deadline - now))
            except queue.Empty:
                if exited_at is None and self._ended():
                    exited_at = now
                    self.container.kill_cell()  # what it left behind goes, and the output closes
                continue
            if block is None:
                return
            yield block

    def _breach(self) -> str | None:
        breach = self.container.group.breach() if self.container.group else None
        if breach:
            self.container.kill_cell()
        return breach

    def _halt(self) -> None:
        self.container.kill_cell()

    def finish(self) -> Finish:
        """How the program ended, and its container removed; :class:`ContainerError` if the engine
        stopped answering."""
        if self._result is not None:
            return self._result
        try:
            self.container.engine.check()  # a silent engine ends no program: waiting for it to end is waiting in vain
            self._reader.join(max(self.deadline - time.monotonic(), 0) + EXIT_GRACE_SECONDS)
            if self._reader.is_alive():
                self._ended()  # the engine must answer before the program is said to have run out of time
                self._expire()
                self._reader.join(self.container.engine.timeout)
            self.returncode = self._exit_code()
            if not self.stopped and self.container.gone(EXIT_GRACE_SECONDS if self.returncode in (None, KILLED_EXIT) else 0.0):
                raise ContainerError(
                    f"the container of {self.container.name} went away while its program ran (stopped or removed outside the harness,"
                    " or its engine stopped): how the program ended says nothing of the port"
                )
            self.container.kill_cell()
            group = self.container.group
            limit, usage = (group.breach(), Usage(group.cpu_seconds(), group.peak())) if group else (None, Usage())
        finally:
            self._release()
        self._result = ended(self.returncode or 0, self.timed_out, self.stopped, self._stderr, limit, usage)
        if self.returncode is None and not (self.timed_out or self.stopped):
            self._result = replace(self._result, failure=NO_EXIT_CODE)
        if not self._ended_whole and self.returncode != KILLED_EXIT and not (self.timed_out or limit):
            how = "no exit code from the engine" if self.returncode is None else f"exit code {self.returncode}"
            self._result = replace(self._result, lost=f"the program ended with {how}, but {LOST_OUTPUT}")
        return self._result

    def close(self) -> None:
        """Leave nothing of the cell behind, whatever the engine does: its container goes (or, with an
        engine that no longer answers, is left to the next run's sweep)."""
        with contextlib.suppress(ContainerError):
            self.finish()

    def _release(self) -> None:
        if not self._released:
            self._released = True
            self._done()
