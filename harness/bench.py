"""How fast each port is, how fast the harness reads what it prints, and what a user waits for.

Each (port, method) is timed only after it passes at a small n (the correctness gate). A timed run
starts the port through the same runner ``compare`` uses, in the same isolation and limits, but
sends its output to a counting sink, so its figures are the port's alone: wall and CPU seconds and
peak memory, as the runner measured them (for a port in PostgreSQL, the server process that runs
its query). The harness's own throughput is then measured on the same output, captured once and
read back through the very code ``compare`` uses. Last, the cell runs as a user runs it:
``harness compare`` as a whole process, from its start to its exit; and the start-up, what the
harness adds to a run of the port whatever n, is that at the smallest n less the port alone there.
Where the port is a program run here (not a query, not in a container), it is also timed with its
output going straight to /dev/null: what printing costs it when nobody reads, beside what a reader
of the pipe, any reader, must wait for.
"""

from __future__ import annotations

import enum
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
from harness.evaluate import evaluate, judge_output
from harness.gate import Gate
from harness.model import METHODS, Outcome
from harness.port import Port, Program
from harness.readers import READERS
from harness.report import Versions
from harness.report.terminal import literal
from harness.settings import Settings

GATE_N = 5
CHUNK = 1 << 20


class BenchStatus(str, enum.Enum):
    """Whether a bench cell was timed, and if not, why not."""

    TIMED = "timed"
    NOT_TIMED = "not timed"  # it failed the gate, or has too many moves
    ERROR = "error"


@dataclass
class Run:
    """One timed run of a port: its moves and what it cost."""

    moves: int
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

    @property
    def moves(self) -> int:
        """The moves one run printed."""
        return self.runs[0].moves if self.runs else 0

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


def bench(
    ports: list[Port], settings: Settings, repeat: int, gate: Gate,
    root: Path, dsn: str | None = None, on_done: Callable[[BenchCell], None] | None = None,
) -> list[BenchCell]:
    """Every cell of ``settings``' ports, methods and n, one after another (cells run side by side
    would slow each other down), each timed ``repeat`` times after a warm-up; ``harness compare``
    runs on the ports under ``root``, with ``dsn`` for its server if one is given."""
    timer = _Timer(settings, repeat, gate, root, dsn)
    cells = []
    for port in ports:
        for method in settings.methods:
            untimed = timer.untimed(port, method)
            for n in settings.ns:
                cell = BenchCell(port.name, method, n)
                reason = untimed or settings.too_many_moves(method, n)
                if reason:
                    cell.status, cell.detail = BenchStatus.NOT_TIMED, reason
                else:
                    timer.time(cell, port)
                cells.append(cell)
                if on_done:
                    on_done(cell)
    return cells


class _Timer:
    """Times cells through the runners ``compare`` uses, in the run's isolation and limits."""

    def __init__(
        self, settings: Settings, repeat: int, gate: Gate, root: Path, dsn: str | None,
    ) -> None:
        self.settings, self.repeat, self.gate = settings, repeat, gate
        self.root, self.dsn = root, dsn
        self._startups: dict[tuple[str, str], float] = {}

    def untimed(self, port: Port, method: str) -> str | None:
        """Why the cell may not be timed, if it may not: it must first pass at a small n."""
        cell = evaluate(port, method, GATE_N, self.settings, self.gate)
        if cell.outcome is Outcome.PASS:
            return None
        return f"{cell.outcome.value} at n={GATE_N}, so not timed: {cell.detail.splitlines()[0] if cell.detail else ''}".rstrip(": ")

    def time(self, cell: BenchCell, port: Port) -> None:
        """The cell's runs, the harness's reading of its output and its runs through compare; or why they failed."""
        program = port.program(cell.method)
        try:
            self._run(port, program, cell)  # warm-up: caches, the build, the server's plan
            for _ in range(self.repeat):  # in turns, so that both see the machine alike
                cell.runs.append(self._run(port, program, cell))
                seconds = self._to_devnull(port, program, cell)
                if seconds is not None:
                    cell.to_devnull.append(seconds)
            expected = METHODS[cell.method].optimal_count(cell.n)
            if READERS[program.output.format].load().counted(program.output) and cell.moves != expected:
                raise BenchError(f"printed {cell.moves:,} moves, not {expected:,}")
            cell.harness_seconds, moves = self._harness_seconds(port, program, cell)
            for run in cell.runs:  # where the sink could not tell moves from other lines, the harness did
                run.moves = moves
            cell.through_compare = [self._through_compare(port, cell) for _ in range(self.repeat)]
            cell.startup = self._startup(port, cell)
        except (CellError, BenchError, OSError, psycopg.Error, subprocess.TimeoutExpired) as error:
            cell.status, cell.detail, cell.runs, cell.to_devnull = BenchStatus.ERROR, str(error), [], []

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
        if finish.failure or finish.timed_out or finish.limit:
            raise BenchError(f"the port, writing to /dev/null, {finish.failure or finish.limit or 'timed out'}")
        return seconds

    def _run(self, port: Port, program: Program, bench_cell: BenchCell, copy: BinaryIO | None = None) -> Run:
        """Run the cell once through the runner ``compare`` uses, its output going to a counting sink
        (and to ``copy``, if given): the blocks' line endings counted, nothing more. The wall time
        runs from the runner's start to the port's end; CPU and peak memory are what the runner measured."""
        drawings = program.output.format == "drawings"
        lines = blank = 0
        last = b""
        timeout = self.settings.timeout
        with self.gate.start(port, bench_cell.method, bench_cell.n, self.settings) as runner:
            started = runner.deadline - timeout
            for block in runner.output():
                lines += block.count(b"\n")
                if drawings:  # a blank line ends each drawing: count "\n\n", across blocks too
                    blank += block.count(b"\n\n") + (last == b"\n" and block[:1] == b"\n")
                    last = block[-1:]
                if copy:
                    copy.write(block)
            finish = runner.finish()
            wall = time.monotonic() - started
        failure = finish.limit or (f"timed out after {timeout:g} s" if finish.timed_out else None) or finish.failure
        if failure:
            raise BenchError(failure if not finish.evidence else f"{failure}; {finish.evidence}")
        peak = finish.usage.peak_bytes
        return Run(blank - 1 if drawings else lines, wall, finish.usage.cpu_seconds, peak / (1 << 20) if peak else None)

    def _harness_seconds(self, port: Port, program: Program, bench_cell: BenchCell) -> tuple[float, int]:
        """The harness's normalise + verify on this cell's output, captured to a file first so that
        only the harness's work is timed, and the moves it read; the cell must pass, as in compare."""
        with tempfile.TemporaryFile(prefix="hanoi-bench-") as captured:
            self._run(port, program, bench_cell, copy=captured)
            captured.seek(0)
            started = time.perf_counter()
            cell = judge_output(port, bench_cell.method, bench_cell.n, _blocks(captured))
            seconds = time.perf_counter() - started
        if cell.outcome is not Outcome.PASS:
            raise BenchError(f"its output at n={bench_cell.n} does not verify: {cell.detail}")
        return seconds, cell.moves


def _blocks(captured: BinaryIO) -> Iterator[bytes]:
    while block := captured.read(CHUNK):
        yield block


def _figure(value: float | None, spread: tuple[float, float] | None = None, unit: str = "") -> str:
    if value is None:
        return "–"
    text = f"{value:.3g}{unit}"
    return text + (f" [dim]({spread[0]:.3g}–{spread[1]:.3g})[/]" if spread and len(set(spread)) > 1 else "")


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value / 1e6:.2f} M" if value >= 1e6 else f"{value / 1e3:.0f} k"


def render_bench(console: Console, cells: Sequence[BenchCell], machine: dict[str, Any], versions: Versions, repeat: int) -> None:
    """The timings, a row a cell: medians of the runs, with their range."""
    table = Table(title=f"Tower of Hanoi benchmark: median of {repeat} runs after a warm-up (range)", title_justify="left")
    columns = ("port", "method", "n", "moves", "wall s", "CPU s", "peak MB", "moves/s", "harness moves/s", "compare s", "ratio", "start-up s")
    for column in columns:
        table.add_column(column, justify="left" if column in ("port", "method") else "right")
    for cell in cells:
        if cell.status is not BenchStatus.TIMED:
            style = "yellow" if cell.status is BenchStatus.NOT_TIMED else "magenta"
            table.add_row(literal(cell.port), cell.method, str(cell.n), f"[{style}]{cell.status.value}: {literal(cell.detail)}[/]")
            continue
        table.add_row(
            literal(cell.port), cell.method, str(cell.n), f"{cell.moves:,}",
            _figure(cell.median("wall"), cell.spread("wall")), _figure(cell.median("cpu")),
            _figure(cell.median("peak_mb"), cell.spread("peak_mb")),
            _rate(cell.moves_per_second), _rate(cell.harness_moves_per_second),
            _figure(cell.compare_seconds), f"{cell.ratio:.2f}" if cell.ratio else "–", _figure(cell.startup),
        )
    console.print(table)
    console.print(_reading_table(cells))
    console.print(
        f"[dim]{machine['cpu']}, {machine['cores']} cores, {machine['os']}, Python {machine['python']}, "
        f"commit {machine['commit']}, --isolation {machine.get('isolation', 'subprocess')}[/]", highlight=False
    )
    for port, found in versions.items():
        console.print(f"[dim]{literal(port)}: {literal(', '.join(v or k for k, v in found.items()))}[/]", highlight=False)


def largest(cells: Sequence[BenchCell]) -> list[BenchCell]:
    """Each port and method's timed cell at its largest n, in the order of the cells."""
    timed = [cell for cell in cells if cell.status is BenchStatus.TIMED]
    top = {(cell.port, cell.method): cell for cell in sorted(timed, key=lambda cell: cell.n)}
    return [cell for cell in timed if top[(cell.port, cell.method)] is cell]


def _reading_table(cells: Sequence[BenchCell]) -> Table:
    """At each port and method's largest n: the port alone to /dev/null and through a pipe, the
    harness's reading of the same output, and how its time compares with the port's."""
    table = Table(title="The harness's reading beside the port, at each port and method's largest n", title_justify="left")
    columns = ("port", "method", "n", "moves", "to /dev/null s", "through a pipe s", "reading s", "reading moves/s", "reading / pipe")
    for column in columns:
        table.add_column(column, justify="left" if column in ("port", "method") else "right")
    for cell in largest(cells):
        table.add_row(
            literal(cell.port), cell.method, str(cell.n), f"{cell.moves:,}", _figure(cell.devnull_seconds), _figure(cell.median("wall")),
            _figure(cell.harness_seconds), _rate(cell.harness_moves_per_second), f"{cell.reading_ratio:.2f}" if cell.reading_ratio else "–",
        )
    return table


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
                "startup_seconds": cell.startup,
            }
            for cell in cells
        ],
    }


def plot_bench(file: BinaryIO, form: str, cells: Sequence[BenchCell], machine: dict[str, Any]) -> None:
    """Median wall time against n on a log scale, one panel a method, one line a port: the port alone
    through a pipe (solid), and the harness's reading of its output (dashed); written to ``file`` as
    ``form`` (svg or png)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    methods = list(dict.fromkeys(cell.method for cell in cells))
    figure, axes = pyplot.subplots(1, len(methods), figsize=(4.5 * len(methods), 4.2), squeeze=False, sharey=True)
    for axis, method in zip(axes[0], methods):
        timed = [cell for cell in cells if cell.method == method and cell.status is BenchStatus.TIMED]
        for port in dict.fromkeys(cell.port for cell in timed):
            points = sorted((cell.n, cell.median("wall"), cell.harness_seconds) for cell in timed if cell.port == port)
            line, = axis.plot([n for n, _, _ in points], [wall for _, wall, _ in points], marker="o", label=port)
            read = [(n, seconds) for n, _, seconds in points if seconds]
            axis.plot([n for n, _ in read], [seconds for _, seconds in read], marker="x", linestyle="--", color=line.get_color())
        axis.set_yscale("log")
        axis.set_title(method)
        axis.set_xlabel("discs (n)")
        axis.grid(True, which="both", alpha=0.3)
        if timed:
            axis.legend(fontsize="small")
    axes[0][0].set_ylabel("seconds, log scale: port (solid), harness reading (dashed)")
    figure.suptitle(f"hanoi-polyglot: {machine['cpu']}, {machine['cores']} cores", fontsize="small")
    figure.tight_layout()
    figure.savefig(file, format=form)
    pyplot.close(figure)
