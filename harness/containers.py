"""The run's containers: each port's cells run by ``docker exec`` in containers of the port's image
(images.py), one cell at a time in each, with no network, a read-only root and the run's limits; and
the sweep of containers that a killed run left behind.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import queue
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import docker
import docker.errors

from harness.build import FOLDER_NAME, PROGRAM_NAME, commands, require_program, run_commands
from harness.discover import Built, Port, Program
from harness.errors import BuildFailed, ContainerError, first_line
from harness.images import PORT_LABEL, engine, port_image
from harness.limits import CellGroup, Limits
from harness.model import Finish, Usage
from harness.run import EXIT_GRACE_SECONDS, HARNESS, POLL_SECONDS, StderrKeeper, alive, ended
from harness.runner import Runner

CELL_USER = "65534:65534"
"""Cells run as nobody: root in the container could do more with a read-only root than it should."""
STDIN_VARIABLE = "HANOI_STDIN"
RUNTIME_FAILURE = b"OCI runtime exec failed"  # how the engine says an exec could not start its program
NO_EXIT_CODE = "ended with no exit code from the Docker engine (the program may never have run)"
PORT_MOUNT = "/port"
BUILD_FOLDER = "/build"
"""Where a compiled port is built, in the container: the only place a cell may execute what it wrote."""
TMP_SIZE = "256m"
QUEUED_BLOCKS = 64
IDLE_COMMAND = ["sleep", "infinity"]
IDLE_PROCESSES = ("docker-init", "sleep")
"""What runs in a container between cells; the process limit leaves room for them."""


RUN_LABEL = "org.hanoi-polyglot.tmpdir"
OWNER_LABEL = "org.hanoi-polyglot.harness"
SWEEP_TIMEOUT = 10


def _pid_space() -> str | None:
    """The host, boot and process namespace in which this harness's pids mean something, for telling
    whether the harness that owns a container is gone; None where /proc cannot say (not Linux)."""
    try:
        boot = Path("/proc/sys/kernel/random/boot_id").read_text().strip()
        return f"{socket.gethostname()}/{boot}/{Path('/proc/self/ns/pid').readlink()}"
    except OSError:
        return None


PID_SPACE = _pid_space()
OWNER = f"{PID_SPACE}:{HARNESS}" if PID_SPACE else ""
"""This harness process, among all that may share an engine: the owner of the containers it starts
(none where its liveness cannot be judged, so that no later run removes them)."""


def container_labels(port: str) -> dict[str, str]:
    """A port's container's labels: the port, the TMPDIR of the harness run that started it (the run's
    own scope, as for its processes in run.py) and that harness, so that one run's containers can be
    told from another's, and those of a run that was killed found by the next."""
    return {PORT_LABEL: port, RUN_LABEL: os.environ.get("TMPDIR", ""), OWNER_LABEL: OWNER}


def sweep_containers() -> int:
    """Remove the containers an earlier harness run left, because it was killed before it could: they
    carry this run's TMPDIR, and their harness, in this same process namespace, is gone. Returns how
    many; 0 where no engine answers in a few seconds, or where liveness cannot be judged."""
    if PID_SPACE is None:
        return 0
    try:
        client = engine(SWEEP_TIMEOUT)
    except ContainerError:
        return 0
    removed = 0
    try:
        found = client.containers.list(all=True, ignore_removed=True, filters={"label": f"{RUN_LABEL}={os.environ.get('TMPDIR', '')}"})
        for container in found:
            space, _, harness = container.labels.get(OWNER_LABEL, "").rpartition(":")
            if space == PID_SPACE and harness and not alive(harness):
                try:
                    container.remove(force=True)
                    removed += 1
                except docker.errors.DockerException:  # gone already, or being removed by another run
                    pass
    except docker.errors.DockerException:
        pass
    finally:
        client.close()
    return removed


class PortContainers:
    """The run's containers: for each port, one container, or as many as run its cells at once, each
    running one cell at a time (so a container's limits are that cell's), started from the port's
    image with no network, a read-only root, the port's folder read-only at /port, a private /tmp,
    and the run's memory and process limits; all removed by :meth:`close`."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._client: docker.DockerClient | None = None
        self._idle: dict[Path, list[PortContainer]] = {}
        self._all: list[PortContainer] = []
        self._lock = threading.Lock()
        self._closing = False

    def take(self, port: Port) -> PortContainer:
        """An idle container of this port, started if there is none; :class:`ContainerError` if it cannot be."""
        folder = port.folder
        with self._lock:
            if self._closing:
                raise ContainerError("the run is closing: no container starts now")
            idle = self._idle.setdefault(folder, [])
            if idle:
                return idle.pop()
            if self._client is None:
                self._client = engine()
            client = self._client
        image = port_image(client, port.name, folder, port.requires)
        container = PortContainer(client, image, folder, self.limits)
        with self._lock:
            self._all.append(container)
        return container

    def give_back(self, container: PortContainer) -> None:
        """A container whose cell is over, idle again for the next cell of its port."""
        with self._lock:
            self._idle.setdefault(container.folder, []).append(container)

    def close(self) -> None:
        """Remove every container of the run; none starts after this."""
        with self._lock:
            self._closing = True
            containers, self._all = self._all, []
            self._idle.clear()
        for container in containers:
            container.remove()

    def __enter__(self) -> PortContainers:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class PortContainer:
    """One started container of a port, kept for the run, idle between cells."""

    def __init__(self, client: docker.DockerClient, image: str, folder: Path, limits: Limits) -> None:
        self.client, self.folder = client, folder
        self.built: set[Path] = set()
        """The build folders finished in this container."""
        self._build_lock = threading.Lock()
        try:
            self.container = client.containers.run(
                image, IDLE_COMMAND, detach=True, init=True, network_mode="none", read_only=True,
                tmpfs={"/tmp": f"rw,noexec,nosuid,nodev,size={TMP_SIZE}", BUILD_FOLDER: f"rw,exec,nosuid,nodev,size={TMP_SIZE}"},
                volumes={str(folder.resolve()): {"bind": PORT_MOUNT, "mode": "ro"}}, working_dir=PORT_MOUNT,
                mem_limit=limits.memory, memswap_limit=limits.memory, pids_limit=limits.processes + len(IDLE_PROCESSES),
                cap_drop=["ALL"], security_opt=["no-new-privileges"], labels=container_labels(folder.name),
            )
        except docker.errors.DockerException as error:
            raise ContainerError(f"the container of {folder.name} did not start: {first_line(error)}") from None
        self.container.reload()
        self.group = CellGroup.of_process(self.container.attrs["State"]["Pid"], limits)
        """The container's control group, read from here to name a limit the cell crossed; None if unreadable."""

    def build(self, program: Program, method: str, n: int, timeout: float) -> Built | None:
        """The program built in this container with its image's toolchain (once per container), in a
        private copy of the port's folder, or None if it needs no build; :class:`BuildFailed` if the
        build fails or makes no {binary}."""
        if not program.build:
            return None
        key = hashlib.sha256(repr(program.build).encode() + f"{method} {n}".encode()).hexdigest()[:16]
        entry = Path(BUILD_FOLDER) / key
        built = Built(entry / FOLDER_NAME, entry / PROGRAM_NAME)
        steps = commands(program, method, n, built)
        with self._build_lock:
            if entry not in self.built:
                copy = ["sh", "-c", f'mkdir -p "$1" && cp -R {PORT_MOUNT}/. "$1"', "sh", str(built.folder)]
                run_commands([(copy, "copying the port's folder to its build folder")], Path(BUILD_FOLDER), self._start, timeout)
                run_commands(steps, built.folder, self._start, timeout)
                require_program(steps, lambda: self._is_file(built.binary, timeout))
                self.built.add(entry)
        return built

    def _is_file(self, path: Path, timeout: float) -> bool:
        """Whether ``path`` is a file in this container."""
        try:
            run_commands([(["test", "-f", str(path)], f"test -f {path}")], Path(BUILD_FOLDER), self._start, timeout)
        except BuildFailed:
            return False
        return True

    def _start(self, argv: list[str], folder: Path, seconds: float) -> ContainerCell:
        """One build command in this container, as a cell of it runs, in ``folder``."""
        return ContainerCell(self, argv, seconds, done=lambda: None, workdir=folder)

    def execute(self, argv: list[str], stdin: bytes | None = None, workdir: Path = Path(PORT_MOUNT)) -> str:
        """Start ``argv`` in the container as a cell's process, returning the exec's id. Its standard
        input, if it has some, comes through the environment and a pipe from the container's shell:
        an exec's own stdin would need a socket held open beside the output stream."""
        environment = {"HOME": "/tmp", "TMPDIR": "/tmp"}
        if stdin is not None:
            environment[STDIN_VARIABLE] = stdin.decode("utf-8", "replace")
            argv = ["sh", "-c", f'printf %s "${STDIN_VARIABLE}" | "$@"', "sh", *argv]
        created: dict[str, str] = self.client.api.exec_create(
            self.container.id, argv, stdout=True, stderr=True, user=CELL_USER, workdir=str(workdir), environment=environment,
        )
        return created["Id"]

    def version(self, argv: list[str]) -> tuple[str | None, str]:
        """The first line a version command prints in this container, and why not, if it cannot say."""
        if not argv:
            return None, "the manifest gives no version command"
        try:
            done = self.container.exec_run(argv, user=CELL_USER, workdir=PORT_MOUNT)
        except docker.errors.DockerException as error:
            return None, f"{' '.join(argv)} could not run in the port's container: {error}"
        lines = [line.strip() for line in done.output.decode("utf-8", "replace").splitlines() if line.strip()]
        if done.exit_code != 0:
            return None, f"{' '.join(argv)} exited with code {done.exit_code} in the port's container"
        return (lines[0], "") if lines else (None, f"{' '.join(argv)} printed nothing")

    def kill_cell(self) -> None:
        """Kill every process a cell left in the container: all of nobody's (the idle process is root's)."""
        if self.group and len(self.group.pids()) <= len(IDLE_PROCESSES):
            return  # nothing left: no exec needed
        with contextlib.suppress(docker.errors.DockerException):  # the container is gone, and the cell with it
            self.client.api.exec_start(self.client.api.exec_create(self.container.id, ["sh", "-c", "kill -KILL -1"], user=CELL_USER)["Id"])

    def remove(self) -> None:
        """Remove the container and whatever runs in it; one gone already is fine."""
        with contextlib.suppress(docker.errors.DockerException):
            self.container.remove(force=True)


class ContainerCell(Runner):
    """One cell's program run by ``docker exec`` in a container of its port, which is the cell's
    alone until :meth:`finish` gives it back."""

    def __init__(
        self, container: PortContainer, argv: list[str], timeout: float, done: Callable[[], None], stdin: bytes | None = None,
        workdir: Path = Path(PORT_MOUNT),
    ) -> None:
        """``done`` is called once the cell is over and the container idle again; the program runs in
        ``workdir`` (the port's folder, or a build's own)."""
        super().__init__(timeout)
        self.container, self._done = container, done
        self.returncode: int | None = None
        self._result: Finish | None = None
        self._blocks: queue.Queue[bytes | None] = queue.Queue(maxsize=QUEUED_BLOCKS)
        self._stderr = StderrKeeper()
        if container.group:
            container.group.begin()
        try:
            self._exec = container.execute(argv, stdin, workdir)
            stream = container.client.api.exec_start(self._exec, stream=True, demux=True)
        except docker.errors.DockerException as error:
            done()
            raise ContainerError(f"the cell did not start in the container of {container.folder.name}: {first_line(error)}") from None
        self._reader = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._reader.start()

    def _read(self, stream: Iterator[tuple[bytes | None, bytes | None]]) -> None:
        first = True
        try:
            for out, err in stream:
                if err:
                    self._stderr.feed(err)
                if out and first and out.startswith(RUNTIME_FAILURE):
                    self._stderr.feed(out)  # the engine's words, on the program's stdout: it never started
                elif out:
                    self._blocks.put(out)
                first = first and not out
        except Exception:  # the container was removed under the stream: the run is closing
            pass
        finally:
            self._blocks.put(None)

    def _state(self) -> dict[str, Any] | None:
        """The engine's view of the exec; None once the engine no longer knows it (its container is gone)."""
        try:
            state: dict[str, Any] = self.container.client.api.exec_inspect(self._exec)
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
        output is killed), until a limit is crossed, or until the deadline."""
        exited_at: float | None = None
        while not self.stopped:
            now = time.monotonic()
            if now >= self.deadline:
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
        """How the program ended, and the container given back idle."""
        if self._result is not None:
            return self._result
        self._reader.join(max(self.deadline - time.monotonic(), 0) + EXIT_GRACE_SECONDS)
        if self._reader.is_alive():
            self._expire()
            self._reader.join()
        self.returncode = self._exit_code()
        self.container.kill_cell()
        group = self.container.group
        limit, usage = (group.breach(), Usage(group.cpu_seconds(), group.peak())) if group else (None, Usage())
        self._result = ended(self.returncode or 0, self.timed_out, self.stopped, self._stderr, limit, usage)
        if self.returncode is None and not (self.timed_out or self.stopped):
            self._result = replace(self._result, failure=NO_EXIT_CODE)
        self._done()
        return self._result
