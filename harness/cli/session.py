"""What a command is given and what its run holds while it runs: the :class:`Session` the group
makes (the ports and the folder they are in) and the gate it opens (walls, PostgreSQL, secrets,
builds), the console and progress bar, and the one cell that ``run`` and ``show`` ask for."""

from __future__ import annotations

import contextlib
import functools
import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO, cast

import click

from harness.cli.options import choose, settings_from
from harness.errors import ExitCode, ReportError
from harness.extras import lacking
from harness.model import METHODS, Cell, Outcome, Reason, visible
from harness.runners.postgres import SERVERS
from harness.settings import Settings

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from harness.gate import Gate
    from harness.port import Port
    from harness.report import Report, Versions


HEARTBEAT_SECONDS = 10.0
"""How often a run off a terminal says it is alive."""


def say(text: str, stderr: bool = False) -> None:
    """A line of the harness's, with what a port said in it shown as typed: through rich, which
    fits it to the terminal, where rich is installed; as it is where it is not."""
    if lacking("pretty"):
        click.echo(visible(text), err=stderr)
        return
    from harness.report.terminal import literal

    terminal(stderr).print(literal(text))


def pretty_on(stream: TextIO) -> bool:
    """Whether ``stream`` gets the drawn forms (the pretty table, the progress bar): a terminal, where
    rich (the ``pretty`` extra) is installed."""
    return stream.isatty() and not lacking("pretty")


def write(text: str, stderr: bool = False, end: str = "\n") -> None:
    """Text the harness made for a log or a pipe (the plain table, a written form), as it is: through
    rich's console where rich is installed, as it always was, else as click writes it."""
    if lacking("pretty"):
        click.echo(text + end, nl=False, err=stderr)
    else:
        terminal(stderr).out(text, highlight=False, end=end)


def terminal(stderr: bool = False) -> Console:
    """Where a command shows what it found: text from ports may look like rich's emoji codes
    (``:smile:``), which are shown as typed; nothing is coloured that the harness did not mean."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, emoji=False)


class _Heartbeat:
    """What stands for the progress bar off a terminal (a CI log, a file): a line on standard error
    every HEARTBEAT_SECONDS while cells run, saying how many are done, so that a long run is seen to
    be alive; a run shorter than that prints none. rich is not even loaded."""

    def __init__(self) -> None:
        self._total = self._done = 0
        self._last = ""
        self._started = time.monotonic()
        self._stopped = threading.Event()
        self._beat = threading.Thread(target=self._beating, name="heartbeat", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._beat.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stopped.set()

    def add_task(self, description: str, total: int) -> TaskID:
        self._total = total
        return cast("TaskID", 0)

    def update(self, task: TaskID, *, advance: int, description: str) -> None:
        self._done += advance
        self._last = description

    def _beating(self) -> None:
        while not self._stopped.wait(HEARTBEAT_SECONDS):
            elapsed = int(time.monotonic() - self._started)
            last = f"; last: {self._last}" if self._last else ""
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.write(f"harness: {self._done} of {self._total} done after {elapsed // 60}:{elapsed % 60:02d}{last}\n")
                sys.stderr.flush()


def progress_bar() -> Progress | _Heartbeat:
    """A progress bar on stderr that leaves no trace when it is done, and off a terminal a heartbeat.
    Its descriptions are shown as typed: text from a port is no markup. Without rich (the ``pretty``
    extra), the heartbeat on a terminal too."""
    if not pretty_on(sys.stderr):
        return _Heartbeat()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=terminal(stderr=True), transient=True,
    )


def port_versions(ports: list[Port], gate: Gate) -> Versions:
    """Each port's interpreters' versions (None where one says nothing)."""
    from harness.report import versions_said

    return versions_said(gate.versions(ports))


@dataclass(frozen=True)
class Session:
    """What every command is given, made once by the group: the folder of the ports, and the ports in
    it (none only for a command that needs none)."""

    root: Path
    shown_root: str
    """The root as a rerun line names it: as --root or HANOI_ROOT gave it, else relative to the current folder."""
    ports: list[Port]

    def gate(self, settings: Settings, dsn: str | None, ports: list[Port] | None = None) -> Gate:
        """The run's gate for the session's ports, or those given: its walls, and its PostgreSQL,
        not yet started (it starts when a cell first needs it; none, and no PostgreSQL client
        loaded, for ports of which none runs in PostgreSQL); what an earlier, killed run left behind
        is swept first. The DSN's password is a secret: a port that prints it has it masked in every report."""
        from harness.gate import Gate
        from harness.runners.walls import platform_problem, walls_class

        ports = self.ports if ports is None else ports
        problem = platform_problem() or tmpdir_problem()
        if problem:
            raise click.ClickException(problem)
        sweep_leftovers()
        in_engine = SERVERS[settings.backend].uses_engine and any(port.query for port in ports) and not lacking("containers")
        if walls_class(settings.isolation).uses_engine or in_engine:
            sweep_old_containers()
        return Gate(settings, dsn, ports)


def tmpdir_problem() -> str | None:
    """Why the run's temporary folder, TMPDIR, cannot be used, if it cannot. Every program the run
    starts gets it as its own (the sandbox mounts it; a port, a compiler and PostgreSQL write there),
    where Python alone would quietly take /tmp instead."""
    tmpdir = os.environ.get("TMPDIR")
    if not tmpdir:
        return None
    if not Path(tmpdir).is_dir():
        why = "which is not a folder" if Path(tmpdir).exists() else "which does not exist"
    elif not os.access(tmpdir, os.W_OK | os.X_OK):
        why = "a folder this user may not write in"
    else:
        return None
    return visible(
        f"TMPDIR is {tmpdir}, {why}: the run and every program it starts keep their temporary files there; make it a folder you may write, or unset it"
    )


def one_cell(session: Session, port_name: str, method: str, given: dict[str, Any], command: str, **sinks: Any) -> Cell:
    """One cell of the port and method named (a port by its exact name first: a report's rerun line
    names it so), for the one n given, run or skipped (--max-moves) as compare does; ``sinks`` see
    its lines or moves as they come."""
    from harness.evaluate import evaluate

    if len(given["ns"]) != 1:
        raise click.BadParameter(f"{command} takes one n", param_hint="'--n'")
    by_name = {port.name: port for port in session.ports}
    port = by_name[port_name if port_name in by_name else choose(port_name, list(by_name), "port", "'PORT'")[0]]
    method = choose(method, list(METHODS), "method", "'METHOD'")[0]
    settings = settings_from(session.ports, given)
    too_many = settings.too_many_moves(method, settings.ns[0]) if method in port.methods else None
    if too_many:
        return Cell(port.name, method, settings.ns[0], Outcome.SKIPPED, detail=too_many, reason=Reason.TOO_MANY_MOVES)
    with session.gate(settings, given["dsn"], [port]) as gate:
        return evaluate(port, method, settings.ns[0], settings, gate, **sinks)


def say_how_it_ended(cell: Cell) -> int:
    """A cell that did not pass says why on standard error, with its diff; the exit code it returns
    says whether it ran well (a skipped cell did)."""
    if cell.outcome is not Outcome.PASS:
        for line in (f"{cell.label}: {cell.outcome.value}: {cell.detail}", *cell.diff):
            say(line, stderr=True)
    return ExitCode.of(cell.outcome in (Outcome.PASS, Outcome.SKIPPED))


def read_report_file(path: str) -> Report:
    """A report given to merge or gallery, read in bounded memory (report/json.py's read_report); one
    that cannot be read, or is no report, is a ReportError naming it and where it goes wrong."""
    from harness.report.json import read_report

    try:
        return read_report(Path(path))
    except OSError as error:
        raise ReportError(f"cannot read {path}: {error.strerror or error}") from None


@functools.cache
def sweep_leftovers() -> None:
    """Remove what an earlier run that was killed outright (SIGKILL) could not, and say so: once, by
    the first gate a command opens (a command that runs nothing, such as check, sweeps nothing)."""
    from harness.runners.sweep import sweep_orphans, sweep_servers

    servers, ports = sweep_servers(), sweep_orphans()
    left = [f"{len(servers)} PostgreSQL server{'s' * (len(servers) != 1)} ({', '.join(map(str, servers))})"] * bool(servers)
    say_removed(left + [f"{ports} port process{'es' * (ports != 1)}"] * bool(ports))


@functools.cache
def sweep_old_containers() -> None:
    """The same for containers, looked for only by a run that uses the Docker engine itself: the rest
    need not wait for an engine."""
    from harness.runners.modes.container import sweep_containers

    containers = sweep_containers()
    say_removed([f"{containers} container{'s' * (containers != 1)}"] * bool(containers))


def say_removed(left: list[str]) -> None:
    """Say on standard error what was removed of an earlier run's leftovers, if anything."""
    if left:
        click.echo(f"harness: removed what an earlier, killed run left behind: {' and '.join(left)}", err=True)
