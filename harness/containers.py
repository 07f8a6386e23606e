"""Port images for the Docker engine: each port folder's Containerfile built once on the shared
Debian base, and kept under a tag made from everything in the folder, so an image is rebuilt only
when the port (or the base) changes.

The base is ``hanoi-polyglot/base:bookworm`` where it has been built here (containers/base.sh
makes it from the machine's own apt sources, with no registry), else ``debian:bookworm-slim``
from a registry. The engine is reached through the Docker SDK, from the environment (DOCKER_HOST).
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

import docker
import docker.errors

CONTAINERFILE = "Containerfile"
LOCAL_BASE = "hanoi-polyglot/base:bookworm"
REGISTRY_BASE = "debian:bookworm-slim"
IMAGE_REPOSITORY = "hanoi-polyglot"
BUILD_TIMEOUT = 1800
ERROR_LINES = 12


class ContainerError(Exception):
    """No engine answers, or a port's image cannot be built; the message says why in a line or a few."""


def _first_line(error: BaseException) -> str:
    return next((line.strip() for line in str(error).splitlines() if line.strip()), type(error).__name__)


def engine() -> docker.DockerClient:
    """A client of the Docker engine the environment names; :class:`ContainerError` if none answers."""
    try:
        client = docker.from_env(timeout=BUILD_TIMEOUT)
        client.ping()
    except Exception as error:  # the SDK raises unrelated types (DockerException, requests' errors) here
        raise ContainerError(f"no Docker engine answers ({_first_line(error)})") from None
    return client


def base_image(client: docker.DockerClient) -> str:
    """The base every port's image starts from: the local one where it is built, else the registry's."""
    try:
        client.images.get(LOCAL_BASE)
    except docker.errors.ImageNotFound:
        return REGISTRY_BASE
    return LOCAL_BASE


_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def port_image(client: docker.DockerClient, name: str, folder: Path) -> str:
    """The tag of the port's image, building it first unless an image of this very folder and base
    is there already. Cells of one port that ask at once wait for one build."""
    containerfile = folder / CONTAINERFILE
    if not containerfile.is_file():
        raise ContainerError(f"{name} has no {CONTAINERFILE}, so it cannot run in a container")
    base = base_image(client)
    with _locks_guard:
        lock = _locks.setdefault(folder.resolve(), threading.Lock())
    with lock:
        tag = f"{IMAGE_REPOSITORY}/{name}:{_content_key(client, folder, base)}"
        try:
            client.images.get(tag)
        except docker.errors.ImageNotFound:
            _build(client, folder, tag, base)
    return tag


def _content_key(client: docker.DockerClient, folder: Path, base: str) -> str:
    """A digest of every file under the folder (names and bytes) and of the base image's id."""
    digest = hashlib.sha256()
    try:
        digest.update(client.images.get(base).id.encode())
    except docker.errors.ImageNotFound:
        digest.update(base.encode())  # pulled by the first build; the tag names it well enough
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _build(client: docker.DockerClient, folder: Path, tag: str, base: str) -> None:
    try:
        client.images.build(
            path=str(folder.resolve()), dockerfile=CONTAINERFILE, tag=tag, buildargs={"BASE": base},
            rm=True, forcerm=True, labels={"org.hanoi-polyglot.port": folder.name},
        )
    except docker.errors.BuildError as error:
        said = [entry["stream"].rstrip() for entry in error.build_log if entry.get("stream", "").strip()]
        tail = "\n".join(said[-ERROR_LINES:])
        hint = "; with no registry, build the base first: containers/base.sh" if base == REGISTRY_BASE else ""
        raise ContainerError(f"building the image of {folder.name} failed: {_first_line(error)}{hint}\n{tail}".rstrip()) from None
    except docker.errors.APIError as error:
        raise ContainerError(f"building the image of {folder.name} failed: {_first_line(error)}") from None


CELL_USER = "65534:65534"
"""Cells run as nobody: root in the container could do more with a read-only root than it should."""
PORT_MOUNT = "/port"
BUILD_FOLDER = "/tmp/hanoi-build"
TMP_SIZE = "256m"
IDLE_COMMAND = ["sleep", "infinity"]
IDLE_PROCESSES = ("docker-init", "sleep")
"""What runs in a container between cells; the process limit leaves room for them."""


class PortContainers:
    """The run's containers: for each port, one container, or as many as run its cells at once, each
    running one cell at a time (so a container's limits are that cell's), started from the port's
    image with no network, a read-only root, the port's folder read-only at /port, a private /tmp,
    and the run's memory and process limits; all removed by :meth:`close`."""

    def __init__(self, limits: Limits):
        self.limits = limits
        self._client: docker.DockerClient | None = None
        self._idle: dict[Path, list[PortContainer]] = {}
        self._all: list[PortContainer] = []
        self._lock = threading.Lock()
        self._closing = False

    def take(self, name: str, folder: Path) -> PortContainer:
        """An idle container of this port, started if there is none; :class:`ContainerError` if it cannot be."""
        with self._lock:
            if self._closing:
                raise ContainerError("the run is closing: no container starts now")
            idle = self._idle.setdefault(folder, [])
            if idle:
                return idle.pop()
            if self._client is None:
                self._client = engine()
            client = self._client
        image = port_image(client, name, folder)
        container = PortContainer(client, image, folder, self.limits)
        with self._lock:
            self._all.append(container)
        return container

    def give_back(self, container: PortContainer) -> None:
        with self._lock:
            self._idle.setdefault(container.folder, []).append(container)

    def close(self) -> None:
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

    def __init__(self, client: docker.DockerClient, image: str, folder: Path, limits: Limits):
        self.client, self.folder = client, folder
        self.built: set[str] = set()
        try:
            self.container = client.containers.run(
                image, IDLE_COMMAND, detach=True, init=True, network_mode="none", read_only=True,
                tmpfs={"/tmp": f"rw,nosuid,nodev,size={TMP_SIZE}", "/run": "rw,nosuid,nodev,size=1m"},
                volumes={str(folder.resolve()): {"bind": PORT_MOUNT, "mode": "ro"}}, working_dir=PORT_MOUNT,
                mem_limit=limits.memory, memswap_limit=limits.memory, pids_limit=limits.processes + len(IDLE_PROCESSES),
                cap_drop=["ALL"], security_opt=["no-new-privileges"], labels={"org.hanoi-polyglot.port": folder.name},
            )
        except docker.errors.DockerException as error:
            raise ContainerError(f"the container of {folder.name} did not start: {_first_line(error)}") from None
        self.group = ContainerGroup(self.container, limits)

    def execute(self, argv: list[str], stdin: bool = False) -> str:
        """Start ``argv`` in the container as a cell's process, returning the exec's id."""
        return self.client.api.exec_create(
            self.container.id, argv, stdout=True, stderr=True, stdin=stdin, user=CELL_USER, workdir=PORT_MOUNT,
            environment={"HOME": "/tmp", "TMPDIR": "/tmp"},
        )["Id"]

    def kill_cell(self) -> None:
        """Kill every process a cell left in the container: all of nobody's (the idle process is root's)."""
        try:
            self.client.api.exec_start(self.client.api.exec_create(self.container.id, ["sh", "-c", "kill -KILL -1"], user=CELL_USER)["Id"])
        except docker.errors.DockerException:
            pass  # the container is gone, and the cell with it

    def remove(self) -> None:
        try:
            self.container.remove(force=True)
        except docker.errors.DockerException:
            pass  # gone already
