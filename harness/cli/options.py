"""The options the commands share, each defined once, and the settings a command's options make."""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from harness.extras import lacking
from harness.limits import DEFAULT_LIMITS, DEFAULT_PROCESSES, Limits, parse_size
from harness.model import METHODS, Shard
from harness.port import MOST_DISCS
from harness.report import WRITERS, writing
from harness.run import RunOptions
from harness.runners.postgres import SERVERS
from harness.settings import BACKENDS, DEFAULT_MAX_MOVES, DEFAULT_MODE, DEFAULT_TIMEOUT, MODES, SCREENS, Backend, Mode, Settings

if TYPE_CHECKING:
    from click.shell_completion import CompletionItem


MAX_DISCS = MOST_DISCS
"""The most discs a run may ask for: 2^64 − 1 moves would take centuries at any speed."""


MAX_TIMEOUT = 7 * 24 * 3600


def complete_ports(ctx: click.Context, param: click.Parameter, incomplete: str) -> list[CompletionItem]:
    """The ports under --root (or where the harness finds them) that begin with what is typed, for the
    shell's completion; after a comma, the next of a list (``python,b`` offers ``python,bash``). The
    manifests are found, not read: completion runs on every Tab."""
    from click.shell_completion import CompletionItem

    from harness.discover import find_root, manifests

    root = find_root(ctx.find_root().params.get("root"))
    before, comma, last = incomplete.rpartition(",")
    names = [path.parent.name for path in manifests(root)] if root is not None else []
    return [CompletionItem(f"{before}{comma}{name}") for name in names if name.startswith(last)]


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
    "port": click.option(
        "-l", "--port", "--lang", "port_names", metavar="PORTS", shell_complete=complete_ports, help="Ports, comma-separated (default: all).",
    ),
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
        "--isolation", type=click.Choice(MODES), default=DEFAULT_MODE, show_default=True,
        help="The walls each program runs within: each mode is described in Isolation, in the documentation.",
    ),
    "memory": click.option(
        "--memory", type=Size(), default="2G", show_default=True, help="Resident memory a cell's whole process tree may use: 512M, 2G.",
    ),
    "processes": click.option(
        "--processes", type=click.IntRange(min=1), default=DEFAULT_PROCESSES, show_default=True,
        help="Processes a cell may run at once (a fork bomb is an error, not an outage).",
    ),
}


def _screen(form: str | None) -> str | None:
    """The form asked for, which for ``pretty`` needs rich (the ``pretty`` extra)."""
    missing = lacking("pretty") if form == "pretty" else None
    if missing:
        raise click.BadParameter(f"the pretty table is not installed here: {missing}", param_hint="'--format'")
    return form


def options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The shared options ``names``, in that order in --help."""

    def apply(command: Callable[..., Any]) -> Callable[..., Any]:
        for name in reversed(names):
            command = OPTIONS[name](command)
        return command

    return apply


OPTIONS.update(
    (name, click.option(f"--{name}", f"{name}_file", type=ReportFile(), help=writer.help)) for name, writer in WRITERS.items()
)


def format_option(forms: tuple[str, ...]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--format``: the table, pretty or plain, or one of ``forms``, writers' names, whose text then
    goes to standard output as ``--NAME -`` writes it; one axis, whatever the writer."""
    return click.option(
        "--format", "form", type=click.Choice((*SCREENS, *forms)), callback=lambda ctx, param, form: _screen(form),
        help="What goes to standard output: the table (default: pretty on a terminal, else plain), or a written form, as --NAME - writes it.",
    )


OPTIONS["format"] = format_option(writing("report"))
OPTIONS["listing_format"] = format_option(writing("listing"))
DATABASE = ("backend", "dsn", "unsafe_superuser_sql")
REPORTS = ("format", *WRITERS)


ISOLATION = ("isolation", "memory", "processes")


def choose(value: str | None, known: list[str], what: str, hint: str) -> list[str]:
    """A comma-separated choice from ``known``; all of them when none is given."""
    if value is None:
        return known
    chosen = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in known]
    if unknown or not chosen:
        unknown_text = ", ".join(map(repr, unknown)) or repr(value)
        raise click.BadParameter(f"unknown {what} {unknown_text}{_suggested(unknown, known)}; known: {', '.join(known)}", param_hint=hint)
    return chosen


def _suggested(unknown: list[str], known: list[str]) -> str:
    """Did you mean …? for names mistyped, as click says it for a mistyped option (difflib's close matches)."""
    close = list(dict.fromkeys(match for name in unknown for match in difflib.get_close_matches(name, known, n=1)))
    return f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""


def settings_from(ports: list[str], given: dict[str, Any]) -> Settings:
    """The run's settings from a command's options (each command has some of them; the rest keep
    their defaults), the ports (of those named ``ports``) and methods that ``--port`` and ``--method``
    choose, all when not given."""
    names = choose(given.get("port_names"), ports, "port", "'--port'")
    isolation = given.get("isolation", DEFAULT_MODE)
    return Settings(
        ns=tuple(given.get("ns") or ()),
        ports=tuple(port for port in ports if port in names),
        methods=tuple(choose(given.get("method_names"), list(METHODS), "method", "'--method'")),
        jobs=given.get("jobs", 1),
        timeout=given.get("timeout", DEFAULT_TIMEOUT),
        strict=given.get("strict", False),
        max_moves=given.get("max_moves"),
        fail_fast=given.get("fail_fast", False),
        shard=given.get("shard"),
        backend=_backend(given.get("backend"), given.get("dsn"), isolation),
        isolation=isolation,
        limits=Limits(given.get("memory", DEFAULT_LIMITS.memory), given.get("processes", DEFAULT_LIMITS.processes)),
        build_timeout=given.get("build_timeout"),
        unsafe_superuser_sql=given.get("unsafe_superuser_sql", False),
    )


@dataclass(frozen=True)
class Outputs:
    """Where a report goes: the form of standard output (the table, pretty or plain, or a writer's
    name; None: pretty on a terminal, else plain) and, by writer, the file each is written to (``-``:
    standard output)."""

    form: str | None = None
    files: dict[str, str] = field(default_factory=dict)

    @classmethod
    def given(cls, given: dict[str, Any]) -> Outputs:
        """The outputs a command's options name (``--json FILE`` is ``json_file``, and so on)."""
        return cls(given.get("form"), {name: path for name in WRITERS if (path := given.get(f"{name}_file"))})


def run_options(ports: list[str], given: dict[str, Any]) -> RunOptions:
    """A run's options from a command's (:func:`settings_from`) for the ports named ``ports``, and the DSN of its server, if one is named."""
    return RunOptions(settings_from(ports, given), given.get("dsn"))


def _backend(backend: Backend | None, dsn: str | None, isolation: Mode) -> Backend:
    """Where the SQL port runs. A DSN given on the command line that is not one is a usage error; one
    from HANOI_PG_DSN is checked only when a cell needs the server, and is then the error of the SQL
    cells alone."""
    ctx = click.get_current_context()
    given = ctx.get_parameter_source("dsn") is click.core.ParameterSource.COMMANDLINE
    if dsn is not None and given and not lacking("postgres"):  # without the client, the SQL cells say it is missing
        from harness.runners.postgres.connection import check_dsn

        try:
            check_dsn(dsn)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="'--dsn'") from None
    from harness.runners.walls import walls_class  # not at start-up: it loads the mode's module

    walls = walls_class(isolation)
    if backend is None:
        return "server" if dsn else walls.default_backend
    kind = SERVERS[backend]
    if kind.on_this_machine and not walls.host_interpreters:
        raise click.UsageError(
            f"--backend {backend} runs the server on this machine, which --isolation {isolation} does not: use --backend {walls.default_backend} or --dsn",
            ctx,
        )
    if kind.needs_dsn and not dsn:
        raise click.UsageError(f"--backend {backend} needs --dsn or HANOI_PG_DSN", ctx)
    if not kind.needs_dsn and given:
        raise click.UsageError(f"--dsn names a server, --backend {backend} starts one: give only one of them", ctx)
    return backend
