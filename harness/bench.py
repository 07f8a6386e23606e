"""How fast each port is, and how fast the harness reads what it prints.

Each (port, method) is timed only after it passes at a small n (the correctness gate). A timed run
sends the port's output to a counting sink, so its figures are the port's alone: wall and CPU
seconds and peak RSS (for a port in PostgreSQL, the server process that runs its query). The
harness's own throughput is then measured on the same output, captured once and read back through
the very code ``compare`` uses.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import tempfile
import threading
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Sequence

import psycopg
from psycopg import sql
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness import __version__
from harness.build import BuildFailed, build
from harness.discover import Port, Program
from harness.evaluate import evaluate, judge_output, too_many_moves
from harness.model import METHODS, Outcome
from harness.postgres import Database, Unavailable, rows_as_lines, statement
from harness.run import feed, kill_group

GATE_N = 5
CHUNK = 1 << 20


@dataclass
class Run:
    """One timed run of a port: its moves and what it cost."""

    moves: int
    wall: float
    cpu: float | None
    peak_rss_mb: float | None


@dataclass
class BenchCell:
    """One (port, method, n): its runs after a warm-up, or why it was not timed."""

    port: str
    method: str
    n: int
    status: str = "timed"  # timed, or not timed: failed the gate, too many moves, error
    detail: str = ""
    runs: list[Run] = field(default_factory=list)
    harness_seconds: float | None = None
    through_compare: list[float] = field(default_factory=list)
    """Wall seconds of the same cell run as ``compare`` runs it: the port, and the harness reading it."""

    @property
    def moves(self) -> int:
        return self.runs[0].moves if self.runs else 0

    def median(self, figure: str) -> float | None:
        values = [getattr(run, figure) for run in self.runs if getattr(run, figure) is not None]
        return statistics.median(values) if values else None

    def spread(self, figure: str) -> tuple[float, float] | None:
        values = [getattr(run, figure) for run in self.runs if getattr(run, figure) is not None]
        return (min(values), max(values)) if values else None

    @property
    def moves_per_second(self) -> float | None:
        wall = self.median("wall")
        return self.moves / wall if wall else None

    @property
    def harness_moves_per_second(self) -> float | None:
        return self.moves / self.harness_seconds if self.harness_seconds else None

    @property
    def compare_seconds(self) -> float | None:
        return statistics.median(self.through_compare) if self.through_compare else None

    @property
    def ratio(self) -> float | None:
        """How much longer the cell takes through ``compare`` than the port alone."""
        alone, through = self.median("wall"), self.compare_seconds
        return through / alone if alone and through else None


class BenchError(Exception):
    """A timed run that went wrong: the message says how."""


def bench(
    ports: list[Port],
    methods: list[str],
    ns: list[int],
    repeat: int,
    max_moves: int,
    timeout: float,
    database: Database,
    on_done: Callable[[BenchCell], None] | None = None,
) -> list[BenchCell]:
    """Every cell, one after another (cells run side by side would slow each other down)."""
    cells = []
    for port in ports:
        for method in methods:
            gate = _gate(port, method, timeout, database)
            for n in ns:
                cell = BenchCell(port.name, method, n)
                reason = gate or too_many_moves(method, n, max_moves)
                if reason:
                    cell.status, cell.detail = "not timed", reason
                else:
                    _time(cell, port, method, n, repeat, timeout, database)
                cells.append(cell)
                if on_done:
                    on_done(cell)
    return cells


def _gate(port: Port, method: str, timeout: float, database: Database) -> str | None:
    """Why the cell may not be timed, if it may not: it must first pass at a small n."""
    cell = evaluate(port, method, GATE_N, timeout, database=database)
    if cell.outcome is Outcome.PASS:
        return None
    return f"{cell.outcome.value} at n={GATE_N}, so not timed: {cell.detail.splitlines()[0] if cell.detail else ''}".rstrip(": ")


def _time(cell: BenchCell, port: Port, method: str, n: int, repeat: int, timeout: float, database: Database) -> None:
    program = port.program(method)
    try:
        runner = _runner(port, program, method, n, timeout, database)
        runner(None)  # warm-up: caches, the build, the server's plan
        cell.runs = [runner(None) for _ in range(repeat)]
        expected = METHODS[method].optimal_count(n)
        if _counted(program) and cell.moves != expected:
            raise BenchError(f"printed {cell.moves:,} moves, not {expected:,}")
        cell.harness_seconds, moves = _harness_seconds(port, method, n, runner)
        for run in cell.runs:  # where the sink could not tell moves from other lines, the harness did
            run.moves = moves
        cell.through_compare = [_through_compare(port, method, n, timeout, database) for _ in range(repeat)]
    except (BenchError, BuildFailed, Unavailable, OSError, psycopg.Error) as error:
        cell.status, cell.detail, cell.runs = "error", str(error), []


def _through_compare(port: Port, method: str, n: int, timeout: float, database: Database) -> float:
    """One run of the cell exactly as ``compare`` makes it, timed from start to verdict."""
    started = time.perf_counter()
    cell = evaluate(port, method, n, timeout, database=database)
    seconds = time.perf_counter() - started
    if cell.outcome is not Outcome.PASS:
        raise BenchError(f"through compare, the cell ended {cell.outcome.value}: {cell.detail}")
    return seconds


def _counted(program: Program) -> bool:
    """Whether the counting sink counts this program's moves: one a row, a line or a drawing, and
    nothing else printed; for other output (states, lines skipped or split) the harness counts them."""
    output = program.output
    return output.format != "states" and not output.ignore and output.separator is None


def _runner(port: Port, program: Program, method: str, n: int, timeout: float, database: Database) -> Callable[[Path | None], Run]:
    """A function that runs the cell once, counting its moves, and copying its output to a file if given one."""
    if program.query is not None:
        database.prepare(program.query)
        query = statement(program.query, method, n)
        return lambda copy: _run_query(database.dsn(), query, timeout, copy)
    argv = program.argv(method, n, build(port, program, method, n, timeout))
    drawings, stdin = program.output.format == "drawings", program.stdin(method, n)
    return lambda copy: _run_program(argv, port.folder, timeout, drawings, stdin, copy)


def _run_program(argv: list[str], folder: Path, timeout: float, drawings: bool, stdin: bytes | None, copy: Path | None) -> Run:
    """Run the program with its output going to a counting sink: the pipe read in large blocks and its
    line endings counted, nothing more. CPU and peak RSS come from the kernel, when the process is reaped."""
    started = time.perf_counter()
    process = subprocess.Popen(
        argv, cwd=folder, stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )
    feed(process, stdin)
    timed_out = threading.Event()

    def expire() -> None:
        timed_out.set()
        kill_group(process.pid)

    timer = threading.Timer(timeout, expire)
    timer.start()
    sampler = _PeakRss(process.pid, argv)
    lines = blank = 0
    last = b""
    assert process.stdout is not None and process.stderr is not None
    stderr = threading.Thread(target=process.stderr.read, daemon=True)
    stderr.start()
    with open(copy, "wb") if copy else nullcontext() as out:
        fd = process.stdout.fileno()
        while block := os.read(fd, CHUNK):
            lines += block.count(b"\n")
            if drawings:  # a blank line ends each drawing: count "\n\n", across blocks too
                blank += block.count(b"\n\n") + (last == b"\n" and block[:1] == b"\n")
                last = block[-1:]
            if out:
                out.write(block)
    peak = sampler.stop()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    timer.cancel()
    stderr.join()
    process.stdout.close()
    process.stderr.close()
    if timed_out.is_set():
        raise BenchError(f"timed out after {timeout:g} s")
    if process.returncode:
        raise BenchError(f"{argv[0]} exited with code {process.returncode}")
    moves = blank - 1 if drawings else lines
    return Run(moves, wall, usage.ru_utime + usage.ru_stime, peak)


class _PeakRss:
    """The peak resident memory of a process and its descendants, sampled from /proc every few
    milliseconds while it runs. (The kernel's own figure, ru_maxrss, is no use here: it counts the
    harness's memory too, inherited in the moment between fork and exec.) Samples start once the
    process runs the port's program, and take the larger of the tree's summed VmRSS and the main
    process's VmHWM, its high-water mark."""

    INTERVAL = 0.003

    def __init__(self, pid: int, argv: list[str]):
        self._pid, self._cmdline = pid, ("\0".join(argv) + "\0").encode()
        self._peak_kb = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)
        self._thread.start()

    def stop(self) -> float | None:
        """Stop sampling (the process has closed its output) and give the peak in MB."""
        self._sample_once()
        self._done.set()
        self._thread.join()
        return self._peak_kb / 1024 if self._peak_kb else None

    def _sample(self) -> None:
        while not self._done.wait(self.INTERVAL):
            self._sample_once()

    def _sample_once(self) -> None:
        try:
            if Path(f"/proc/{self._pid}/cmdline").read_bytes() != self._cmdline:
                return  # not yet the port: the harness's copy before exec, or already gone
            hwm = _status_kb(self._pid, "VmHWM:")
        except OSError:
            return
        tree = sum(_status_kb(pid, "VmRSS:") for pid in _tree(self._pid))
        self._peak_kb = max(self._peak_kb, hwm, tree)


def _tree(pid: int) -> list[int]:
    """The process and all its descendants, as /proc lists them now."""
    found, pending = [], [pid]
    while pending:
        current = pending.pop()
        found.append(current)
        try:  # a process may end at any moment; what has gone holds no memory
            for task in Path(f"/proc/{current}/task").glob("*/children"):
                pending.extend(int(child) for child in task.read_text().split())
        except OSError:
            pass
    return found


def _status_kb(pid: int, key: str) -> int:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith(key)), 0)


def _run_query(dsn: str, query: sql.Composed, timeout: float, copy: Path | None) -> Run:
    """Run the query on a fresh connection, so a fresh server process runs it, and count its rows as
    they are fetched. CPU and peak RSS are that server process's, read from /proc while it still
    lives; None where the server is on another machine."""
    started = time.perf_counter()
    rows = 0
    with psycopg.connect(dsn, options=f"-c statement_timeout={int(timeout * 1000)}") as connection:
        backend = connection.info.backend_pid
        cpu_before = _proc_cpu(backend)
        with open(copy, "wb") if copy else nullcontext() as out:
            for block in rows_as_lines(connection, query):
                rows += block.count(b"\n")
                if out:
                    out.write(block)
        cpu_after, peak = _proc_cpu(backend), _status_kb(backend, "VmHWM:") / 1024 or None
    wall = time.perf_counter() - started
    cpu = cpu_after - cpu_before if cpu_before is not None and cpu_after is not None else None
    return Run(rows, wall, cpu, peak)


def _proc_cpu(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _harness_seconds(port: Port, method: str, n: int, runner: Callable[[Path | None], Run]) -> tuple[float, int]:
    """The harness's normalise + verify on this cell's output, captured to a file first so that only
    the harness's work is timed, and the moves it read; the cell must pass, as in compare."""
    with tempfile.TemporaryDirectory(prefix="hanoi-bench-") as folder:
        copy = Path(folder) / "output"
        runner(copy)
        with open(copy, "rb") as captured:
            started = time.perf_counter()
            cell = judge_output(port, method, n, _blocks(captured))
            seconds = time.perf_counter() - started
    if cell.outcome is not Outcome.PASS:
        raise BenchError(f"its output at n={n} does not verify: {cell.detail}")
    return seconds, cell.moves


def _blocks(captured) -> Iterator[bytes]:
    while block := captured.read(CHUNK):
        yield block


def _figure(value: float | None, spread: tuple[float, float] | None = None, unit: str = "") -> str:
    if value is None:
        return "–"
    text = f"{value:.3g}{unit}"
    return text + (f" [dim]({spread[0]:.3g}–{spread[1]:.3g})[/]" if spread and len(set(spread)) > 1 else "")


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value / 1e6:.2f} M" if value >= 1e6 else f"{value / 1e3:.0f} k"


def render_bench(console: Console, cells: Sequence[BenchCell], machine: dict, versions: dict[str, dict[str, str | None]], repeat: int) -> None:
    """The timings, a row a cell: medians of the runs, with their range."""
    table = Table(title=f"Tower of Hanoi benchmark: median of {repeat} runs after a warm-up (range)", title_justify="left")
    columns = ("port", "method", "n", "moves", "wall s", "CPU s", "peak RSS MB", "moves/s", "harness moves/s", "compare s", "ratio")
    for column in columns:
        table.add_column(column, justify="left" if column in ("port", "method") else "right")
    for cell in cells:
        if cell.status != "timed":
            style = "yellow" if cell.status == "not timed" else "magenta"
            table.add_row(cell.port, cell.method, str(cell.n), f"[{style}]{cell.status}: {escape(cell.detail)}[/]")
            continue
        table.add_row(
            cell.port, cell.method, str(cell.n), f"{cell.moves:,}",
            _figure(cell.median("wall"), cell.spread("wall")), _figure(cell.median("cpu")),
            _figure(cell.median("peak_rss_mb"), cell.spread("peak_rss_mb")),
            _rate(cell.moves_per_second), _rate(cell.harness_moves_per_second),
            _figure(cell.compare_seconds), f"{cell.ratio:.2f}" if cell.ratio else "–",
        )
    console.print(table)
    console.print(
        f"[dim]{machine['cpu']}, {machine['cores']} cores, {machine['os']}, Python {machine['python']}, "
        f"commit {machine['commit']}[/]", highlight=False
    )
    for port, found in versions.items():
        console.print(f"[dim]{port}: {', '.join(v or k for k, v in found.items())}[/]", highlight=False)


def bench_to_json(cells: Sequence[BenchCell], machine: dict, versions: dict[str, dict[str, str | None]], repeat: int) -> dict:
    """The figures as data: every run, the machine and the versions they come from."""
    return {
        "harness": __version__,
        "machine": machine,
        "versions": versions,
        "gate_n": GATE_N,
        "repeat": repeat,
        "cells": [
            {
                "port": cell.port, "method": cell.method, "n": cell.n, "status": cell.status, "detail": cell.detail,
                "moves": cell.moves, "runs": [asdict(run) for run in cell.runs],
                "wall_median": cell.median("wall"), "wall_range": cell.spread("wall"),
                "cpu_median": cell.median("cpu"), "peak_rss_mb_median": cell.median("peak_rss_mb"),
                "moves_per_second": cell.moves_per_second,
                "harness_seconds": cell.harness_seconds, "harness_moves_per_second": cell.harness_moves_per_second,
                "compare_runs": cell.through_compare, "compare_median": cell.compare_seconds, "ratio": cell.ratio,
            }
            for cell in cells
        ],
    }


def plot_bench(path: str, cells: Sequence[BenchCell], machine: dict) -> None:
    """Median wall time against n on a log scale, one panel a method, one line a port."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    methods = list(dict.fromkeys(cell.method for cell in cells))
    figure, axes = pyplot.subplots(1, len(methods), figsize=(4.5 * len(methods), 4.2), squeeze=False, sharey=True)
    for axis, method in zip(axes[0], methods):
        timed = [cell for cell in cells if cell.method == method and cell.status == "timed"]
        for port in dict.fromkeys(cell.port for cell in timed):
            points = sorted((cell.n, cell.median("wall")) for cell in timed if cell.port == port)
            axis.plot([n for n, _ in points], [wall for _, wall in points], marker="o", label=port)
        axis.set_yscale("log")
        axis.set_title(method)
        axis.set_xlabel("discs (n)")
        axis.grid(True, which="both", alpha=0.3)
        if timed:
            axis.legend(fontsize="small")
    axes[0][0].set_ylabel("median wall time (s), log scale")
    figure.suptitle(f"hanoi-polyglot: {machine['cpu']}, {machine['cores']} cores", fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)
