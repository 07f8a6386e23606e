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
