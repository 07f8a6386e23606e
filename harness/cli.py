"""The ``harness`` command: compare every port, run one, or list them.

Exit codes: 0 when every cell that ran passed and the ports agree, 1 otherwise, 2 for a usage error.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from harness import __version__
from harness.bench import bench, machine
from harness.compare import agreements
from harness.discover import Port, discover
from harness.evaluate import DEFAULT_TIMEOUT, evaluate, evaluate_all
from harness.model import METHODS, Outcome
from harness.postgres import BACKENDS, Database, Unavailable, check_dsn, sweep_servers
from harness.report import (
    Versions, plot_bench, render_bench, render_compare, render_list, render_transcripts, succeeded, write_bench_json, write_json,
)
from harness.transcripts import TranscriptError, discover as discover_transcripts, replay
from harness.run import become_subreaper, missing_requirement, sweep_orphans, version
from harness.scaffold import ScaffoldError, new_language

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class DiscCounts(click.ParamType):
    """``5``, ``1-10``, ``3,8,12`` or a mix such as ``0-4,8``: the numbers of discs to run."""

    name = "N"

    def convert(self, value, param, ctx):
        if isinstance(value, list):
            return value
        counts: set[int] = set()
        for part in str(value).split(","):
            low, dash, high = part.strip().partition("-")
            if not low.isdecimal() or (dash and not high.isdecimal()):
                self.fail(f"{value!r} is not a number of discs (0 or more) or a range such as 5, 1-10 or 3,8,12", param, ctx)
            first, last = int(low), int(high) if dash else int(low)
            if last < first:
                self.fail(f"the range {part!r} runs backwards", param, ctx)
            counts.update(range(first, last + 1))
        return sorted(counts)


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


def _chosen(ports: list[Port], lang: str | None, method: str | None) -> tuple[list[Port], list[str]]:
    """The ports and methods ``--lang`` and ``--method`` choose: all of them when not given."""
    names = _names(lang, [port.name for port in ports], "language", "'--lang'")
    return [port for port in ports if port.name in names], _names(method, list(METHODS), "method", "'--method'")


def _progress() -> Progress:
    """A progress bar on stderr that leaves no trace when it is done, and none at all off a terminal."""
    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=Console(stderr=True), transient=True, disable=not sys.stderr.isatty(),
    )


def _versions(ports: list[Port], database: Database) -> Versions:
    return {
        port.name: {"postgresql": _server_version(database)} if port.query else {req.executable: version(req) for req in port.requires}
        for port in ports
    }


def _server_version(database: Database) -> str | None:
    try:
        return database.version()
    except Unavailable:
        return None


def database_options(command):
    """``--backend`` and ``--dsn``: where the ports that run in PostgreSQL run."""
    command = click.option(
        "--dsn", envvar="HANOI_PG_DSN", metavar="DSN",
        help="An existing PostgreSQL server for the SQL port, as a libpq connection string (or set HANOI_PG_DSN).",
    )(command)
    return click.option(
        "--backend", type=click.Choice(BACKENDS),
        help="Where the SQL port runs: a private embedded server (the default without a DSN), the server --dsn names, or a Docker container.",
    )(command)


def _database(backend: str | None, dsn: str | None) -> Database:
    """The run's PostgreSQL, not yet started: it starts when a cell first needs it."""
    ctx = click.get_current_context()
    if dsn is not None:
        try:
            check_dsn(dsn)
        except ValueError as error:
            raise click.BadParameter(str(error), param_hint="'--dsn' / HANOI_PG_DSN") from None
    if backend is None:
        backend = "server" if dsn else "embedded"
    elif backend == "server" and not dsn:
        raise click.UsageError("--backend server needs --dsn or HANOI_PG_DSN", ctx)
    elif backend != "server" and ctx.get_parameter_source("dsn") is click.core.ParameterSource.COMMANDLINE:
        raise click.UsageError(f"--dsn names a server, --backend {backend} starts one: give only one of them", ctx)
    return Database(backend, dsn)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: stop as for Ctrl-C, cleaning up, but exit as that signal says."""

    def __init__(self, number: int):
        super().__init__(number)
        self.number = number


def _terminate(number: int, _frame: object) -> None:
    raise Terminated(number)


def main() -> None:
    """The console command: click's own handling, but a usage error is one line on stderr and exit 2;
    Ctrl-C, SIGTERM and SIGHUP end every port and server the run started, then exit 128 + the signal."""
    for number in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(number, _terminate)
    become_subreaper()
    try:
        sys.exit(cli.main(standalone_mode=False))
    except click.UsageError as error:
        where = error.ctx.command_path if error.ctx else "harness"
        click.echo(f"{where}: {error.format_message()} (see {where} --help)", err=True)
        sys.exit(2)
    except click.ClickException as error:
        error.show()
        sys.exit(error.exit_code)
    except (click.Abort, KeyboardInterrupt) as error:
        cause = error.__cause__ if isinstance(error, click.Abort) else error
        number = cause.number if isinstance(cause, Terminated) else signal.SIGINT
        click.echo(f"harness: {'interrupted' if number == signal.SIGINT else 'stopped by ' + signal.Signals(number).name}", err=True)
        sys.exit(128 + number)


def _sweep_leftovers() -> None:
    """Remove what an earlier run that was killed outright (SIGKILL) could not, and say so."""
    servers, ports = sweep_servers(), sweep_orphans()
    if servers or ports:
        left = [f"{len(servers)} PostgreSQL server{'s' * (len(servers) != 1)} ({', '.join(map(str, servers))})"] * bool(servers)
        left += [f"{ports} port process{'es' * (ports != 1)}"] * bool(ports)
        click.echo(f"harness: removed what an earlier, killed run left behind: {' and '.join(left)}", err=True)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="harness")
@click.option(
    "--root", type=click.Path(exists=True, file_okay=False, path_type=Path), default=PROJECT_ROOT,
    show_default="the project's checkout", help="Folder whose subfolders hold the ports, one language.toml each.",
)
@click.pass_context
def cli(ctx: click.Context, root: Path) -> None:
    """Run every Tower of Hanoi port, verify its moves, and check that all agree."""
    _sweep_leftovers()
    ctx.obj = discover(root)
    if not ctx.obj and ctx.invoked_subcommand != "new-language":
        raise click.UsageError(f"no ports under {root}: a port is a folder with a language.toml (harness new-language NAME starts one)")


timeout_option = click.option(
    "--timeout", type=click.FloatRange(min=0, min_open=True), default=DEFAULT_TIMEOUT, show_default=True,
    help="Seconds each cell may run before it is stopped.",
)


@cli.command()
@click.option("--n", "ns", type=DiscCounts(), required=True, help="Discs: 5, 1-10 or 3,8,12.")
@click.option("--lang", help="Ports to run, comma-separated (default: all).")
@click.option("--method", help=f"Methods to run, comma-separated (default: {', '.join(METHODS)}).")
@click.option("--jobs", type=click.IntRange(min=1), default=os.cpu_count() or 1, show_default=True, help="Cells run at once.")
@timeout_option
@click.option("--json", "json_file", type=click.File("w", encoding="utf-8", lazy=False), help="Write a JSON report to this file.")
@click.option("--strict", is_flag=True, help="A missing interpreter fails the run instead of skipping its cells.")
@click.option(
    "--max-moves", type=click.IntRange(min=0), default=1 << 24, show_default=True,
    help="Skip a cell with more moves than this (the cyclic puzzle at n=20 has 4 x 10^8).",
)
@database_options
@click.pass_obj
def compare(ports: list[Port], ns, lang, method, jobs, timeout, json_file, strict, max_moves, backend, dsn) -> None:
    """Run every (port, method) cell for each n, verify each, and check that all agree."""
    ports, methods = _chosen(ports, lang, method)
    console = Console()
    with _database(backend, dsn) as database, _progress() as progress:
        task = progress.add_task("cells", total=len(ports) * len(methods) * len(ns))
        cells = evaluate_all(
            ports, methods, ns, jobs, timeout, strict, database,
            on_done=lambda cell: progress.update(task, advance=1, description=cell.label), max_moves=max_moves,
        )
        versions = _versions(ports, database)
    agreement = agreements(cells)
    render_compare(console, ports, methods, cells, agreement, versions)
    if json_file:
        write_json(json_file, ports, cells, agreement, versions)
        console.print(f"JSON report: {json_file.name}")
    sys.exit(0 if succeeded(cells, agreement) else 1)


@cli.command()
@click.argument("lang")
@click.argument("method")
@click.option("--n", type=click.IntRange(min=0), required=True, help="The number of discs.")
@click.option("--raw", is_flag=True, help="Print the port's own lines instead of canonical moves.")
@timeout_option
@database_options
@click.pass_obj
def run(ports: list[Port], lang, method, n, raw, timeout, backend, dsn) -> None:
    """Print one cell's moves, canonical (DISK SRC DST) or as the port prints them."""
    by_name = {port.name: port for port in ports}
    port = by_name[_names(lang, list(by_name), "language", "'LANG'")[0]]
    method = _names(method, list(METHODS), "method", "'METHOD'")[0]
    out = sys.stdout
    with _database(backend, dsn) as database:
        cell = evaluate(
            port, method, n, timeout, database=database,
            on_line=(lambda line: out.write(line + "\n")) if raw else None,
            on_move=None if raw else (lambda move: out.write(move.canonical() + "\n")),
        )
    out.flush()
    if cell.outcome is not Outcome.PASS:
        err = Console(stderr=True)
        err.print(f"{cell.label}: {cell.outcome.value}: {cell.detail}", highlight=False, markup=False)
        for line in cell.diff:
            err.print(line, highlight=False, markup=False)
        sys.exit(1)


@cli.command(name="list")
@database_options
@click.pass_obj
def list_ports(ports: list[Port], backend, dsn) -> None:
    """Show each port, its methods, and whether its interpreter is here, with its version
    (for the SQL port, the PostgreSQL server it runs on)."""
    missing = {}
    with _database(backend, dsn) as database:
        for port in ports:
            requirement = missing_requirement(port)
            if requirement:
                missing[port.name] = f"{requirement.executable}; {requirement.install}".rstrip("; ")
            elif port.query:
                try:
                    database.version()
                except Unavailable as error:
                    missing[port.name] = str(error)
        versions = _versions(ports, database)
    render_list(Console(), ports, versions, missing)


@cli.command()
@click.argument("names", nargs=-1)
@database_options
@click.pass_context
def transcripts(ctx: click.Context, names: tuple[str, ...], backend, dsn) -> None:
    """Replay the documents' interactive sessions (docs/transcripts/*.toml) in a real swipl, psql or
    python3 -i, and check that every answer is still the one recorded."""
    root = ctx.find_root().params["root"]
    try:
        found = discover_transcripts(root)
    except TranscriptError as error:
        raise click.ClickException(str(error)) from None
    chosen = _names(",".join(names) if names else None, [t.name for t in found], "transcript", "'NAMES'")
    with _database(backend, dsn) as database:
        replays = [(t, replay(t, root, database, ctx.obj)) for t in found if t.name in chosen]
    render_transcripts(Console(), replays)
    ok = all(result.outcome in (Outcome.PASS, Outcome.SKIPPED) for _, results in replays for result in results)
    sys.exit(0 if ok else 1)


@cli.command(name="bench")
@click.option("--n", "ns", type=DiscCounts(), default="16,20", show_default=True, help="Discs: 16,20 or 10-20.")
@click.option("--lang", help="Ports to time, comma-separated (default: all).")
@click.option("--method", help=f"Methods to time, comma-separated (default: {', '.join(METHODS)}).")
@click.option("--repeat", type=click.IntRange(min=1), default=5, show_default=True, help="Timed runs of each cell, after one warm-up.")
@click.option(
    "--max-moves", type=click.IntRange(min=0), default=1 << 20, show_default=True,
    help="Do not time a cell with more moves than this (the cyclic puzzle at n=20 has 4 x 10^8).",
)
@timeout_option
@click.option("--json", "json_file", type=click.File("w", encoding="utf-8", lazy=False), help="Write the figures as JSON to this file.")
@click.option("--plot", "plot_file", type=click.Path(dir_okay=False), help="Draw time against n to this .svg or .png (needs matplotlib).")
@database_options
@click.pass_context
def bench_command(ctx: click.Context, ns, lang, method, repeat, max_moves, timeout, json_file, plot_file, backend, dsn) -> None:
    """Time each port: wall and CPU seconds, peak RSS and moves per second, port alone, after it
    passes at n=5; and the harness's own reading speed on the same output."""
    ports, methods = _chosen(ctx.obj, lang, method)
    if plot_file:
        if not plot_file.lower().endswith((".svg", ".png")):
            raise click.BadParameter("the plot is an .svg or a .png file", param_hint="'--plot'")
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise click.UsageError("--plot needs matplotlib: pip install 'hanoi-polyglot[plot]'", ctx) from None
    console = Console()
    about = machine(PROJECT_ROOT)  # before the run: the commit the figures come from
    with _database(backend, dsn) as database, _progress() as progress:
        task = progress.add_task("bench", total=len(ports) * len(methods) * len(ns))
        cells = bench(
            ports, methods, ns, repeat, max_moves, timeout, database,
            on_done=lambda cell: progress.update(task, advance=1, description=f"{cell.language}/{cell.method} n={cell.n}"),
        )
        versions = _versions(ports, database)
    render_bench(console, cells, about, versions, repeat)
    if json_file:
        write_bench_json(json_file, cells, about, versions, repeat)
        console.print(f"JSON: {json_file.name}")
    if plot_file:
        plot_bench(plot_file, cells, about)
        console.print(f"Plot: {plot_file}")
    sys.exit(0 if all(cell.status != "error" for cell in cells) else 1)


@cli.command(name="new-language")
@click.argument("name")
@click.option("--interpreter", help="The command that runs the program (default: NAME).")
@click.option("--program", help="The program's file name (default: hanoi.NAME).")
@click.option("--comment", default="#", show_default=True, help="How a comment line starts in the language.")
@click.pass_context
def new_language_command(ctx: click.Context, name: str, interpreter: str | None, program: str | None, comment: str) -> None:
    """Start a port: a folder NAME with a language.toml and a stub program, ready for compare."""
    root = ctx.find_root().params["root"]
    try:
        made = new_language(root, name, interpreter or name, program or f"hanoi.{name}", comment)
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
