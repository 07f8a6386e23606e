"""Port images for the Docker engine, built once on the shared Debian base, in two steps: the
harness's own, the base with the Debian packages the port's manifest's ``requires`` name (and
PostgreSQL, for the image of a server), fetched by apt from the network; then the port folder's own
Containerfile, if it has one, on top. That recipe is the port's code, built within the walls: no
network at all, the run's memory cap, and ``--build-timeout``, past which the build is stopped;
either fault is the port's build error. Each image is kept under a tag made from what it is built
of, so it is rebuilt only when the port (or the base) changes. The port's containers
(containers.py) and the SQL port's server container (postgres.py) start from these images.

The base is ``hanoi-polyglot/base:bookworm`` where it has been built here (containers/base.sh
makes it from the machine's own apt sources, with no registry), else ``debian:bookworm-slim``
from a registry. The engine is reached through the Docker SDK, from the environment (DOCKER_HOST).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import re
import socket
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import docker
import docker.errors
import docker.utils
import requests
import requests.exceptions
import urllib3.exceptions
import urllib3.response

from harness.errors import ContainerError, ImageBuildFailed, first_line
from harness.limits import BUILD_BYTES, size
from harness.model import utf8_safe
from harness.patience import Patience
from harness.port import CONTAINERFILE, Requirement, apparent_bytes, past, tree_digest
from harness.recipe import recipe_fault
from harness.runners.base import WAITS

LOCAL_BASE = "hanoi-polyglot/base:bookworm"
REGISTRY_BASE = "debian:bookworm-slim"
IMAGE_REPOSITORY = "hanoi-polyglot"
ENGINE_TIMEOUT = 10.0
"""How long one call into the Docker engine may take: one that takes longer finds the engine frozen."""
IMAGE_BUILD_TIMEOUT = 1800.0
IMAGE_BUILD_SILENCE = 300.0
"""The harness's package step may take half an hour, and any build may be silent for five minutes
at a time (a big download); a port's own recipe has its ``--build-timeout``."""
ERROR_LINES = 12
ENGINE_COLOUR = re.compile("\x1b\\[[0-9;]*m")
"""The colour the engine's builder gives a step's standard error, which a report would quote as escapes."""
CONTEXT_BLOCK = 1 << 20
"""How much of a build's packed context is sent at a time, the build's time looked at between them."""
BUILT_LINE = re.compile("Successfully built ([0-9a-f]+)$")
"""How the engine's builder names the image it made, where it gives no ``aux`` ID."""
SLUG_CHARS = 40
SAFE_NAME = re.compile("[a-z0-9]+(?:[._-][a-z0-9]+)*")
"""A port's name that Docker takes as the last part of an image's name, as it is."""
PORT_LABEL = "org.hanoi-polyglot.port"
"""The label that names the port an image or a container is of."""

Result = TypeVar("Result")
Arguments = ParamSpec("Arguments")


def engine(timeout: float = ENGINE_TIMEOUT) -> docker.DockerClient:
    """A client of the Docker engine the environment names, each call of which waits at most
    ``timeout`` seconds for an answer (stretched while the machine is busy); :class:`ContainerError`
    if none answers."""
    try:
        client = docker.from_env(timeout=Patience(timeout).limit())
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
        """``function(*args, **kwargs)``, a call into the engine for ``what`` (``removing a container``),
        within the engine's time, stretched while the machine is busy (the engine is slow then, not gone);
        the engine's own refusals (DockerException) pass through as they are, while an engine that does
        not answer is a :class:`ContainerError` naming it and what was asked."""
        self.check()
        patience = Patience(self.timeout)
        self.client.api.timeout = patience.limit()
        try:
            with WAITS.on(f"the Docker engine ({what})"):
                return function(*args, **kwargs)
        except docker.errors.DockerException:
            raise
        except (requests.exceptions.RequestException, OSError) as error:
            timed_out = isinstance(error, requests.exceptions.Timeout)
            why = f"within {patience.bound()}" if timed_out else f"({first_line(error)})"
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


@dataclass(frozen=True)
class Recipe:
    """What one image is built of: a Containerfile's text, and the folder it is built in. One with a
    folder is a port's own, the port's code; one without is the harness's own package step."""

    text: str
    context: Path | None = None


def port_image(
    client: docker.DockerClient, name: str, folder: Path, requires: tuple[Requirement, ...] = (), server: bool = False,
    seconds: float = IMAGE_BUILD_TIMEOUT, memory: int | None = None,
) -> str:
    """The tag of the port's image, building it first unless an image of this very recipe and base
    is there already: the base with the Debian packages that provide ``requires`` (and Debian's
    PostgreSQL, for a port that runs in a ``server``), one layer of packages on the one base, which
    every image shares; then the folder's own Containerfile on top, if it has one, within ``seconds``
    and ``memory``, its folder (the build's context, packed and sent whole) within BUILD_BYTES. Cells
    of one port that ask at once wait for one build."""
    own = folder / CONTAINERFILE
    recipe = Recipe(own.read_text(encoding="utf-8", errors="replace"), folder) if own.is_file() else None
    fault = recipe_fault(recipe.text) if recipe else None
    if fault:
        raise ImageBuildFailed(f"building the image of {name} failed: its {CONTAINERFILE} {fault}")
    if recipe and apparent_bytes(folder, BUILD_BYTES) > BUILD_BYTES:
        raise ImageBuildFailed(
            f"building the image of {name} failed: its folder, the build's context, holds more than {size(BUILD_BYTES)}"
            " (a sparse file counted at its full size), the most one build may be given"
        )
    packages = packages_containerfile(name, requires, server, own=recipe is not None)
    with _locks_guard:
        lock = _locks.setdefault(folder.resolve(), threading.Lock())
    with lock:
        image = base_image(client)
        if packages is not None:
            image = _image(client, name, image, Recipe(packages), IMAGE_BUILD_TIMEOUT, None)
        if recipe is not None:
            image = _image(client, name, image, recipe, seconds, memory)
    return image


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


KNOWN_PACKAGES = (
    'for package in {packages}; do apt-cache --all-names pkgnames "$package" | grep -qxF -e "$package"'
    ' || {{ echo "apt\'s lists hold no package named $package, which apt-get would read as a pattern or an action" >&2; exit 100; }}; done'
)
"""The shell words that fail, naming it, where apt's lists hold no package of exactly one of the
names: apt-get reads a name it does not know that holds a ``.`` as a pattern (``zlib1g.de``) and
one that ends in ``+`` as an action, so it is given only names it knows as they are, as
``harness doctor --install`` gives it."""
PACKAGES_STEP = (
    "RUN mkdir -p /usr/share/man/man1 \\\n && apt-get update \\\n"
    f" && {KNOWN_PACKAGES} \\\n"
    " && DEBIAN_FRONTEND=noninteractive apt-get install --yes --no-install-recommends -- {packages} \\\n"
    " && rm -rf /var/lib/apt/lists/*"
)
"""The harness's package step. A slim base keeps no manual pages, and a package that links its manual
as an alternative (Java's) fails to install where the folder is missing."""
SERVER_STEPS = (
    "RUN ln -s /usr/lib/postgresql/*/bin /usr/lib/postgresql/bin",
    "ENV PATH=/usr/lib/postgresql/bin:$PATH",
)
"""What the image of a port that runs in PostgreSQL adds: Debian's server's programs on PATH, run by
the harness as the ``postgres`` user its package makes."""


def packages_containerfile(name: str, requires: tuple[Requirement, ...], server: bool = False, own: bool = False) -> str | None:
    """The harness's own recipe beneath a port's image: the base, with the Debian packages its
    manifest names installed, and PostgreSQL for a port that runs in a ``server``. A port with a
    Containerfile of its own (``own``) needs none where it names none (None); one without must name
    the package of each executable it requires: :class:`ContainerError` naming one it does not."""
    unnamed = [requirement.executable for requirement in requires if not requirement.debian]
    if unnamed and not own:
        raise ContainerError(
            f"{name} has no {CONTAINERFILE}, and its manifest names no Debian package for {', '.join(unnamed)}: "
            f'add debian = "PACKAGE" to that [[requires]], or write a {CONTAINERFILE}'
        )
    packages = sorted({requirement.debian for requirement in requires if requirement.debian} | ({"postgresql"} if server else set()))
    if own and not packages:
        return None
    lines = ["ARG BASE=debian:bookworm-slim", "FROM ${BASE}"]
    if packages:
        lines.append(PACKAGES_STEP.format(packages=" ".join(packages)))
    if server:
        lines.extend(SERVER_STEPS)
    return "\n".join(lines) + "\n"


def _image(client: docker.DockerClient, name: str, base: str, recipe: Recipe, seconds: float, memory: int | None) -> str:
    """The tag of the image ``recipe`` makes on ``base``, built first unless it is there already; its
    ``seconds`` start before its folder is read for the key."""
    deadline = time.monotonic() + seconds
    try:
        tag = f"{image_name(name)}:{_content_key(client, base, recipe, deadline)}"
    except TimeoutError:
        raise ImageBuildFailed(f"building the image of {name} ran past its {seconds:g} s (--build-timeout) reading its folder") from None
    try:
        client.images.get(tag)
    except docker.errors.ImageNotFound:
        _build(name, tag, base, recipe, Budget(seconds, deadline), memory)
    return tag


def _content_key(client: docker.DockerClient, base: str, recipe: Recipe, deadline: float) -> str:
    """A digest of the base image's id, the recipe, and every file (names and bytes) in the build's
    context folder, if it has one; TimeoutError once ``deadline`` passes."""
    digest = hashlib.sha256()
    try:
        digest.update(client.images.get(base).id.encode())
    except docker.errors.ImageNotFound:
        digest.update(base.encode())  # pulled by the first build; the tag names it well enough
    digest.update(recipe.text.encode() + b"\0")
    if recipe.context is not None:
        digest.update(tree_digest(recipe.context, deadline).encode())
    return digest.hexdigest()[:16]


@dataclass(frozen=True)
class Budget:
    """A build's time: so many ``seconds``, which end at ``deadline`` on the monotonic clock."""

    seconds: float
    deadline: float

    def spent(self) -> bool:
        """Whether the time is up."""
        return time.monotonic() > self.deadline


def _build(name: str, tag: str, base: str, recipe: Recipe, budget: Budget, memory: int | None) -> None:
    """Build one recipe on a connection of its own that may be silent IMAGE_BUILD_SILENCE: the
    harness's own with the network; the port's own in its folder, with no network and within
    ``memory``, its context packed and sent within its time. Past the ``budget`` the build is
    stopped (:class:`Cutoff`) and is the port's build error, as is a build that fails. The image is
    tagged only once it is built within its time, so that a build past it is never found again."""
    said: list[str] = []
    made: str | None = None
    builder = docker.from_env(timeout=IMAGE_BUILD_SILENCE)
    cutoff = Cutoff(builder, max(budget.deadline - time.monotonic(), 0))
    failed = f"building the image of {name} failed"
    try:
        try:
            source = _source(recipe, budget.deadline, memory)
            stream = builder.api.build(
                **source, buildargs={"BASE": base}, rm=True, forcerm=True, labels={PORT_LABEL: utf8_safe(name)}, decode=True,
                use_config_proxy=False,
            )
            made = _built_image(stream, said, failed, base)
        except docker.errors.APIError as error:
            raise ImageBuildFailed(f"{failed}: {first_line(error)}") from None
        except (requests.exceptions.RequestException, urllib3.exceptions.HTTPError) as error:
            if not (cutoff.expired or budget.spent()):
                raise ContainerError(f"building the image of {name}: the Docker engine did not answer ({first_line(error)})") from None
        except OSError as error:  # the folder could not be read for the build's context; TimeoutError: packing it took the time
            if not (cutoff.expired or budget.spent()):
                raise ImageBuildFailed(f"{failed}: {first_line(error)}") from None
        finally:
            cutoff.cancel()
        if cutoff.expired or budget.spent():
            if made:
                with contextlib.suppress(docker.errors.DockerException, requests.exceptions.RequestException):
                    builder.api.remove_image(made)
            why = "(--build-timeout)" if recipe.context else "(the harness's package step)"
            raise ImageBuildFailed(f"building the image of {name} ran past its {budget.seconds:g} s {why}\n" + "\n".join(said))
        if made is None:
            raise ImageBuildFailed(f"{failed}: the Docker engine named no image it built\n" + "\n".join(said))
        repository, _, version = tag.rpartition(":")
        try:
            builder.api.tag(made, repository, version)
        except docker.errors.DockerException as error:
            raise ImageBuildFailed(f"{failed}: the image it made could not be tagged: {first_line(error)}") from None
    finally:
        builder.close()


def _source(recipe: Recipe, deadline: float, memory: int | None) -> dict[str, Any]:
    """What the engine builds from: the harness's recipe alone; or the port's, its folder packed (as
    the SDK packs it, .dockerignore kept) and sent block by block, TimeoutError once ``deadline`` passes."""
    if recipe.context is None:
        return {"fileobj": io.BytesIO(recipe.text.encode())}
    folder = recipe.context.resolve()
    ignore = folder / ".dockerignore"
    lines = [line.strip() for line in ignore.read_text().splitlines()] if ignore.is_file() else []
    exclude = [line for line in lines if line and not line.startswith("#")] or None
    into = TimedFile(tempfile.TemporaryFile(buffering=0), deadline)  # noqa: SIM115 - sent() closes it, having read it to its end
    packed = docker.utils.tar(str(folder), exclude=exclude, dockerfile=(CONTAINERFILE, None), fileobj=into)

    def sent() -> Iterator[bytes]:
        with packed:
            while block := packed.read(CONTEXT_BLOCK):
                past(deadline)
                yield block

    limits = {"memory": memory, "memswap": memory} if memory else None
    return {"fileobj": sent(), "custom_context": True, "dockerfile": CONTAINERFILE, "network_mode": "none", "container_limits": limits}


class TimedFile(io.BufferedRandom):
    """The file a build's context is packed into: TimeoutError on a write once ``deadline`` passes."""

    def __init__(self, raw: io.RawIOBase, deadline: float) -> None:
        super().__init__(raw)
        self.deadline = deadline

    def write(self, data: Any) -> int:  # Any, as BufferedRandom's
        """Write ``data``, if the time is not up."""
        past(self.deadline)
        return super().write(data)


def _built_image(stream: Iterator[dict[str, Any]], said: list[str], failed: str, base: str) -> str | None:
    """Read a build's stream to its end, keeping its last ERROR_LINES lines in ``said``: the id of
    the image it made (None if the engine named none), or :class:`ImageBuildFailed` with its error."""
    made = None
    for entry in stream:
        line = ENGINE_COLOUR.sub("", entry.get("stream", "")).rstrip()
        if line.strip():
            said[:] = [*said[-ERROR_LINES + 1:], line]
        if "error" in entry:
            hint = "; with no registry, build the base first: containers/base.sh" if base == REGISTRY_BASE else ""
            raise ImageBuildFailed(f"{failed}: {first_line(entry['error'])}{hint}\n" + "\n".join(said))
        aux = entry.get("aux")
        if isinstance(aux, dict) and isinstance(aux.get("ID"), str):
            made = aux["ID"]
        elif found := BUILT_LINE.match(line):
            made = made or found.group(1)
    return made


class Cutoff:
    """The end of one build's time: when it comes, the build's connection is shut down, whatever its
    reading waits for, and the engine, whose client is gone, cancels the build and removes its step's
    container (what the SDK's own ``timeout`` cannot do: it bounds each read, not the build)."""

    def __init__(self, builder: docker.DockerClient, seconds: float) -> None:
        self.expired = False
        self._responses: list[requests.Response] = []
        self._lock = threading.Lock()
        builder.api.hooks["response"].append(self._keep)
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def _keep(self, response: requests.Response, *args: object, **kwargs: object) -> None:
        """Each response the build's connection gets, as it comes: cut at once if the time is up."""
        with self._lock:
            self._responses.append(response)
            expired = self.expired
        if expired:
            _shut(response)

    def _expire(self) -> None:
        with self._lock:
            self.expired = True
            responses = list(self._responses)
        for response in responses:
            _shut(response)

    def cancel(self) -> None:
        """The build is over: no cut comes."""
        self._timer.cancel()


def _shut(response: requests.Response) -> None:
    """Shut the socket a streamed response is read from, both ways: a read that waits on it returns."""
    connection = response.raw.connection if isinstance(response.raw, urllib3.response.HTTPResponse) else None
    sock = getattr(connection, "sock", None)
    if isinstance(sock, socket.socket):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
