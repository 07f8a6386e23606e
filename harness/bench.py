"""How fast each port is, how fast the harness reads what it prints, and what a user waits for.

Each (port, method) is timed only after it passes at a small n (the correctness gate), and each cell
only once its output at its own n verifies: a port that fails either is listed as failed, not
timed, as the Programming Language Benchmarks do. That first run, its output captured, is also the
warm-up, and the harness's own throughput is measured on what it captured, read back through the
very code ``compare`` uses. A timed run starts the port through the same runner ``compare`` uses,
in the same isolation and limits, but sends its output to a counting sink, so its figures are the
port's alone: wall and CPU seconds and peak memory, as the runner measured them (for a port in
PostgreSQL, the server process that runs its query). Last, the cell runs as a user runs it:
``harness compare`` as a whole process, from its start to its exit; and the start-up, what the
harness adds to a run of the port whatever n, is that at the smallest n less the port alone there.
Where the port is a program run here (not a query, not in a container), it is also timed with its
output going straight to /dev/null: what printing costs it when nobody reads, beside what a reader
of the pipe, any reader, must wait for.
"""

from __future__ import annotations

import contextlib
import dataclasses
import html
import itertools
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import psycopg
from rich.console import Console
from rich.table import Table

from harness import __version__
from harness.errors import BenchError, CellError
from harness.evaluate import judge_output
from harness.expect import reader_module
from harness.gate import Gate
from harness.model import CYCLIC, METHODS, Cell, Finish, Outcome, visible
from harness.port import Port, Program
from harness.readers import READERS
from harness.report import Report, Versions
from harness.report.figures import (
    SUMMARY_COLUMNS,
    BenchStatus,
    Entry,
    brief,
    by_method,
    catalogue,
    figure,
    not_timed,
    provenance,
    summary_row,
    versions_line,
)
from harness.report.summary import one_line
from harness.report.terminal import literal
from harness.run import RunOptions, run
from harness.settings import Settings

GATE_N = 5
CHUNK = 1 << 20


@dataclass
class Run:
    """One timed run of a port: its moves and what it cost."""

    moves: int | None
    """None where counting the output does not count its moves: the harness's reading of it then says them."""
    wall: float
    cpu: float | None
    peak_mb: float | None


@dataclass
class BenchCell:
    """One (port, method, n): its runs after a warm-up, or why it was not timed."""

    port: str
    method: str
    n: int
    status: BenchStatus = BenchStatus.TIMED
    detail: str = ""
    runs: list[Run] = field(default_factory=list)
    """The port alone, its output read through a pipe by a sink that only counts it."""
    to_devnull: list[float] = field(default_factory=list)
    """Wall seconds of the port alone with its output going to /dev/null, where it can be run so."""
    harness_seconds: float | None = None
    through_compare: list[float] = field(default_factory=list)
    """Wall seconds of ``harness compare`` of this one cell, as a whole process: what a user waits for."""
    startup: float | None = None
    """What ``harness compare`` adds to a run of this port and method whatever n, in seconds: at the
    smallest n the port takes, the whole process less the port alone."""
    load: float | None = None
    """The machine's load average over the last minute when the cell's runs ended: how busy it was
    while they ran, which the figures say beside them."""

    @property
    def moves(self) -> int:
        """The moves one run printed."""
        return (self.runs[0].moves or 0) if self.runs else 0

    def median(self, figure: str) -> float | None:
        """The median of one figure of the runs (``wall``, ``cpu``, ``peak_mb``), where it was measured."""
        values = [getattr(run, figure) for run in self.runs if getattr(run, figure) is not None]
        return statistics.median(values) if values else None

    def spread(self, figure: str) -> tuple[float, float] | None:
        """The least and the most of one figure of the runs."""
        values = [getattr(run, figure) for run in self.runs if getattr(run, figure) is not None]
        return (min(values), max(values)) if values else None

    @property
    def moves_per_second(self) -> float | None:
        """The port's speed: moves over its median wall time."""
        wall = self.median("wall")
        return self.moves / wall if wall else None

    @property
    def harness_moves_per_second(self) -> float | None:
        """The harness's reading speed on the port's output."""
        return self.moves / self.harness_seconds if self.harness_seconds else None

    @property
    def devnull_seconds(self) -> float | None:
        """The median wall time of the port alone, writing to /dev/null."""
        return statistics.median(self.to_devnull) if self.to_devnull else None

    @property
    def reading_ratio(self) -> float | None:
        """The harness's reading time over the port's own time through a pipe: under 1, the
        harness reads the output faster than the port prints it."""
        alone = self.median("wall")
        return self.harness_seconds / alone if alone and self.harness_seconds else None

    @property
    def compare_seconds(self) -> float | None:
        """The median wall time of ``harness compare`` of the cell, as a whole process."""
        return statistics.median(self.through_compare) if self.through_compare else None

    @property
    def ratio(self) -> float | None:
        """How much longer ``harness compare`` of the cell takes, as a whole process, than the port alone."""
        alone, through = self.median("wall"), self.compare_seconds
        return through / alone if alone and through else None


CATALOGUE_N = {method: 12 if rules is CYCLIC else 20 for method, rules in METHODS.items()}
"""The n each method is timed at unless --n says otherwise: a million moves of the classic puzzle;
the cyclic puzzle's drawings are already 16 MB at n = 12, and its moves 423 million at n = 20."""


def plan(methods: Sequence[str], ns: Sequence[int] | None = None) -> dict[str, tuple[int, ...]]:
    """The n each method is timed at: ``ns`` for every method, else the catalogue's, 0 (where a port's
    time is its start-up) and the method's CATALOGUE_N."""
    return {method: tuple(ns) if ns else (0, CATALOGUE_N[method]) for method in methods}


def bench(
    ports: list[Port], options: RunOptions, ns: dict[str, tuple[int, ...]], repeat: int, gate: Gate,
    root: Path, on_done: Callable[[BenchCell], None] | None = None,
) -> tuple[list[BenchCell], Versions]:
    """Every cell of the options' ports and methods, each method at its ``ns`` (:func:`plan`), one
    after another (cells run side by side would slow each other down), each timed ``repeat`` times
    after a warm-up, once its port and method pass at GATE_N (:func:`verified`); ``harness compare``
    runs on the ports under ``root``, with the options' DSN for its server if one is given. The
    ports' versions beside them, as the verification's report gives them."""
    settings = options.settings
    report = verified(ports, options, gate, root)
    passed = {(cell.port, cell.method): cell for cell in report.cells}
    timer = _Timer(settings, repeat, gate, root, options.dsn)
    cells = []
    for port in ports:
        for method in settings.methods:
            unverified = _unverified(passed[port.name, method])
            for n in ns[method]:
                cell = BenchCell(port.name, method, n)
                left_out = unverified or timer.left_out(port, method, n)
                if left_out:
                    cell.status, cell.detail = left_out
                else:
                    timer.time(cell, port)
                cells.append(cell)
                if on_done:
                    on_done(cell)
    return cells, {info.name: info.versions for info in report.ports}


def verified(ports: list[Port], options: RunOptions, gate: Gate, root: Path) -> Report:
    """Each port and method at GATE_N, as compare runs them (:func:`harness.run.run`), one at a time
    and whatever --max-moves says; stopped, the interruption goes on."""
    settings = dataclasses.replace(options.settings, ns=(GATE_N,), jobs=1, max_moves=None, fail_fast=False, shard=None)
    ran = run("bench", ports, dataclasses.replace(options, settings=settings), lambda: contextlib.nullcontext(gate), str(root))
    if ran.stopped is not None:
        raise ran.stopped
    return ran.report


def _unverified(cell: Cell) -> tuple[BenchStatus, str] | None:
    """Why a cell that did not pass is not timed: failed where the port is at fault (a wrong move, a
    crash, a broken manifest), not timed where it is not (no interpreter here)."""
    if cell.outcome is Outcome.PASS:
        return None
    first = cell.detail.splitlines()[0] if cell.detail else ""
    status = BenchStatus.NOT_TIMED if cell.outcome is Outcome.SKIPPED else BenchStatus.FAILED
    return status, f"{cell.outcome.value} at n={cell.n}, so not timed: {first}".rstrip(": ")


class _Timer:
    """Times cells through the runners ``compare`` uses, in the run's isolation and limits."""

    def __init__(
        self, settings: Settings, repeat: int, gate: Gate, root: Path, dsn: str | None,
    ) -> None:
        self.settings, self.repeat, self.gate = settings, repeat, gate
        self.root, self.dsn = root, dsn
        self._startups: dict[tuple[str, str], float] = {}

    def left_out(self, port: Port, method: str, n: int) -> tuple[BenchStatus, str] | None:
        """Why a verified port and method are not timed at ``n``, if they are not: an n the program does
        not take, or more moves than --max-moves."""
        reason = port.program(method).refuses(n) or self.settings.too_many_moves(method, n)
        return (BenchStatus.NOT_TIMED, reason) if reason else None

    def time(self, cell: BenchCell, port: Port) -> None:
        """The cell's output verified, which warms it up (caches, the build, the server's plan) and
        times the harness's reading of it; then its runs and its runs through compare; or why not."""
        program = port.program(cell.method)
        try:
            judged, cell.harness_seconds = self._harness_reading(port, program, cell)
            failed = _unverified(judged)
            if failed:
                cell.status, cell.detail, cell.harness_seconds = *failed, None
                return
            for _ in range(self.repeat):  # in turns, so that both see the machine alike
                cell.runs.append(self._run(port, program, cell))
                seconds = self._to_devnull(port, program, cell)
                if seconds is not None:
                    cell.to_devnull.append(seconds)
            expected = METHODS[cell.method].optimal_count(cell.n)
            for run in cell.runs:
                if run.moves is not None and run.moves != expected:
                    raise BenchError(f"printed {run.moves:,} moves, not {expected:,}")
                run.moves = judged.moves  # where the sink could not count the moves, the harness's reading did
            cell.through_compare = [self._through_compare(port, cell) for _ in range(self.repeat)]
            cell.startup = self._startup(port, cell)
            cell.load = os.getloadavg()[0]
        except (CellError, BenchError, OSError, psycopg.Error, subprocess.TimeoutExpired) as error:
            detail = self.gate.secrets.mask(str(error))  # a port's stderr, as a cell's detail quotes it
            cell.status, cell.detail, cell.runs, cell.to_devnull, cell.harness_seconds = BenchStatus.ERROR, detail, [], [], None

    def _through_compare(self, port: Port, bench_cell: BenchCell) -> float:
        """One run of ``harness compare`` of the cell, in these settings, timed as the shell sees it."""
        argv = [
            sys.executable, "-m", "harness", "--root", str(self.root), "compare", "--n", str(bench_cell.n),
            "--port", port.name, "--method", bench_cell.method, *self.settings.arguments(), "--format", "plain",
        ]
        environment = {**os.environ, **({"HANOI_PG_DSN": self.dsn} if self.dsn else {})}
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, env=environment, timeout=self.settings.timeout + self.settings.build_seconds + 60)
        seconds = time.perf_counter() - started
        if done.returncode != 0:
            said = (done.stdout + done.stderr).decode(errors="replace").strip().splitlines()
            raise BenchError(f"harness compare of the cell exited with {done.returncode}: {said[-1] if said else 'nothing said'}")
        return seconds

    def _startup(self, port: Port, bench_cell: BenchCell) -> float:
        """What ``harness compare`` adds to a run of this port and method whatever n: at the smallest
        n the port takes, the median whole process less the median port alone (once a port and method)."""
        key = (port.name, bench_cell.method)
        if key not in self._startups:
            program = port.program(bench_cell.method)
            small = BenchCell(port.name, bench_cell.method, next((n for n in range(GATE_N + 1) if not program.refuses(n)), GATE_N))
            if bench_cell.n == small.n:  # this cell is that run: its own figures, not as many runs again
                alone, through = statistics.median(run.wall for run in bench_cell.runs), statistics.median(bench_cell.through_compare)
            else:
                alone = statistics.median(self._run(port, program, small).wall for _ in range(self.repeat))
                through = statistics.median(self._through_compare(port, small) for _ in range(self.repeat))
            self._startups[key] = max(through - alone, 0.0)
        return self._startups[key]

    def _to_devnull(self, port: Port, program: Program, bench_cell: BenchCell) -> float | None:
        """One run of the port's own program through the gate, as its cells run, its output sent to
        /dev/null by the shell that starts it, timed from its start to its end; None for a query,
        which prints to the harness whatever it does."""
        if program.query is not None:
            return None
        started = time.perf_counter()
        with self.gate.start(port, bench_cell.method, bench_cell.n, self.settings, discard=True) as runner:
            for _ in runner.output():
                pass
            finish = runner.finish()
        seconds = time.perf_counter() - started
        if failure := _failure(finish, self.settings.timeout):
            raise BenchError(f"the port, writing to /dev/null: {failure}")
        return seconds

    def _run(self, port: Port, program: Program, bench_cell: BenchCell, copy: BinaryIO | None = None) -> Run:
        """Run the cell once through the runner ``compare`` uses, its output going to a counting sink
        (and to ``copy``, if given): its moves counted by the format's counter where it has one, nothing
        read. The wall time runs from the runner's start to the port's end; CPU and peak memory are
        what the runner measured."""
        counter = reader_module(READERS[program.output.format].load()).counter(program.output)
        timeout = self.settings.timeout
        with self.gate.start(port, bench_cell.method, bench_cell.n, self.settings) as runner:
            started = runner.deadline - timeout
            for block in runner.output():
                if counter:
                    counter.take(block)
                if copy:
                    copy.write(block)
            finish = runner.finish()
            wall = time.monotonic() - started
        if failure := _failure(finish, timeout):
            raise BenchError(failure)
        peak = finish.usage.peak_bytes
        return Run(counter.moves if counter else None, wall, finish.usage.cpu_seconds, peak / (1 << 20) if peak else None)

    def _harness_reading(self, port: Port, program: Program, bench_cell: BenchCell) -> tuple[Cell, float]:
        """The harness's normalise + verify on this cell's output, captured to a file first so that
        only the harness's work is timed: its verdict, as compare's, and its seconds."""
        with tempfile.TemporaryFile(prefix="hanoi-bench-") as captured:
            self._run(port, program, bench_cell, copy=captured)
            captured.seek(0)
            started = time.perf_counter()
            cell = judge_output(port, bench_cell.method, bench_cell.n, _blocks(captured))
            seconds = time.perf_counter() - started
        return cell, seconds


def _failure(finish: Finish, timeout: float) -> str | None:
    """Why a timed run failed, if it did, with its evidence: a limit it crossed, the time-out (which the
    kill that ends it would otherwise be taken for: "killed by SIGKILL"), or how it ended."""
    failure = finish.limit or (f"timed out after {timeout:g} s" if finish.timed_out else None) or finish.failure
    return failure and (f"{failure}; {finish.evidence}" if finish.evidence else failure)


def _blocks(captured: BinaryIO) -> Iterator[bytes]:
    while block := captured.read(CHUNK):
        yield block


def _rate(value: float | None) -> str:
    return "–" if not value else f"{value / 1e6:.2f} M" if value >= 1e6 else f"{value / 1e3:.0f} k"


def render_bench(console: Console, cells: Sequence[BenchCell], figures: dict[str, Any]) -> None:
    """The timed cells, a row each and a section a port; the summary of :func:`catalogue`, a section
    a method; why each port and method not timed was not, on a line of its own, so that no column
    is widened by it; and where the figures come from. Twenty-five ports read as well as five. Off a
    terminal (a file, a pipe, a CI log), where rich would wrap everything at 80 columns, nothing is
    wrapped: each table is as wide as it needs, each line one line. Merged figures have no cells
    of this run: their summary alone."""
    piped = not console.is_terminal
    entries = catalogue(figures)
    tables = ((_cells_table(cells, figures["repeat"]),) if cells else ()) + (_catalogue_table(entries),)
    if piped:
        console.width = max(console.width, *(console.measure(table, options=console.options.update_width(1 << 16)).maximum for table in tables))
    for table in tables:
        console.print(table)
    for port, methods, status, reason in not_timed(entries):
        style = "yellow" if status is BenchStatus.NOT_TIMED else "magenta"
        console.print(f"[{style}]{literal(port)} ({', '.join(methods)}): {literal(reason)}[/]", highlight=False, soft_wrap=piped)
    if figures.get("missing"):
        console.print(f"[magenta]No figures for: {literal(', '.join(figures['missing']))}[/]", highlight=False, soft_wrap=piped)
    for sentence in provenance(figures):
        console.print(f"[dim]{literal(sentence)}[/]", highlight=False, soft_wrap=piped)
    for port, found in figures["versions"].items():
        console.print(f"[dim]{literal(port)}: {literal(versions_line(found))}[/]", highlight=False, soft_wrap=piped)


def _cells_table(cells: Sequence[BenchCell], repeat: int) -> Table:
    """The timed cells, medians of the runs, narrow enough for a terminal: the port's name once, atop
    its section; the ranges, the ratios and the start-ups are in the JSON figures."""
    table = Table(title=f"Tower of Hanoi benchmark: median of {repeat} runs after a warm-up", title_justify="left")
    for column in ("port", "method", "n", "moves", "wall s", "CPU s", "peak MB", "moves/s", "reading moves/s", "compare s"):
        table.add_column(column, justify="left" if column in ("port", "method") else "right", no_wrap=column in ("port", "method"))
    timed = [cell for cell in cells if cell.status is BenchStatus.TIMED]
    for before, cell in zip([None, *timed], timed):
        first = before is None or before.port != cell.port
        if first and before is not None:
            table.add_section()
        table.add_row(
            literal(cell.port) if first else "", cell.method, str(cell.n), f"{cell.moves:,}", figure(cell.median("wall")),
            figure(cell.median("cpu")), figure(cell.median("peak_mb")), _rate(cell.moves_per_second), _rate(cell.harness_moves_per_second),
            figure(cell.compare_seconds),
        )
    return table


def _catalogue_table(entries: Sequence[Entry]) -> Table:
    """The summary: a section a method, its ports fastest first, then those not timed, by name."""
    table = Table(title="Each port and method at its largest n: the port alone, its start-up and the harness's reading", title_justify="left")
    for column in ("method", "port", *SUMMARY_COLUMNS[1:]):
        table.add_column(column, justify="left" if column in ("method", "port") else "right", no_wrap=column in ("method", "port"))
    for method, group in itertools.groupby(entries, key=lambda entry: entry.method):
        if table.row_count:
            table.add_section()
        for index, entry in enumerate(group):
            table.add_row(method if index == 0 else "", literal(entry.port), *summary_row(entry, markup=True)[1:])
    return table


PLOT_WIDTH = 520
"""The log axis's length in the plot, in pixels, whatever the number of ports: each adds a row."""
ROW = 18
CHAR_WIDTH = 7
"""About the width of a character of the plot's 12 px sans-serif, to leave room for the longest name."""
LABEL_CHARS = 24
"""The most of a port's name a row shows; a longer one is cut, and whole in the row's tooltip."""
COLOURS = {"port": "#4477aa", "start-up": "#222222", "reading": "#ee7733", "fault": "#aa3377", "not timed": "#666666"}
"""From Paul Tol's bright scheme, told apart by those who do not see every colour."""


def bench_svg(figures: dict[str, Any]) -> str:
    """The summary as a plot, in plain SVG that needs nothing but the harness to write and any browser
    to show: a panel a method, a bar a port, fastest first, its length the port's time at the
    largest n on a log scale the panels share, its start-up marked by a line and the harness's reading
    by a diamond; a port not timed is named with why. The same figures give the same bytes."""
    entries = catalogue(figures)
    shown = [value for entry in entries for value in (entry.seconds, entry.startup, entry.reading) if value and value > 0]
    low = max(math.floor(math.log10(min(shown, default=1e-3))), -9)
    high = max(math.ceil(math.log10(max(shown, default=1.0))), low + 1)
    left = 16 + CHAR_WIDTH * max((len(_cut(entry.port)) for entry in entries), default=8)
    said = provenance(figures)
    width = max(left + PLOT_WIDTH + 150, 32 + CHAR_WIDTH * max(map(len, said)))  # no sentence cut at the edge

    def at(seconds: float) -> float:
        return left + PLOT_WIDTH * (max(math.log10(seconds), low) - low) / (high - low)

    top = y = 84 + 16 * len(said)
    rows: list[str] = []
    for title, group in by_method(entries):
        rows.append(f'<text x="{left}" y="{y + 14}" font-weight="bold">{_xml(title)}</text>')
        y += 22
        for entry in group:
            rows.append(_plot_row(entry, y + ROW / 2, left, at))
            y += ROW
        y += 12
    axis = [
        f'<line x1="{at(10.0 ** e):.1f}" y1="{top}" x2="{at(10.0 ** e):.1f}" y2="{y}" stroke="#dddddd"/>'
        + f'<text x="{at(10.0 ** e):.1f}" y="{top - 6}" text-anchor="middle">{_decade(e)}</text>'
        + f'<text x="{at(10.0 ** e):.1f}" y="{y + 16}" text-anchor="middle">{_decade(e)}</text>'
        for e in range(low, high + 1)
    ]
    height = y + 44
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        'font-family="sans-serif" font-size="12" role="img" aria-labelledby="title">',
        f'<title id="title">{PLOT_TITLE}</title>',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text x="16" y="26" font-size="16" font-weight="bold">{PLOT_TITLE}</text>',
        *(f'<text x="16" y="{46 + 16 * index}" fill="#444444">{_xml(sentence)}</text>' for index, sentence in enumerate(said)),
        _legend(16, top - 28),
        *axis,
        *rows,
        f'<text x="{left + PLOT_WIDTH / 2:.1f}" y="{y + 34}" text-anchor="middle">seconds, log scale</text>',
        "</svg>",
        "",
    ])


PLOT_TITLE = "Tower of Hanoi: each port's seconds at its largest n, log scale"


def _plot_row(entry: Entry, middle: float, left: int, at: Callable[[float], float]) -> str:
    """One port's row: its name, then its bar and marks with the figures in its tooltip, or why it has none."""
    name = f'<text x="{left - 8}" y="{middle + 4:.1f}" text-anchor="end">{_xml(_cut(entry.port))}</text>'
    if entry.status is not BenchStatus.TIMED or entry.seconds is None:
        colour = COLOURS["not timed" if entry.status is BenchStatus.NOT_TIMED else "fault"]
        why = f"{entry.status.value}: {brief(entry.detail, 90)}"
        return f'<g><title>{_xml(f"{entry.port}, {entry.method}: {one_line(entry.detail)}")}</title>{name}' + (
            f'<text x="{left + 4}" y="{middle + 4:.1f}" fill="{colour}">{_xml(why)}</text></g>'
        )
    tip = f"{entry.port}, {entry.method}, n = {entry.n}: {figure(entry.seconds, entry.spread, markup=False)} s"
    tip += f"; start-up {figure(entry.startup)} s; the harness's reading {figure(entry.reading)} s"
    end = at(entry.seconds)
    parts = [
        f'<g><title>{_xml(tip)}</title>{name}',
        f'<rect x="{left}" y="{middle - 5.5:.1f}" width="{max(end - left, 1):.1f}" height="11" fill="{COLOURS["port"]}"/>',
    ]
    if entry.startup:
        x = at(entry.startup)
        parts.append(f'<line x1="{x:.1f}" y1="{middle - 8:.1f}" x2="{x:.1f}" y2="{middle + 8:.1f}" stroke="{COLOURS["start-up"]}" stroke-width="2"/>')
    if entry.reading:
        parts.append(_diamond(at(entry.reading), middle))
    furthest = max(at(value) for value in (entry.seconds, entry.startup, entry.reading) if value)
    parts.append(f'<text x="{furthest + 10:.1f}" y="{middle + 4:.1f}">{figure(entry.seconds)} s</text></g>')
    return "".join(parts)


def _diamond(x: float, middle: float) -> str:
    return f'<path d="M{x:.1f} {middle - 6:.1f}l6 6-6 6-6-6z" fill="{COLOURS["reading"]}" stroke="#ffffff"/>'


def _legend(x: int, y: int) -> str:
    """What the bar, the line and the diamond stand for, on one line."""
    return "".join([
        f'<rect x="{x}" y="{y - 9}" width="18" height="11" fill="{COLOURS["port"]}"/>',
        f'<text x="{x + 24}" y="{y}">the port at its largest n, through a pipe</text>',
        f'<line x1="{x + 292}" y1="{y - 11}" x2="{x + 292}" y2="{y + 3}" stroke="{COLOURS["start-up"]}" stroke-width="2"/>',
        f'<text x="{x + 300}" y="{y}">its start-up, at n = 0</text>',
        _diamond(x + 462, y - 4),
        f'<text x="{x + 474}" y="{y}">the harness reading its output</text>',
    ])


def _decade(exponent: int) -> str:
    """10^exponent seconds as an axis labels it: 1 ms, 10 s."""
    scale, unit = next((scale, unit) for scale, unit in ((0, "s"), (-3, "ms"), (-6, "µs"), (-9, "ns")) if exponent >= scale)
    return f"{10 ** (exponent - scale):,} {unit}"


def _cut(name: str) -> str:
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def _xml(text: str) -> str:
    """Text from a port as SVG text: visible, and no markup."""
    return html.escape(visible(text))


def largest(cells: Sequence[BenchCell]) -> list[BenchCell]:
    """Each port and method's timed cell at its largest n, in the order of the cells."""
    timed = [cell for cell in cells if cell.status is BenchStatus.TIMED]
    top = {(cell.port, cell.method): cell for cell in sorted(timed, key=lambda cell: cell.n)}
    return [cell for cell in timed if top[(cell.port, cell.method)] is cell]


def bench_to_json(cells: Sequence[BenchCell], machine: dict[str, Any], versions: Versions, repeat: int) -> dict[str, Any]:
    """The figures as data: every run, the machine and the versions they come from; ``largest_n``
    marks each port and method's cell at its largest n."""
    top = largest(cells)
    return {
        "harness": __version__,
        "machine": machine,
        "versions": versions,
        "gate_n": GATE_N,
        "repeat": repeat,
        "cells": [
            {
                "port": cell.port, "method": cell.method, "n": cell.n, "status": cell.status.value, "detail": cell.detail,
                "moves": cell.moves, "runs": [asdict(run) for run in cell.runs],
                "wall_median": cell.median("wall"), "wall_range": cell.spread("wall"),
                "cpu_median": cell.median("cpu"), "peak_mb_median": cell.median("peak_mb"),
                "moves_per_second": cell.moves_per_second,
                "devnull_runs": cell.to_devnull, "devnull_median": cell.devnull_seconds,
                "harness_seconds": cell.harness_seconds, "harness_moves_per_second": cell.harness_moves_per_second,
                "reading_ratio": cell.reading_ratio, "largest_n": cell in top,
                "compare_runs": cell.through_compare, "compare_median": cell.compare_seconds, "ratio": cell.ratio,
                "startup_seconds": cell.startup, "load_average": cell.load,
            }
            for cell in cells
        ],
    }

