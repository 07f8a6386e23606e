"""Port images for the Docker engine, built once on the shared Debian base: the port folder's own
Containerfile, or, for a port without one, the base with the Debian packages its manifest's
``requires`` name. Each image is kept under a tag made from what it is built of, so it is rebuilt
only when the port (or the base) changes. The port's containers (containers.py) and the SQL port's
server container (postgres.py) start from these images.

The base is ``hanoi-polyglot/base:bookworm`` where it has been built here (containers/base.sh
makes it from the machine's own apt sources, with no registry), else ``debian:bookworm-slim``
from a registry. The engine is reached through the Docker SDK, from the environment (DOCKER_HOST).
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

import docker
import docker.errors
import requests.exceptions

from harness.errors import ContainerError, first_line
from harness.model import utf8_safe
from harness.port import CONTAINERFILE, Requirement, tree_digest
from harness.runners.base import WAITS

LOCAL_BASE = "hanoi-polyglot/base:bookworm"
REGISTRY_BASE = "debian:bookworm-slim"
IMAGE_REPOSITORY = "hanoi-polyglot"
ENGINE_TIMEOUT = 10.0
"""How long one call into the Docker engine may take: one that takes longer finds the engine frozen."""
IMAGE_BUILD_TIMEOUT = 1800.0
IMAGE_BUILD_SILENCE = 300.0
"""An image build may take half an hour, and be silent for five minutes at a time (a big download)."""
ERROR_LINES = 12
SLUG_CHARS = 40
SAFE_NAME = re.compile("[a-z0-9]+(?:[._-][a-z0-9]+)*")
"""A port's name that Docker takes as the last part of an image's name, as it is."""
PORT_LABEL = "org.hanoi-polyglot.port"
"""The label that names the port an image or a container is of."""

Result = TypeVar("Result")
Arguments = ParamSpec("Arguments")


def engine(timeout: float = ENGINE_TIMEOUT) -> docker.DockerClient:
    """A client of the Docker engine the environment names, each call of which waits at most
    ``timeout`` seconds for an answer; :class:`ContainerError` if none answers."""
    try:
        client = docker.from_env(timeout=timeout)
        client.ping()
    except Exception as error:  # the SDK raises unrelated types (DockerException, requests' errors) here
        raise ContainerError(f"no Docker engine answers ({first_line(error)})") from None
    return client


class Engine:
    """The Docker engine of one run, every call into it bounded in time. An engine that once does not
    answer (frozen, stopped, its socket gone) is silent for the rest of the run: each later call says
    so at once rather than wait again, so a run with no engine ends as soon as its cells do."""

    def __init__(self, timeout: float = ENGINE_TIMEOUT) -> None:
        self.timeout = timeout
        self.client = engine(timeout)
        self._silence: str | None = None

    def call(self, what: str, function: Callable[Arguments, Result], *args: Arguments.args, **kwargs: Arguments.kwargs) -> Result:
        """``function(*args, **kwargs)``, a call into the engine for ``what`` (``removing a container``);
        the engine's own refusals (DockerException) pass through as they are, while an engine that does
        not answer is a :class:`ContainerError` naming it and what was asked."""
        self.check()
        try:
            with WAITS.on(f"the Docker engine ({what})"):
                return function(*args, **kwargs)
        except docker.errors.DockerException:
            raise
        except (requests.exceptions.RequestException, OSError) as error:
            timed_out = isinstance(error, requests.exceptions.Timeout)
            why = f"within {self.timeout:g} s" if timed_out else f"({first_line(error)})"
            self._silence = f"the Docker engine did not answer {why}, {what}"
            raise ContainerError(self._silence) from None

    def check(self) -> None:
        """Raise the :class:`ContainerError` that says the engine stopped answering, if it has."""
        if self._silence:
            raise ContainerError(self._silence)

    def close(self) -> None:
        """Let go of the engine's connections."""
        self.client.close()


def base_image(client: docker.DockerClient) -> str:
    """The base every port's image starts from: the local one where it is built, else the registry's."""
    try:
        client.images.get(LOCAL_BASE)
    except docker.errors.ImageNotFound:
        return REGISTRY_BASE
    return LOCAL_BASE


_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def port_image(client: docker.DockerClient, name: str, folder: Path, requires: tuple[Requirement, ...] = (), server: bool = False) -> str:
    """The tag of the port's image, building it first unless an image of this very recipe and base
    is there already: the folder's own Containerfile, else the base with Debian's PostgreSQL for a
    port that runs in a ``server``, or with the Debian packages that provide ``requires``. Each is
    one layer of packages on the one base, which every image shares. Cells of one port that ask at
    once wait for one build."""
    own = folder / CONTAINERFILE
    if own.is_file():
        recipe, context = own.read_text(encoding="utf-8", errors="replace"), folder
    else:
        recipe, context = POSTGRESQL_CONTAINERFILE if server else packages_containerfile(name, requires), None
    base = base_image(client)
    with _locks_guard:
        lock = _locks.setdefault(folder.resolve(), threading.Lock())
    with lock:
        tag = f"{image_name(name)}:{_content_key(client, base, recipe, context)}"
        try:
            client.images.get(tag)
        except docker.errors.ImageNotFound:
            _build(folder, tag, base, recipe, context)
    return tag


def image_name(port: str) -> str:
    """The name of a port's image, which Docker takes whatever the port is called: the name itself
    where Docker takes it as it is (``python``); else (``<svg onload=…>``, ``--help``, ``Perl``, bytes
    that are not UTF-8) the lower-case letters and digits of the name and a digest of the whole name,
    so that two names of one slug stay two images."""
    if SAFE_NAME.fullmatch(port) and len(port) <= SLUG_CHARS:
        return f"{IMAGE_REPOSITORY}/{port}"
    slug = "-".join(re.findall("[a-z0-9]+", port.lower()))[:SLUG_CHARS]
    digest = hashlib.sha256(os.fsencode(port)).hexdigest()[:12]
    return f"{IMAGE_REPOSITORY}/{slug}-{digest}" if slug else f"{IMAGE_REPOSITORY}/{digest}"


POSTGRESQL_CONTAINERFILE = """\
ARG BASE=debian:bookworm-slim
FROM ${BASE}
RUN apt-get update \\
 && DEBIAN_FRONTEND=noninteractive apt-get install --yes --no-install-recommends -- postgresql \\
 && rm -rf /var/lib/apt/lists/* \\
 && ln -s /usr/lib/postgresql/*/bin /usr/lib/postgresql/bin
ENV PATH=/usr/lib/postgresql/bin:$PATH
"""
"""The image of a port that runs in PostgreSQL and brings no Containerfile: Debian's server, its
programs on PATH, run by the harness as the ``postgres`` user the package makes."""


def packages_containerfile(name: str, requires: tuple[Requirement, ...]) -> str:
    """The Containerfile of a port without its own: the base, with the Debian packages its manifest
    names installed; :class:`ContainerError` naming an executable whose package it does not name."""
    unnamed = [requirement.executable for requirement in requires if not requirement.debian]
    if unnamed:
        raise ContainerError(
            f"{name} has no {CONTAINERFILE}, and its manifest names no Debian package for {', '.join(unnamed)}: "
            f'add debian = "PACKAGE" to that [[requires]], or write a {CONTAINERFILE}'
        )
    lines = ["ARG BASE=debian:bookworm-slim", "FROM ${BASE}"]
    packages = " ".join(sorted({requirement.debian for requirement in requires}))
    if packages:
        # A slim base keeps no manual pages, and a package that links its manual as an alternative
        # (Java's) fails to install where the folder is missing.
        lines.append(
            "RUN mkdir -p /usr/share/man/man1 \\\n && apt-get update \\\n"
            " && DEBIAN_FRONTEND=noninteractive apt-get install --yes --no-install-recommends -- "
            f"{packages} \\\n && rm -rf /var/lib/apt/lists/*"
        )
    return "\n".join(lines) + "\n"


def _content_key(client: docker.DockerClient, base: str, recipe: str, context: Path | None) -> str:
    """A digest of the base image's id, the recipe, and every file (names and bytes) in the build's
    context folder, if it has one."""
    digest = hashlib.sha256()
    try:
        digest.update(client.images.get(base).id.encode())
    except docker.errors.ImageNotFound:
        digest.update(base.encode())  # pulled by the first build; the tag names it well enough
    digest.update(recipe.encode() + b"\0")
    if context is not None:
        digest.update(tree_digest(context).encode())
    return digest.hexdigest()[:16]


def _build(folder: Path, tag: str, base: str, recipe: str, context: Path | None) -> None:
    """Build the folder's own Containerfile in the folder, or a recipe of packages with no context,
    within IMAGE_BUILD_TIMEOUT, on a connection of its own that may be silent IMAGE_BUILD_SILENCE."""
    source = {"path": str(context.resolve()), "dockerfile": CONTAINERFILE} if context else {"fileobj": io.BytesIO(recipe.encode())}
    said: list[str] = []
    deadline = time.monotonic() + IMAGE_BUILD_TIMEOUT
    builder = docker.from_env(timeout=IMAGE_BUILD_SILENCE)
    try:
        stream = builder.api.build(
            **source, tag=tag, buildargs={"BASE": base}, rm=True, forcerm=True, labels={PORT_LABEL: utf8_safe(folder.name)}, decode=True,
        )
        for entry in stream:
            if entry.get("stream", "").strip():
                said = [*said[-ERROR_LINES + 1:], entry["stream"].rstrip()]
            if "error" in entry:
                hint = "; with no registry, build the base first: containers/base.sh" if base == REGISTRY_BASE else ""
                tail = "\n".join(said)
                raise ContainerError(f"building the image of {folder.name} failed: {first_line(entry['error'])}{hint}\n{tail}".rstrip())
            if time.monotonic() > deadline:
                raise ContainerError(f"building the image of {folder.name} took more than {IMAGE_BUILD_TIMEOUT:g} s")
    except docker.errors.APIError as error:
        raise ContainerError(f"building the image of {folder.name} failed: {first_line(error)}") from None
    except requests.exceptions.RequestException as error:
        raise ContainerError(f"building the image of {folder.name}: the Docker engine did not answer ({first_line(error)})") from None
    finally:
        builder.close()
