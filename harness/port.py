"""A port as the harness knows it once its manifest is read: its programs (a command, perhaps
built first, or a query in PostgreSQL), what they need, how their output reads, and the documents
the port follows. The parser that makes one is discover.py; everything after it reads only this."""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from harness.limits import FILE_BYTES
from harness.output import Output
from harness.regions import Code

MOST_DISCS = 64
"""The most discs a cell has: the largest n the harness asks for, and a program's ``max_n`` unless its manifest says less."""
CONTAINERFILE = "Containerfile"
"""A port's own recipe for its image (runners/images.py), where the shared base with its packages is not enough."""
_DIGEST_LOCK = threading.Lock()
MAX_PORT_ENTRIES = 10_000
"""The most files and folders a port's folder may hold: far more than any program's sources, far fewer
than would make copying it for a build, or reading it for the build's key, take long."""


@dataclass(frozen=True)
class Requirement:
    """An executable a port needs, how to ask its version, and how to get it: in words (``install``)
    and as the package that provides it on Debian and on Homebrew, for ``harness doctor --install``."""

    executable: str
    version: tuple[str, ...] = ()
    install: str = ""
    debian: str = ""
    homebrew: str = ""
    reads: tuple[str, ...] = ()
    """What of the machine it needs to read beyond what the sandbox shows every port (``/usr``, a
    curated ``/etc``): its own files where they live elsewhere, each checked by environment.refused_read."""

    @property
    def found(self) -> bool:
        """Whether the executable is on PATH."""
        return shutil.which(self.executable) is not None

    @property
    def advice(self) -> str:
        """How to install it, for whoever lacks it."""
        ways = [f"Debian: apt-get install {self.debian}"] * bool(self.debian) + [f"macOS: brew install {self.homebrew}"] * bool(self.homebrew)
        return self.install or "; ".join(ways)


@dataclass(frozen=True)
class Source:
    """A published document whose listings a port follows: its title, its author, where it was
    published and on what terms, each as far as it is known, and the methods that follow it (all
    the port's, where the manifest names none)."""

    title: str
    author: str
    published: str
    terms: str
    methods: tuple[str, ...]
    url: str = ""
    """Where a reader finds it (http or https), if it can be found."""

    @property
    def reference(self) -> str:
        """The document in one line, as people read a reference, without its address."""
        return f'"{self.title}", by {self.author}; published: {self.published}; terms: {self.terms}'

    def cite(self) -> str:
        """The document in one line, and where it is found."""
        return self.reference + (f"; {self.url}" if self.url else "")


@dataclass(frozen=True)
class Query:
    """How a port that runs inside PostgreSQL is run: the SQL files that create it, loaded in order,
    the query for one cell, and where its moves are: the query's rows, or the NOTICEs it raises
    (``notices``), which leave the server as they are raised, where a function's rows wait for its end."""

    load: tuple[Path, ...]
    sql: str
    notices: bool = False


@dataclass(frozen=True)
class Program:
    """What runs one cell: a command (built first, if ``build`` is given) or a query in PostgreSQL,
    what it is fed on standard input, the smallest n it takes, what it needs, and how to read its output."""

    output: Output
    command: tuple[str, ...] = ()
    build: tuple[tuple[str, ...], ...] = ()
    """The commands that make the program, run in order in a private copy of the port's folder."""
    query: Query | None = None
    stdin_template: str | None = None
    min_n: int = 0
    max_n: int = MOST_DISCS
    requires: tuple[Requirement, ...] = ()
    env: tuple[str, ...] = ()
    """The harness's variables the program sees where it is held (sandbox, container), beyond the locale and terminal."""

    def argv(self, method: str, n: int | str, built: Built | None = None) -> list[str]:
        """The command for one cell, {method} and {n} filled in, and {binary} and {build} where it was
        built; ``n`` as text to spell it otherwise (harness smoke's probes)."""
        return fill(self.command, method, n, built)

    @property
    def takes_n(self) -> bool:
        """Whether n reaches the program when it runs (its command or its input names {n}, in any of
        its forms), not only its build."""
        return any(N_FORM.search(part) for part in (*self.command, self.stdin_template or ""))

    @property
    def takes_decimal_n(self) -> bool:
        """Whether n reaches the program in decimal digits (``{n}``), which a program may be given spelled otherwise."""
        return any("{n}" in part for part in (*self.command, self.stdin_template or ""))

    @property
    def takes_method(self) -> bool:
        """Whether the method's name reaches the program when it runs, as it does for a program of several methods."""
        return any("{method}" in part for part in (*self.command, self.stdin_template or ""))

    def refuses(self, n: int) -> str | None:
        """Why the program takes no ``n`` discs, if it does not (``min_n`` and ``max_n``)."""
        if n < self.min_n:
            return f"the program takes n ≥ {self.min_n}"
        if n > self.max_n:
            return f"the program takes n ≤ {self.max_n}"
        return None

    def stdin(self, method: str, n: int | str) -> bytes | None:
        """What the program reads on standard input, {n} and {method} filled in; None for nothing."""
        if self.stdin_template is None:
            return None
        return fill((self.stdin_template,), method, n)[0].encode("utf-8")

    def missing(self) -> Requirement | None:
        """The first executable the program needs that is not on PATH."""
        return next((requirement for requirement in self.requires if not requirement.found), None)


class Built(NamedTuple):
    """Where a build put what it made: its private build folder, and the program in it."""

    folder: Path
    binary: Path

    def at(self, entry: Path) -> Built:
        """The same build as seen where its cache entry is mounted at ``entry`` (in a container)."""
        return Built(entry / self.folder.name, entry / self.binary.name)


SHOWN_BUILD = Built(Path("{build}"), Path("{binary}"))
"""A build's places as a manifest names them: for messages, and for keys that must not depend on
where the cache is."""


N_FORM = re.compile(r"\{n(?::(?P<form>unary|discs)(?::(?P<text>[^{}]+))?)?\}")
"""n as a program takes it: ``{n}`` in decimal; ``{n:unary}``, n ones (``{n:unary:TEXT}``, n times
TEXT); ``{n:discs}``, the discs 1 to n, separated by spaces (``{n:discs:SEP}``, by SEP)."""
N_FORMS = ("{n}", "{n:unary}", "{n:unary:TEXT}", "{n:discs}", "{n:discs:SEP}")


def spell_n(match: re.Match[str], n: int | str) -> str:
    """n in the form a placeholder (:data:`N_FORM`) names; ``n`` as text (harness smoke's probes) is
    written as it is, in decimal, and in another form only where it is a count."""
    form, text = match["form"], match["text"]
    if form is None or not str(n).isascii() or not str(n).isdigit():
        return str(n)
    count = int(n)
    if form == "unary":
        return (text or "1") * count
    return (" " if text is None else text).join(str(disc) for disc in range(1, count + 1))


def fill(parts: tuple[str, ...], method: str, n: int | str, built: Built | None = None) -> list[str]:
    """An argument list with {method}, {n} (in any of its forms), and, once built, {build} (the
    build folder) and {binary} (the program it made) filled in."""
    values = {"{method}": method}
    if built is not None:
        values |= {"{build}": str(built.folder), "{binary}": str(built.binary)}
    pattern = "|".join([*(re.escape(name) for name in values), N_FORM.pattern])
    return [re.sub(pattern, lambda match: values.get(match[0]) or spell_n(match, n), part) for part in parts]


READ_BLOCK = 1 << 20


def tree_digest(folder: Path, deadline: float | None = None) -> str:
    """sha256 of every file below ``folder``, names and bytes, read in blocks so that memory stays
    flat however large a file is; a symbolic link counts as where it points. Names are taken as the
    bytes they are, UTF-8 or not. TimeoutError once ``deadline`` (on the monotonic clock) passes."""
    digest = hashlib.sha256()
    for path in sorted(path for path in folder.rglob("*") if path.is_file() or path.is_symlink()):
        digest.update(os.fsencode(path.relative_to(folder)) + b"\0")
        if path.is_symlink():
            digest.update(b"-> " + os.fsencode(path.readlink()))
        else:
            with path.open("rb") as source:
                while block := source.read(READ_BLOCK):
                    digest.update(block)
                    past(deadline)
        digest.update(b"\0")
        past(deadline)
    return digest.hexdigest()


def apparent_bytes(top: Path, ceiling: int) -> int:
    """What copying or packing the folder ``top`` writes, in bytes: each file's apparent size (a
    sparse file's holes are written out in full), but at least FILE_BYTES a file or folder, links
    counted and never followed; counted only until past ``ceiling``, which is then all there is to know."""
    total = 0
    for folder, folders, files in os.walk(top):
        for name in [*folders, *files]:
            with contextlib.suppress(FileNotFoundError):
                total += max(os.lstat(os.path.join(folder, name)).st_size, FILE_BYTES)  # noqa: PTH118 - os.walk hands strings
            if total > ceiling:
                return total
    return total


def past(deadline: float | None) -> None:
    """Raise TimeoutError once ``deadline`` has passed: a long read of a port's files stops there."""
    if deadline is not None and time.monotonic() > deadline:
        raise TimeoutError


@dataclass(frozen=True)
class Port:
    """A port: its folder and name, and, from its manifest, the methods it offers and the program that runs each."""

    name: str
    folder: Path
    summary: str = ""
    methods: tuple[str, ...] = ()
    programs: dict[str, Program] = field(default_factory=dict)
    sources: tuple[Source, ...] = ()
    code: dict[str, Code] = field(default_factory=dict)
    """Each method's code, as the manifest's [code] table names it: what the gallery shows."""
    manifest_faults: tuple[str, ...] = ()
    """Why the manifest cannot be used, if it cannot: every fault found in it, each ``path:line: why``."""

    @property
    def manifest_error(self) -> str | None:
        """Every fault of the manifest, one a line, if it has any: every cell of the port is an error saying so."""
        return "\n".join(self.manifest_faults) or None

    def source_digest(self, deadline: float | None = None) -> str:
        """The digest of every file below the port's folder, read once however many cells need it
        (TimeoutError if that takes past ``deadline``): what a build may read, so a change anywhere in
        it makes a new build."""
        with _DIGEST_LOCK:
            digest = self.__dict__.get("_source_digest")
            if digest is None:
                digest = tree_digest(self.folder, deadline)
                object.__setattr__(self, "_source_digest", digest)  # a port is frozen; its digest is worked out once
            return str(digest)

    def program(self, method: str) -> Program:
        """The program that runs ``method``: the manifest's own, or the one its [method.NAME] table gives."""
        return self.programs[method]

    @property
    def requires(self) -> tuple[Requirement, ...]:
        """Everything any of the port's methods needs, each once."""
        return tuple(dict.fromkeys(req for program in self.programs.values() for req in program.requires))

    @property
    def query(self) -> Query | None:
        """The port's query, for a port that runs in PostgreSQL."""
        return next((program.query for program in self.programs.values() if program.query), None)
