"""The ``harness`` command: compare every port, run one, list them, merge reports from several runs.

Every command shares one set of options (defined once, below) and one exit-code policy:
0 when every cell that ran passed and the ports agree (a skipped cell is no failure unless --strict),
1 when a cell failed or errored, the ports disagree, a manifest is broken, a report could not be
written or a merge lacks the report of a port, shard or cell of its run, 2 for a usage error, and
128 + the signal's number when interrupted (130 for Ctrl-C).
"""

from __future__ import annotations

import contextlib
import enum
import functools
import gc
import importlib.util
import io
import math
import os
import secrets
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, NoReturn, cast

import click

from harness import __version__
from harness.environment import SECRETS
from harness.errors import DoctorError, MergeError, ReportError, ScaffoldError, TranscriptError, Unavailable
from harness.limits import DEFAULT_LIMITS, DEFAULT_PROCESSES, Limits, parse_size
from harness.model import METHODS, Cell, Move, Outcome, Shard, visible
from harness.runners import MODES
from harness.runners.base import WAITS
from harness.settings import BACKENDS, DEFAULT_MAX_MOVES, DEFAULT_TIMEOUT, FORMATS, Backend, Settings

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, TaskID

    from harness.discover import Port
    from harness.gate import Gate
    from harness.serialize import PortInfo, Report, Versions

PROJECT_ROOT = Path(__file__).resolve().parent.parent
"""The harness's own checkout, whose commit a report names; the ports may be anywhere."""
ROOT_VARIABLE = "HANOI_ROOT"
MAX_DISCS = 64
"""The most discs a run may ask for: 2^64 − 1 moves would take centuries at any speed."""
MAX_TIMEOUT = 7 * 24 * 3600
MAX_SHOWN = 12
"""The most discs ``show`` draws: three towers of 12 fit an 80-column terminal."""


class DiscCounts(click.ParamType[list[int]]):
    """``5``, ``1-10``, ``3,8,12`` or a mix such as ``0-4,8``: the numbers of discs to run, 0 to MAX_DISCS."""

    name = "N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> list[int]:
        """The sorted numbers of discs ``value`` names."""
        if isinstance(value, list):
            return value
        counts: set[int] = set()
        for part in str(value).split(","):
            low, dash, high = part.strip().partition("-")
            if not _digits(low) or (dash and not _digits(high)):
                self.fail(f"{value!r} is not a number of discs (0 or more) or a range such as 5, 1-10 or 3,8,12", param, ctx)
            for text in (low, high) if dash else (low,):
                if len(text) > 3 or int(text) > MAX_DISCS:
                    self.fail(f"{text} discs is too many: at most {MAX_DISCS} (2^{MAX_DISCS} − 1 moves would take centuries)", param, ctx)
            first, last = int(low), int(high) if dash else int(low)
            if last < first:
                self.fail(f"the range {part!r} runs backwards", param, ctx)
            counts.update(range(first, last + 1))
        return sorted(counts)


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()


class Seconds(click.ParamType[float]):
    """A time limit: a finite number of seconds, more than 0 and at most a week."""

    name = "SECONDS"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> float:
        """The seconds ``value`` says."""
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if not (0 < seconds <= MAX_TIMEOUT):  # also refuses nan and inf
            self.fail(f"{value!r} is not a number of seconds more than 0 and at most {MAX_TIMEOUT}", param, ctx)
        return seconds


class ShardChoice(click.ParamType[Shard]):
    """``K/N``: the K-th of N shares of the cells."""

    name = "K/N"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Shard:
        """The share ``value`` names."""
        if isinstance(value, Shard):
            return value
        index, slash, count = str(value).partition("/")
        if not (slash and _digits(index) and _digits(count) and len(count) <= 6 and 1 <= int(index) <= int(count)):
            self.fail(f"{value!r} is not a share such as 1/3 (K from 1 to N)", param, ctx)
        return Shard(int(index), int(count))


class ReportFile(click.ParamType[str]):
    """Where a report goes: a file in a folder that exists, or ``-`` for standard output. It is written
    at the end; a write that fails then is the run's failure, naming the file."""

    name = "FILE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> str:
        """The path the report is written to, checked before the run."""
        if value == "-":
            return "-"
        path = Path(value)
        if path.is_dir():
            self.fail(f"{value} is a folder", param, ctx)
        if not path.parent.is_dir():
            self.fail(f"No such file or directory: the folder {path.parent} of {value}", param, ctx)
        return str(path)


class Size(click.ParamType[int]):
    """A number of bytes: ``2G``, ``512M``, ``1.5GiB``."""

    name = "SIZE"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> int:
        """The number of bytes ``value`` says."""
        if isinstance(value, int):
            return value
        try:
            return parse_size(str(value))
        except ValueError as error:
            self.fail(str(error), param, ctx)


OPTIONS: dict[str, Callable[[Callable[..., Any]], Callable[..., Any]]] = {
    "n": click.option("-n", "--n", "ns", type=DiscCounts(), required=True, help=f"Discs: 5, 1-10 or 3,8,12 (0 to {MAX_DISCS})."),
    "port": click.option("-l", "--port", "--lang", "port_names", metavar="PORTS", help="Ports, comma-separated (default: all)."),
    "method": click.option("-m", "--method", "method_names", metavar="METHODS", help=f"Methods, comma-separated (default: {', '.join(METHODS)})."),
    "jobs": click.option("-j", "--jobs", type=click.IntRange(min=1, max=256), default=os.cpu_count() or 1, show_default=True, help="Cells run at once."),
    "timeout": click.option("--timeout", type=Seconds(), default=DEFAULT_TIMEOUT, show_default=True, help="Seconds each cell may run before it is stopped."),
    "build_timeout": click.option(
        "--build-timeout", type=Seconds(), help="Seconds a compiled port's build may take (default: the --timeout).",
    ),
    "strict": click.option("--strict", is_flag=True, help="A missing interpreter is an error instead of a skip."),
    "max_moves": click.option(
        "--max-moves", type=click.IntRange(min=0), default=DEFAULT_MAX_MOVES, show_default=True,
        help="Skip a cell with more moves than this (the cyclic puzzle at n=20 has 4 x 10^8).",
    ),
    "fail_fast": click.option("-x", "--fail-fast", is_flag=True, help="Once a cell fails or errors, start no more cells."),
    "shard": click.option("--shard", type=ShardChoice(), help="Run only the K-th of N shares of the cells (see harness merge)."),
    "format": click.option(
        "--format", "form", type=click.Choice(FORMATS),
        help="What goes to standard output (default: pretty on a terminal, else plain).",
    ),
    "json": click.option("--json", "json_file", type=ReportFile(), help="Write the JSON report to FILE ('-': standard output)."),
    "junit": click.option("--junit", "junit_file", type=ReportFile(), help="Write JUnit XML to FILE: a suite a port, a test case a cell."),
    "markdown": click.option("--markdown", "markdown_file", type=ReportFile(), help="Write Markdown to FILE (for a CI step summary)."),
    "html": click.option(
        "--html", "html_file", type=ReportFile(), help="Write one self-contained HTML page to FILE: every cell, replayed move by move on a drawn board.",
    ),
    "dsn": click.option(
        "--dsn", envvar="HANOI_PG_DSN", metavar="DSN",
        help="An existing PostgreSQL server for the SQL port, as a libpq connection string (or set HANOI_PG_DSN).",
    ),
    "unsafe_superuser_sql": click.option(
        "--unsafe-superuser-sql", is_flag=True,
        help="With --dsn, where no role of each port's own can be made there, run the ports' SQL as the DSN's user even if it is a "
        "superuser or may read the server's files or run its programs (any port may then do so too).",
    ),
    "backend": click.option(
        "--backend", type=click.Choice(BACKENDS),
        help="Where the SQL port runs: a private embedded server (the default without a DSN), the server --dsn names, or a Docker container.",
    ),
    "isolation": click.option(
        "--isolation", type=click.Choice(MODES), default="subprocess", show_default=True,
        help="Run each program as a plain subprocess, in a bubblewrap sandbox (no network, read-only), or in its port's container.",
    ),
    "memory": click.option(
        "--memory", type=Size(), default="2G", show_default=True, help="Resident memory a cell's whole process tree may use: 512M, 2G.",
    ),
    "processes": click.option(
        "--processes", type=click.IntRange(min=1), default=DEFAULT_PROCESSES, show_default=True,
        help="Processes a cell may run at once (a fork bomb is an error, not an outage).",
    ),
}


def options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The shared options ``names``, in that order in --help."""

    def apply(command: Callable[..., Any]) -> Callable[..., Any]:
        for name in reversed(names):
            command = OPTIONS[name](command)
        return command

    return apply


DATABASE = ("backend", "dsn", "unsafe_superuser_sql")
REPORTS = ("format", "json", "junit", "markdown", "html")
ISOLATION = ("isolation", "memory", "processes")


def _names(value: str | None, known: list[str], what: str, hint: str) -> list[str]:
    """A comma-separated choice from ``known``; all of them when none is given."""
    if value is None:
        return known
    chosen = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        unknown_text = ", ".join(map(repr, unknown)) or repr(value)
        raise click.BadParameter(f"unknown {what} {unknown_text}; known: {', '.join(known)}", param_hint=hint)
    return chosen


def _settings(ports: list[Port], given: dict[str, Any]) -> Settings:
    """The run's settings from a command's options (each command has some of them; the rest keep
    their defaults), the ports and methods that ``--port`` and ``--method`` choose, all when not given."""
    names = _names(given.get("port_names"), [port.name for port in ports], "port", "'--port'")
    return Settings(
        ns=tuple(given.get("ns", ())),
        ports=tuple(port.name for port in ports if port.name in names),
        methods=tuple(_names(given.get("method_names"), list(METHODS), "method", "'--method'")),
        jobs=given.get("jobs", 1),
        timeout=given.get("timeout", DEFAULT_TIMEOUT),
        strict=given.get("strict", False),
        max_moves=given.get("max_moves"),
        fail_fast=given.get("fail_fast", False),
        shard=given.get("shard"),
        backend=_backend(given.get("backend"), given.get("dsn"), given.get("isolation", "subprocess")),
        isolation=given.get("isolation", "subprocess"),
        limits=Limits(given.get("memory", DEFAULT_LIMITS.memory), given.get("processes", DEFAULT_LIMITS.processes)),
        build_timeout=given.get("build_timeout"),
        unsafe_superuser_sql=given.get("unsafe_superuser_sql", False),
    )


def _chosen(ports: list[Port], settings: Settings) -> list[Port]:
    return [port for port in ports if port.name in settings.ports]


def _backend(backend: Backend | None, dsn: str | None, isolation: str) -> Backend:
    """Where the SQL port runs. A DSN given on the command line that is not one is a usage error; one
    from HANOI_PG_DSN is checked only when a cell needs the server, and is then the error of the SQL
    cells alone."""
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("dsn") is click.core.ParameterSource.COMMANDLINE
    if dsn is not None and given:
        from harness.runners.postgres.connection import check_dsn

        try:
            check_dsn(dsn)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="'--dsn'") from None
    if backend is None:
        return "server" if dsn else "docker" if isolation == "container" else "embedded"
    if backend == "embedded" and isolation == "container":
        raise click.UsageError("--backend embedded runs the server on this machine, which --isolation container does not: use --backend docker or --dsn", ctx)
    if backend == "server" and not dsn:
        raise click.UsageError("--backend server needs --dsn or HANOI_PG_DSN", ctx)
    if backend != "server" and given:
        raise click.UsageError(f"--dsn names a server, --backend {backend} starts one: give only one of them", ctx)
    return backend


def _console(stderr: bool = False) -> Console:
    """Where a command shows what it found: text from ports may look like rich's emoji codes
    (``:smile:``), which are shown as typed; nothing is coloured that the harness did not mean."""
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, emoji=False)


class _NoProgress:
    """What stands for the progress bar off a terminal, where there is none to draw: rich's is not
    even loaded, which would cost a run's start a hundredth of a second."""

    def __enter__(self) -> _NoProgress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass

    def add_task(self, description: str, total: int) -> TaskID:
        return cast("TaskID", 0)

    def update(self, task: TaskID, *, advance: int, description: str) -> None:
        pass


def _progress() -> Progress | _NoProgress:
    """A progress bar on stderr that leaves no trace when it is done, and none at all off a terminal.
    Its descriptions are shown as typed: text from a port is no markup."""
    if not sys.stderr.isatty():
        return _NoProgress()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=_console(stderr=True), transient=True,
    )


def _versions(ports: list[Port], gate: Gate) -> Versions:
    """Each port's interpreters' versions (None where one says nothing)."""
    return {name: {executable: said for executable, (said, _) in answers.items()} for name, answers in gate.versions(ports).items()}


def _gate(settings: Settings, dsn: str | None, ports: list[Port]) -> Gate:
    """The run's gate: its walls, and its PostgreSQL, not yet started (it starts when a cell first
    needs it; none, and no PostgreSQL client loaded, for ports of which none runs in PostgreSQL).
    The DSN's password is a secret: a port that prints it has it masked in every report."""
    from harness.gate import Gate

    problem = _tmpdir_problem()
    if problem:
        raise click.ClickException(problem)
    if dsn:
        from harness.runners.postgres.connection import dsn_password

        SECRETS.add(dsn)
        SECRETS.add(dsn_password(dsn))
    if settings.isolation == "container" or (settings.backend == "docker" and any(port.query for port in ports)):
        _sweep_containers()
    return Gate(settings, dsn, ports)


def _tmpdir_problem() -> str | None:
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


class ExitCode(enum.IntEnum):
    """How every command exits (see EXIT_CODES); a signal's is SIGNALLED + its number."""

    PASSED = 0
    FAILED = 1
    USAGE = 2
    SIGNALLED = 128


STOP_SECONDS = 4.0
"""How long a stopped run may take to end its ports and servers before it gives up on them."""


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: stop as for Ctrl-C, cleaning up, but exit as that signal says."""

    def __init__(self, number: int) -> None:
        super().__init__(number)
        self.number = number


def _stopped_by(number: int) -> str:
    return "interrupted" if number == signal.SIGINT else f"stopped by {signal.Signals(number).name}"


def _stop(number: int, _frame: object) -> None:
    """Ctrl-C, SIGTERM or SIGHUP: the run cleans up and ends, within STOP_SECONDS whatever a server or
    the Docker engine does (the next run sweeps what could not be removed)."""
    _give_up_after(STOP_SECONDS, number)
    if number == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(number)


@functools.cache
def _give_up_after(seconds: float, number: int) -> None:
    """End the process in ``seconds``, naming what it still waited on, if it has not ended by then."""

    def give_up() -> None:
        time.sleep(seconds)
        waited = WAITS.names()
        on = f"; gave up after {seconds:g} s waiting for {', '.join(waited)}" if waited else ""
        with contextlib.suppress(OSError, ValueError):
            sys.stderr.write(f"harness: {_stopped_by(number)}{on}\n")
            sys.stderr.flush()
        os._exit(ExitCode.SIGNALLED + number)

    threading.Thread(target=give_up, name="give-up", daemon=True).start()


def main() -> None:
    """The console command: click's own handling, but a usage error is one line on stderr and exit 2;
    Ctrl-C, SIGTERM and SIGHUP end every port and server the run started, then exit 128 + the signal.
    What standard output and error cannot encode (PYTHONIOENCODING=ascii, LC_ALL=C) is written as
    ``\\u2014``: a report is never lost to the terminal's encoding."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    for handled in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(handled, _stop)
    try:
        code = cli.main(standalone_mode=False)
    except click.UsageError as error:
        where = error.ctx.command_path if error.ctx else "harness"
        click.echo(f"{where}: {visible(error.format_message())} (see {where} --help)", err=True)
        sys.exit(ExitCode.USAGE)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except (click.Abort, KeyboardInterrupt) as error:
        cause = error.__cause__ if isinstance(error, click.Abort) else error
        number = cause.number if isinstance(cause, Terminated) else signal.SIGINT
        click.echo(f"harness: {_stopped_by(number)}", err=True)
        sys.exit(ExitCode.SIGNALLED + number)
    finally:
        # Whatever the run leaves is freed with the process: no last collection walks it first,
        # which took longer than writing the report (two or three hundredths of a second).
        gc.freeze()
    sys.exit(code)


def _sweep_leftovers() -> None:
    """Remove what an earlier run that was killed outright (SIGKILL) could not, and say so."""
    from harness.runners.process import sweep_orphans, sweep_servers

    servers, ports = sweep_servers(), sweep_orphans()
    left = [f"{len(servers)} PostgreSQL server{'s' * (len(servers) != 1)} ({', '.join(map(str, servers))})"] * bool(servers)
    _say_removed(left + [f"{ports} port process{'es' * (ports != 1)}"] * bool(ports))


@functools.cache
def _sweep_containers() -> None:
    """The same for containers, looked for only by a run that uses the Docker engine itself: the rest
    need not wait for an engine."""
    from harness.runners.modes.container import sweep_containers

    containers = sweep_containers()
    _say_removed([f"{containers} container{'s' * (containers != 1)}"] * bool(containers))


def _say_removed(left: list[str]) -> None:
    if left:
        click.echo(f"harness: removed what an earlier, killed run left behind: {' and '.join(left)}", err=True)


EXIT_CODES = """Exit codes, the same for every command: 0 when every cell that ran passed and the ports agree
(a skipped cell is no failure unless --strict); 1 when a cell failed or errored, the ports disagree,
a manifest is broken, a report could not be written or a merge lacks a report of part of its run;
2 for a usage error; 128 + the signal's number when stopped by one (130 for Ctrl-C, 143 for SIGTERM)."""


@click.group(context_settings={"help_option_names": ["-h", "--help"]}, epilog=EXIT_CODES)
@click.version_option(__version__, prog_name="harness")
@click.option(
    "--root", type=click.Path(exists=True, file_okay=False, path_type=Path), envvar=ROOT_VARIABLE,
    show_default=f"${ROOT_VARIABLE}, else the current folder or the nearest parent with a */language.toml",
    help="Folder whose subfolders hold the ports, one language.toml each.",
)
@click.pass_context
def cli(ctx: click.Context, root: Path | None) -> None:
    """Run every Tower of Hanoi port, verify its moves, and check that all agree."""
    from harness.discover import discover, find_root
    from harness.runners.process import become_subreaper

    become_subreaper()
    _sweep_leftovers()
    found = find_root(root)
    needs_ports = ctx.invoked_subcommand not in ("new-language", "merge", "check")
    if found is None and needs_ports:
        raise click.UsageError(
            "no ports here: run inside a checkout (a folder whose subfolders hold language.toml files), or give --root or HANOI_ROOT"
        )
    ctx.meta["root"] = found or Path.cwd()
    ctx.obj = discover(ctx.meta["root"])
    if not ctx.obj and needs_ports:
        raise click.UsageError(f"no ports under {ctx.meta['root']}: a port is a folder with a language.toml (harness new-language NAME starts one)")


def _exit(ok: bool) -> NoReturn:
    sys.exit(ExitCode.PASSED if ok else ExitCode.FAILED)


def _write(path: str, content: str | Callable[[BinaryIO], object], what: str) -> bool:
    """Write a report (its text, or what writes it to a file), or say in one line why it could not
    be written, naming the file. A file is written whole or not at all (:func:`_replace`)."""
    try:
        if path == "-" and isinstance(content, str):  # a plot, which is no text, never goes there (--plot)
            sys.stdout.write(content)
            sys.stdout.flush()
        else:
            _replace(Path(path), content if callable(content) else lambda handle: handle.write(content.encode("utf-8")))
    except OSError as error:
        return _unwritten(what, "standard output" if path == "-" else path, error)
    return True


def _unwritten(what: str, where: str, error: OSError) -> bool:
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


def _replace(path: Path, fill: Callable[[BinaryIO], object]) -> None:
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


@dataclass(frozen=True)
class Outputs:
    """Where a report goes: the form of standard output (None: pretty on a terminal, else plain) and
    the files (``-``: standard output) of each kind."""

    form: str | None = None
    json_file: str | None = None
    junit_file: str | None = None
    markdown_file: str | None = None
    html_file: str | None = None

    @classmethod
    def given(cls, given: dict[str, Any]) -> Outputs:
        """The outputs a command's options name."""
        return cls(given.get("form"), given.get("json_file"), given.get("junit_file"), given.get("markdown_file"), given.get("html_file"))


def _publish(report: Report, outputs: Outputs) -> NoReturn:
    """Show the report and write its files, then exit by the one policy: 0 passed, 1 otherwise."""
    from harness.report import junit, markdown, render
    from harness.serialize import json_text, to_json

    json_out = outputs.form == "json" or outputs.json_file == "-"
    screen = sys.stderr if json_out else sys.stdout
    table_form = outputs.form if outputs.form not in (None, "json") else "pretty" if screen.isatty() else "plain"
    try:
        render(report, table_form, _console(stderr=json_out))
        written = True
    except OSError as error:  # a full disk, /dev/full
        written = _unwritten("report", "standard error" if json_out else "standard output", error)
    if json_out:
        written &= _write("-", json_text(to_json(report), indent=2) + "\n", "JSON report")
    files: list[tuple[str | None, Callable[[], str], str]] = [
        (outputs.json_file, lambda: json_text(to_json(report), indent=2) + "\n", "JSON report"),
        (outputs.junit_file, lambda: junit(report), "JUnit report"),
        (outputs.markdown_file, lambda: markdown(report), "Markdown report"),
        (outputs.html_file, lambda: _page(report), "HTML page"),
    ]
    for path, text, what in files:
        if path and path != "-":
            written &= _write(path, text(), what)
    _exit(report.passed and written)


def _page(report: Report) -> str:
    """The report as an HTML page; its writer is loaded only by a run that asks for one."""
    from harness.page import page

    return page(report)


@cli.command(epilog=EXIT_CODES)
@options("n", "port", "method", "jobs", "timeout", "build_timeout", "strict", "max_moves", "fail_fast", "shard", *REPORTS, *DATABASE, *ISOLATION)
@click.pass_obj
def compare(ports: list[Port], /, **given: Any) -> None:
    """Run every (port, method) cell for each n, verify each, and check that all agree."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.evaluate import evaluate_all
    from harness.serialize import Report, now

    settings = _settings(ports, given)
    ports = _chosen(ports, settings)
    started = now()
    with _gate(settings, given["dsn"], ports) as gate, _progress() as progress:
        task = progress.add_task("cells", total=len(settings.plan.cells()))
        if gate.database is not None:
            gate.database.warm([port for port in ports if port.query], settings.timeout)  # while the other ports' cells run
        aside = ThreadPoolExecutor(max_workers=1)
        try:
            about = aside.submit(_about, ports, gate)
            cells = evaluate_all(ports, settings, gate, on_done=lambda cell: progress.update(task, advance=1, description=visible(cell.label)))
        finally:  # stopped, the run waits for none of it; else for it below
            aside.shutdown(wait=False)
    infos, checkout, where = about.result()
    report = Report("compare", started, now(), checkout, settings.plan, settings.options(), where, infos, list(settings.methods), cells)
    _publish(report, Outputs.given(given))


def _about(ports: list[Port], gate: Gate) -> tuple[list[PortInfo], str | None, dict[str, Any]]:
    """What a report says of its run besides the cells: each port with its interpreters' versions,
    the commit and the machine. Gathered while the cells run, with the report's writer loaded
    meanwhile, so none of it is waited for once they are done."""
    from harness.report import port_info
    from harness.serialize import commit, machine

    versions = _versions(ports, gate)
    return [port_info(port, versions) for port in ports], commit(PROJECT_ROOT), machine()


@cli.command(epilog=EXIT_CODES)
@click.argument("reports", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--mixed", is_flag=True, help="Merge reports from different commits or harness versions too.")
@click.option(
    "--expect", type=click.Choice(["checkout", "plan"]), default="checkout", show_default=True,
    help="What must have a report: every port the manifests under --root list and all the reports' plans hold (checkout), or their plans alone (plan).",
)
@options(*REPORTS)
@click.pass_context
def merge(ctx: click.Context, /, reports: tuple[str, ...], mixed: bool, expect: str, **given: Any) -> None:
    """Merge the JSON reports of several runs (such as the shards of one, on several machines) and
    decide from their digests whether all the ports agree, as compare does for one run. Each report
    records the run it is part of: a port, a shard or a cell of it that no report holds fails the merge,
    named."""
    from harness.serialize import merge_reports

    if expect == "checkout" and not ctx.obj:
        raise click.UsageError(f"no ports under {ctx.meta['root']} to expect: give --root, or --expect plan to expect only what the reports planned")
    expected = tuple(port.name for port in ctx.obj) if expect == "checkout" else ()
    try:
        merged = merge_reports([(path, _read_report(path)) for path in reports], mixed, expected)
    except MergeError as error:
        raise click.UsageError(str(error)) from None
    _publish(merged, Outputs.given(given))


def _read_report(path: str) -> Report:
    """A report given to merge, read in bounded memory (serialize.read_report); one that cannot be
    read, or is no report, is a usage error naming it and where it goes wrong."""
    from harness.serialize import read_report

    try:
        return read_report(Path(path))
    except OSError as error:
        raise click.UsageError(f"cannot read {path}: {error.strerror or error}") from None
    except ReportError as error:
        raise click.UsageError(str(error)) from None


@cli.command(epilog=EXIT_CODES)
@click.argument("port_name", metavar="PORT")
@click.argument("method")
@options("n", "timeout", "build_timeout", "strict", *DATABASE)
@click.option("--raw", is_flag=True, help="Print the port's own lines instead of canonical moves.")
@options(*ISOLATION)
@click.pass_obj
def run(ports: list[Port], /, port_name: str, method: str, raw: bool, **given: Any) -> None:
    """Print one cell's moves, canonical (DISK SRC DST) or as the port prints them."""
    def show(line: str) -> None:
        sys.stdout.write(visible(line) + "\n")

    cell = _one_cell(
        ports, port_name, method, given, "run",
        on_line=(lambda line: show(SECRETS.mask(line))) if raw else None, on_move=None if raw else (lambda move: show(move.canonical())),
    )
    sys.stdout.flush()
    _say_how_it_ended(cell)


def _one_cell(ports: list[Port], port_name: str, method: str, given: dict[str, Any], command: str, **sinks: Any) -> Cell:
    """One cell of the port and method named, for the one n given, run as compare runs it; ``sinks``
    see its lines or moves as they come."""
    from harness.evaluate import evaluate

    if len(given["ns"]) != 1:
        raise click.BadParameter(f"{command} takes one n", param_hint="'--n'")
    by_name = {port.name: port for port in ports}
    port = by_name[_names(port_name, list(by_name), "port", "'PORT'")[0]]
    method = _names(method, list(METHODS), "method", "'METHOD'")[0]
    settings = _settings(ports, given)
    with _gate(settings, given["dsn"], [port]) as gate:
        return evaluate(port, method, settings.ns[0], settings, gate, **sinks)


def _say_how_it_ended(cell: Cell) -> NoReturn:
    """A cell that did not pass says why on standard error, with its diff; the exit code says whether it ran well."""
    from harness.report import literal

    if cell.outcome is not Outcome.PASS:
        err = _console(stderr=True)
        err.print(literal(f"{cell.label}: {cell.outcome.value}: {cell.detail}"))
        for line in cell.diff:
            err.print(literal(line))
    _exit(cell.outcome in (Outcome.PASS, Outcome.SKIPPED))


@cli.command(epilog=EXIT_CODES)
@click.argument("port_name", metavar="PORT")
@click.argument("method")
@options("n", "timeout", "build_timeout", "strict", *DATABASE)
@click.option(
    "--delay", type=click.FloatRange(min=0, max=60), default=0.3, show_default=True, metavar="SECONDS",
    help="Seconds between moves on a terminal.",
)
@options(*ISOLATION)
@click.pass_obj
def show(ports: list[Port], /, port_name: str, method: str, delay: float, **given: Any) -> None:
    """Draw one cell's moves as stacks of discs: animated on a terminal, each position once when piped.
    The moves are the port's own, verified; a port that breaks a rule is drawn up to it."""
    from harness.board import draw, heading, positions

    if given["ns"] and given["ns"][0] > MAX_SHOWN:
        raise click.BadParameter(f"show draws at most {MAX_SHOWN} discs, {MAX_SHOWN} being as wide as a terminal", param_hint="'--n'")
    moves: list[Move] = []
    cell = _one_cell(ports, port_name, method, given, "show", on_move=moves.append)
    animated = sys.stdout.isatty()
    sys.stdout.write(visible(heading(cell.label, METHODS[cell.method], len(moves))) + "\n")
    drawn = 0
    for number, (pegs, move) in enumerate(positions(cell.n, moves)):
        lines = draw(cell.n, pegs, move, number, len(moves))
        if animated and drawn:
            time.sleep(delay)
            sys.stdout.write(f"\x1b[{drawn}F")  # back to the first line of the board drawn last
        elif drawn:
            sys.stdout.write("\n")
        sys.stdout.write("".join(f"{line}\x1b[K\n" if animated else f"{line}\n" for line in lines))
        sys.stdout.flush()
        drawn = len(lines)
    _say_how_it_ended(cell)


@cli.command(name="list", epilog=EXIT_CODES)
@options("port", "strict", "format", *DATABASE, *ISOLATION)
@click.option("--verbose", "-v", is_flag=True, help="Also say what each port follows (its [[source]]), and why a version could not be read.")
@click.pass_obj
def list_ports(ports: list[Port], /, verbose: bool, **given: Any) -> None:
    """Show each port, its methods, and whether its interpreter is here, with its version (for the
    SQL port, the PostgreSQL server it runs on; in containers, the port's image's). --format json is
    what CI builds its jobs from; --format markdown is README.md's table of ports, from the
    manifests alone."""
    from harness.report import literal, render_list

    settings = _settings(ports, given)
    ports = _chosen(ports, settings)
    missing = {}
    with _gate(settings, given["dsn"], ports) as gate:
        for port in ports:
            requirement = next((req for program in port.programs.values() if (req := gate.missing(program))), None)
            if requirement:
                missing[port.name] = f"{requirement.executable}; {requirement.advice}".rstrip("; ")
            elif port.query and gate.database is not None:  # there is one, as there is a port that needs it
                try:
                    gate.database.version()
                except Unavailable as error:
                    missing[port.name] = str(error)
        answers = gate.versions(ports)
        versions = {name: {executable: said for executable, (said, _) in asked.items()} for name, asked in answers.items()}
        form = given["form"] or ("pretty" if sys.stdout.isatty() else "plain")
        console = _console()
        render_list(console, form, ports, versions, missing)
        if verbose:
            for port in ports:
                for source in port.sources:
                    console.print(literal(f"{port.name} follows {source.cite()}; for {', '.join(source.methods)}"))
                if not port.sources and not port.manifest_error:
                    console.print(literal(f"{port.name} names no source: its manifest has no [[source]]"))
                for requirement in (req for req in port.requires if versions[port.name].get(req.executable) is None):
                    reason = answers[port.name][requirement.executable][1]
                    console.print(literal(f"{port.name}: {requirement.executable} version unknown: {reason}"))
    broken = any(port.manifest_error for port in ports) or (settings.strict and bool(missing))
    _exit(not broken)


@cli.command(epilog=EXIT_CODES)
@options("port")
@click.option("--install", "install_missing", is_flag=True, help="Install what is missing, where this machine can (apt-get as root or with sudo, or brew).")
@click.pass_obj
def doctor(ports: list[Port], /, install_missing: bool, **given: Any) -> None:
    """Say what each port needs, what is missing here and how to get it, as the manifests' [[requires]] say;
    with --install, install only what is missing (nothing for a port whose interpreter is on PATH).
    Then whether --isolation sandbox can run here, and if not, why and what to do.
    Exit 0 when everything the ports need is here, 1 when something is still missing."""
    from harness.doctor import install, needs
    from harness.runners.modes.sandbox import sandbox_problem

    ports = _chosen(ports, _settings(ports, given))
    found = needs(ports)
    missing = [need.requirement for need in found if not need.found]
    if missing and install_missing:
        try:
            install(missing)
        except DoctorError as error:
            click.echo(visible(f"cannot install {', '.join(req.executable for req in missing)}: {error}"), err=True)
        found = needs(ports)
    for need in found:
        state = "found" if need.found else f"MISSING: {need.requirement.advice or 'the manifest does not say how to install it'}"
        click.echo(visible(f"{need.requirement.executable:<12} {state}  (needed by {', '.join(need.ports)})"))
    problem = _tmpdir_problem() or sandbox_problem()
    click.echo(visible(f"{'sandbox':<12} {f'UNAVAILABLE: {problem}' if problem else 'bubblewrap works here'}  (for --isolation sandbox)"))
    still = [need.requirement.executable for need in found if not need.found]
    if still:
        click.echo(visible(f"missing: {', '.join(still)}: the cells of the ports that need them are skipped"))
    _exit(not still)


@cli.command(epilog=EXIT_CODES)
@click.argument("names", nargs=-1)
@options(*DATABASE)
@click.pass_context
def transcripts(ctx: click.Context, /, names: tuple[str, ...], **given: Any) -> None:
    """Replay the documents' interactive sessions (docs/transcripts/*.toml) in a real swipl, psql or
    python3 -i, and check that every answer is still the one recorded."""
    from harness.transcripts import discover as discover_transcripts
    from harness.transcripts import render_transcripts, replay

    root = ctx.meta["root"]
    try:
        found = discover_transcripts(root)
    except TranscriptError as error:
        raise click.ClickException(str(error)) from None
    chosen = _names(",".join(names) if names else None, [t.name for t in found], "transcript", "'NAMES'")
    with _gate(_settings(ctx.obj, given), given["dsn"], ctx.obj) as gate:
        replays = [(t, replay(t, root, gate.database, ctx.obj)) for t in found if t.name in chosen]
    render_transcripts(_console(), replays)
    _exit(all(result.outcome in (Outcome.PASS, Outcome.SKIPPED) for _, results in replays for result in results))


@cli.command(name="bench", epilog=EXIT_CODES)
@options("n", "port", "method", "timeout", "build_timeout", "max_moves", "json", *DATABASE, *ISOLATION)
@click.option("--repeat", type=click.IntRange(min=1, max=1000), default=5, show_default=True, help="Timed runs of each cell, after one warm-up.")
@click.option("--plot", "plot_file", type=ReportFile(), help="Draw time against n to this .svg or .png (needs matplotlib).")
@click.pass_context
def bench_command(ctx: click.Context, /, repeat: int, plot_file: str | None, **given: Any) -> None:
    """Time each port: wall and CPU seconds, peak memory and moves per second, port alone, after it
    passes at n=5, run as --isolation says; the harness's own reading speed on the same output; and
    harness compare of the cell as a whole process, with its start-up on its own."""
    from harness.bench import BenchStatus, bench, bench_to_json, plot_bench, render_bench
    from harness.serialize import commit, json_text, machine

    settings = _settings(ctx.obj, given)
    ports = _chosen(ctx.obj, settings)
    if plot_file:
        if not plot_file.lower().endswith((".svg", ".png")):
            raise click.BadParameter("the plot is an .svg or a .png file", param_hint="'--plot'")
        if importlib.util.find_spec("matplotlib") is None:
            raise click.UsageError("--plot needs matplotlib: pip install 'hanoi-polyglot[plot]'", ctx)
    json_file = given["json_file"]
    console = _console(stderr=json_file == "-")
    about = {**machine(), "commit": commit(PROJECT_ROOT), "isolation": settings.isolation}  # before the run: the commit the figures come from
    with _gate(settings, given["dsn"], ports) as gate, _progress() as progress:
        task = progress.add_task("bench", total=len(ports) * len(settings.methods) * len(settings.ns))
        cells = bench(
            ports, settings, repeat, gate, ctx.meta["root"], given["dsn"],
            on_done=lambda cell: progress.update(task, advance=1, description=visible(f"{cell.port}/{cell.method} n={cell.n}")),
        )
        versions = _versions(ports, gate)
    render_bench(console, cells, about, versions, repeat)
    written = True
    if json_file:
        written &= _write(json_file, json_text(bench_to_json(cells, about, versions, repeat), indent=2) + "\n", "JSON figures")
    if plot_file:
        written &= _write(plot_file, lambda handle: plot_bench(handle, Path(plot_file).suffix[1:].lower(), cells, about), "plot")
    _exit(written and all(cell.status is not BenchStatus.ERROR for cell in cells))


@cli.command(epilog=EXIT_CODES)
@click.argument("paths", nargs=-1, metavar="[PATH]...", type=click.Path(exists=True, path_type=Path))
@click.pass_context
def check(ctx: click.Context, /, paths: tuple[Path, ...]) -> None:
    """Check manifests, and nothing else: every key, placeholder, pattern and [[requires]], as a run
    reads them, without running, building or asking anything (for a commit hook or an editor).
    A PATH is a language.toml, a port's folder, or a folder of ports; none: every port under --root.
    Each broken manifest is one line, FILE:LINE: why. Exit 0 when all are sound, 1 otherwise."""
    from harness.discover import MANIFEST, load_port

    given = paths or (Path(os.path.relpath(ctx.meta["root"])),)
    manifests: dict[Path, None] = {}  # in order, each once
    for path in given:
        inside = path / MANIFEST
        manifests.update(dict.fromkeys([path] if path.is_file() else [inside] if inside.is_file() else sorted(path.glob(f"*/{MANIFEST}"))))
    if not manifests:
        raise click.UsageError(f"no manifests in {', '.join(map(str, given))}: a port is a folder with a {MANIFEST}")
    broken = [port.manifest_error for port in map(load_port, manifests) if port.manifest_error]
    for problem in broken:
        click.echo(visible(problem))
    count = len(manifests)
    click.echo(f"{count - len(broken)} of {count} manifest{'s' * (count != 1)} sound" + (f", {len(broken)} broken" if broken else ""), err=bool(broken))
    _exit(not broken)


@cli.command(epilog=EXIT_CODES)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder for the site: index.html, report.html beside it.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False), help="Build from this JSON report (compare or merge --json) instead of a fresh run.")
@click.option("-n", "--n", "ns", type=DiscCounts(), default="0-6", show_default=True, help="Discs for the fresh run.")
@click.option("--sample-n", type=click.IntRange(min=0, max=6), default=3, show_default=True, help="Discs for each port's sample of what it prints.")
@click.option("--no-samples", is_flag=True, help="Run no sample: show the code and the report alone.")
@options("jobs")
@click.pass_context
def gallery(ctx: click.Context, /, out: Path, report_file: str | None, ns: list[int], sample_n: int, no_samples: bool, jobs: int) -> None:
    """Write a static site of every method's code in every port, side by side, with each one's verdict,
    time and what it prints, and the report page beside it: from a fresh run, or from --report."""
    from harness.gallery import run, write

    given = _read_report(report_file) if report_file else None
    fresh, samples = run(ctx.obj, ctx.meta["root"], None if given else ns, None if no_samples else sample_n, jobs)
    report = given or fresh
    assert report is not None  # a fresh run makes one when no report is given
    try:
        click.echo(f"wrote {write(out, report, ctx.obj, samples)}")
    except OSError as error:
        raise click.ClickException(f"cannot write the gallery to {out}: {error.strerror or error}") from None


@cli.command(name="new-language")
@click.argument("name")
@click.option("--interpreter", help="The command that runs the program (default: NAME); with --build, the compiler.")
@click.option("--program", help="The program's file name (default: hanoi.NAME).")
@click.option("--comment", default="#", show_default=True, help="How a comment line starts in the language: //, --, ;, %...")
@click.option("--version-flag", default="--version", show_default=True, help="What asks the interpreter or compiler its version: -v, -version, version...")
@click.option("--build", is_flag=True, help="A compiled language: the manifest builds the program with --interpreter, then runs what it built.")
@click.pass_context
def new_language_command(
    ctx: click.Context, name: str, interpreter: str | None, program: str | None, comment: str, version_flag: str, build: bool
) -> None:
    """Start a port: a folder NAME with a language.toml and a stub program, ready for compare."""
    from harness.scaffold import new_language

    root = ctx.meta["root"]
    try:
        made = new_language(root, name, interpreter or name, program or f"hanoi.{name}", comment, version_flag, build)
    except ScaffoldError as error:
        raise click.UsageError(str(error), ctx) from None
    except OSError as error:
        raise click.ClickException(str(error)) from None
    for path in made:
        click.echo(f"created {path}")
    click.echo(
        f"next: write the program, then run harness run {name} recursive --n 3 --raw, and harness compare --n 0-10 --lang {name}"
        " (docs/ADDING_A_LANGUAGE.md walks through it)"
    )
