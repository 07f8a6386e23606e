"""Where a report goes: the table on standard output (or error), and each file form of
:data:`harness.report.WRITERS` its option names, written whole or not at all."""

from __future__ import annotations

import contextlib
import functools
import os
import secrets
import sys
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import click

from harness.cli.console import pretty_on, terminal, write
from harness.errors import ExitCode
from harness.report import WRITERS
from harness.settings import SCREENS

if TYPE_CHECKING:
    from harness.cli.options import Outputs
    from harness.report import Report
    from harness.settings import Screen


def write_file(path: str, content: str | Callable[[BinaryIO], object], what: str) -> bool:
    """Write a report (its text, or what writes it to a file), or say in one line why it could not
    be written, naming the file. A file is written whole or not at all (:func:`replace_whole`). A pipe
    whose reader has gone (``--format json | head -2``) is no failure to write: it ends the harness
    as it ends any program of a pipeline, quietly (BrokenPipeError, which main makes 141)."""
    try:
        if path == "-" and isinstance(content, str):  # a plot, which is no text, never goes there (--plot)
            sys.stdout.write(content)
            sys.stdout.flush()
        else:
            replace_whole(Path(path), content if callable(content) else lambda handle: handle.write(content.encode("utf-8")))
    except BrokenPipeError:
        raise
    except OSError as error:
        return unwritten(what, "standard output" if path == "-" else path, error)
    return True


def unwritten(what: str, where: str, error: OSError) -> bool:
    """Say in one line that a report could not be written, and where; False. Standard output that
    refused it (a full disk, /dev/full) is let go, so that nothing tries to write there again."""
    with contextlib.suppress(OSError):
        click.echo(f"harness: cannot write the {what} to {where}: {error.strerror or error}", err=True)
    if where == "standard output":
        with contextlib.suppress(OSError, ValueError):
            null = os.open(os.devnull, os.O_WRONLY)
            os.dup2(null, sys.stdout.fileno())
            os.close(null)
    return False


def replace_whole(path: Path, fill: Callable[[BinaryIO], object]) -> None:
    """Write ``path`` whole or not at all: ``fill`` writes a new file beside it, which only once it
    is complete and on disk takes the place of ``path``, at once. A run killed meanwhile leaves
    nothing (the new file has no name until then, where the system allows it: O_TMPFILE), and a disk
    that fills leaves ``path`` as it was. A device or a pipe (``/dev/stdout``) is written as it is."""
    if path.exists() and not path.is_file():
        with path.open("wb") as handle:
            fill(handle)
        return
    named: Path | None = None
    try:
        descriptor = os.open(path.parent, os.O_TMPFILE | os.O_WRONLY, 0o666)
    except (AttributeError, OSError):  # no O_TMPFILE here (macOS), or not on this file system
        number, made = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".part")
        descriptor, named = number, Path(made)
        mask = os.umask(0)
        os.umask(mask)
        os.fchmod(descriptor, 0o666 & ~mask)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
            if named is None:
                named = _name(handle.fileno(), path)
        named.replace(path)
    except BaseException:
        if named is not None:
            with contextlib.suppress(OSError):
                named.unlink()
        raise


def _name(descriptor: int, path: Path) -> Path:
    """Give the unnamed file open at ``descriptor`` a name beside ``path``, one no other file has.
    (A folder's descriptor makes os.link call linkat, which follows /proc's link to the file.)"""
    folder = os.open(path.parent, os.O_DIRECTORY)
    try:
        while True:
            name = f".{path.name}.{secrets.token_hex(4)}.part"
            try:
                os.link(f"/proc/self/fd/{descriptor}", name, dst_dir_fd=folder)
            except FileExistsError:
                continue
            return path.with_name(name)
    finally:
        os.close(folder)


WRITING = threading.Lock()
"""Held while a report is shown and written: a stopped run that gives up on its cleanup lets the
writing end first (``harness.cli``'s give-up)."""


def publish(report: Report, outputs: Outputs) -> int:
    """Show the report and write its files; the exit code by the one policy: PASSED when the report
    passed and every file was written, FAILED otherwise."""
    written = show(report, outputs)
    return ExitCode.of(report.passed and written)


def show(report: Report, outputs: Outputs) -> bool:
    """Show the report and write its files; whether everything was written. A form sent to
    standard output (``--format json`` or any writer's name, or ``-`` for a file) sends the table to
    standard error, so that what is piped is that form alone. Without rich (the ``pretty`` extra) a
    terminal gets the plain table, written as it is. WRITING is held meanwhile."""
    with WRITING:
        return _show(report, outputs)


def _show(report: Report, outputs: Outputs) -> bool:
    from harness.report.terminal import plain, pretty

    piped = [name for name, path in outputs.files.items() if path == "-"]
    if outputs.form in WRITERS and outputs.form not in piped:
        piped.insert(0, outputs.form)
    screen = sys.stderr if piped else sys.stdout
    table_form: Screen = next((form for form in SCREENS if form == outputs.form), "pretty" if pretty_on(screen) else "plain")
    try:
        if table_form == "plain":
            write(plain(report), stderr=bool(piped))
        else:
            pretty(report, terminal(stderr=bool(piped)))
        written = True
    except OSError as error:  # a full disk, /dev/full
        written = unwritten("report", "standard error" if piped else "standard output", error)
    text = functools.cache(lambda name: WRITERS[name].text(report))  # each form made once, wherever it goes
    for name in piped:
        written &= write_file("-", text(name), WRITERS[name].what)
    for name, path in outputs.files.items():
        if path != "-":
            written &= write_file(path, text(name), WRITERS[name].what)
    return written
