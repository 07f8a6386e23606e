"""The rerun line of a cell that did not pass: the ``harness run`` command that runs it again as its
run did, and the port's program and build commands as that run gave them. The one place they are
made; every form of the report shows them as they are.

Each word is quoted for bash: by :func:`shlex.quote` where it is printable, else as ``$'…'`` with
each character that is not (a newline, an escape, a byte of a name that was not UTF-8) written
``\\xHH``, which bash reads back as the very bytes. So the line is one line of printable text that a
terminal, a Markdown reader or a page shows as it is, and whatever a port's name holds (spaces,
quotes, ``$()``, newlines) it reaches the harness as one argument, never as shell code."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable

from harness.extras import lacking
from harness.limits import DEFAULT_LIMITS
from harness.model import ESCAPED_BYTE, Cell, Outcome, Rerun
from harness.port import SHOWN_BUILD, Port, fill
from harness.runners.walls import walls_class
from harness.settings import DEFAULT_MAX_MOVES, DEFAULT_MODE, DEFAULT_TIMEOUT, Settings

PLACEHOLDER_WORD = re.compile(r"(?:[\w@%+=:./-]|\{binary\}|\{build\})+", re.ASCII)
"""A word bash takes as typed, in which a build's places stand as the manifest names them."""


def attach_reruns(cells: Iterable[Cell], ports: Iterable[Port], settings: Settings, root: str) -> None:
    """Give each cell that did not pass its rerun line (:func:`rerun`)."""
    by_name = {port.name: port for port in ports}
    for cell in cells:
        if cell.outcome is not Outcome.PASS:
            cell.rerun = rerun(cell, by_name[cell.port], settings, root)


def rerun(cell: Cell, port: Port, settings: Settings, root: str) -> Rerun:
    """How to see ``cell`` again. The command names ``root`` as the user gave it (``--root``, or
    HANOI_ROOT), or as found, relative to where the run was made: it is pasted where the run was
    made, and a report kept as a CI artifact names no one's home folder. It gives each option that
    shapes the cell's outcome where the run's value is not the default (the defaults are the same in
    ``run`` as in ``compare``); a DSN, which may hold a password, goes by HANOI_PG_DSN, never into a
    report. The program is the port's own command line with {method} and {n} filled in, or its query;
    {binary} and {build} stay as the manifest names them, the build's private folder being a cache
    entry whose place differs by machine and by mode (``/build`` in a container); a query, only where
    the PostgreSQL client that quotes it is installed."""
    given = ["-n", str(cell.n), "--raw", *_options(settings, port)]
    named = [cell.port, cell.method]
    asked = ["run", *named, *given] if not cell.port.startswith("-") else ["run", *given, "--", *named]  # a port called --help is no option
    words = ["harness", "--root", root if not root.startswith("-") else f"./{root}", *asked]
    program = port.programs.get(cell.method)
    if program is None or program.query is not None and lacking("postgres"):  # a query is written as the client writes it
        return Rerun(_line(words))
    if program.query is not None:
        from harness.runners.postgres.query import statement  # psycopg, only for a port that runs in PostgreSQL

        return Rerun(_line(words), statement(program.query, cell.method, cell.n))
    return Rerun(
        _line(words), _line(fill(program.command, cell.method, cell.n)),
        tuple(_line(fill(step, cell.method, cell.n, SHOWN_BUILD)) for step in program.build),
    )


def _options(settings: Settings, port: Port) -> list[str]:
    """The options, besides the cell, by which the run differs from ``harness run``'s defaults."""
    chosen: list[str] = []
    if settings.isolation != DEFAULT_MODE:
        chosen += ["--isolation", settings.isolation]
    if settings.timeout != DEFAULT_TIMEOUT:
        chosen += ["--timeout", _seconds(settings.timeout)]
    if settings.build_timeout is not None:
        chosen += ["--build-timeout", _seconds(settings.build_timeout)]
    if settings.strict:
        chosen.append("--strict")
    if settings.max_moves is not None and settings.max_moves != DEFAULT_MAX_MOVES:
        chosen += ["--max-moves", str(settings.max_moves)]
    if settings.limits.memory != DEFAULT_LIMITS.memory:
        chosen += ["--memory", str(settings.limits.memory)]
    if settings.limits.processes != DEFAULT_LIMITS.processes:
        chosen += ["--processes", str(settings.limits.processes)]
    if port.query is not None:
        if settings.backend != walls_class(settings.isolation).default_backend:
            chosen += ["--backend", settings.backend]
        if settings.unsafe_superuser_sql:
            chosen.append("--unsafe-superuser-sql")
    return chosen


def _seconds(seconds: float) -> str:
    """Seconds as typed: ``2``, ``0.5``; every digit where fewer would not be the same number."""
    short = f"{seconds:g}"
    return short if float(short) == seconds else repr(seconds)


def _line(words: Iterable[str]) -> str:
    return " ".join(map(_quoted, words))


def _quoted(word: str) -> str:
    """One word as bash reads it back, exactly (see the module's docstring)."""
    if PLACEHOLDER_WORD.fullmatch(word):
        return word
    if word.isprintable():
        return shlex.quote(word)
    return "$'" + "".join(_ansi_c(char) for char in word) + "'"


def _ansi_c(char: str) -> str:
    """A character inside bash's ``$'…'``."""
    if char in "\\'":
        return "\\" + char
    if char.isprintable():
        return char
    if ESCAPED_BYTE.fullmatch(char):
        return f"\\x{ord(char) - 0xDC00:02x}"
    return "".join(f"\\x{byte:02x}" for byte in char.encode("utf-8", "surrogatepass"))
