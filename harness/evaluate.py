"""One cell end to end: run the port, read each line, play it on the board, digest it and walk it
beside the reference, all as the lines arrive, so memory stays flat however many moves there are.

Whatever goes wrong becomes the cell's outcome and detail; nothing here raises for a port's fault.
"""

from __future__ import annotations

import shlex
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait

from harness.errors import CellError
from harness.gate import Gate
from harness.model import OUTPUT_ATTEMPTS, Cell, Finish, Outcome, Reason
from harness.port import Port
from harness.reading import CellReading, LineSink, MoveSink
from harness.settings import CellKey, Settings

INTERRUPT_CHECK_SECONDS = 0.2
DEFAULTS = Settings()


def evaluate(
    port: Port,
    method: str,
    n: int,
    settings: Settings = DEFAULTS,
    gate: Gate | None = None,
    on_line: LineSink | None = None,
    on_move: MoveSink | None = None,
) -> Cell:
    """Run one (port, method, n) cell under ``settings`` (its timeout and strictness); ``on_line``
    sees each raw line (the run's secrets masked), ``on_move`` each verified move; a cell whose output
    was lost on its way is run again (OUTPUT_ATTEMPTS in all), but for one whose lines or moves were
    shown. A missing interpreter skips the cell, or
    with ``strict`` makes it an error. Everything runs through ``gate``: a program within the run's
    walls, a query in its PostgreSQL (without a gate, a gate of the settings' own, for this cell alone)."""
    if gate is None:
        with Gate(settings, ports=[port]) as own:
            return evaluate(port, method, n, settings, own, on_line, on_move)
    started = time.perf_counter()
    secrets = gate.secrets
    masked_line = (lambda line: on_line(secrets.mask(line))) if on_line else None
    shown = on_line is not None or on_move is not None  # what was shown of a lost output cannot be taken back
    for _ in range(1 if shown else OUTPUT_ATTEMPTS):  # the same cell again, while its output is lost on the way (Finish.lost)
        cell = Cell(port.name, method, n, pegs=peg_names(port, method))
        if not _play(cell, port, settings, gate, masked_line, on_move):
            break
    cell.seconds = time.perf_counter() - started
    cell.detail, cell.diff = secrets.mask(cell.detail), [secrets.mask(line) for line in cell.diff]
    return cell


def _play(cell: Cell, port: Port, settings: Settings, gate: Gate, on_line: LineSink | None, on_move: MoveSink | None) -> bool:
    """Run the cell and judge it; whether its output was lost on the way, so that it says nothing of the port."""
    refusal = _refusal(port, cell.method, cell.n, settings.strict, gate)
    if refusal:
        cell.outcome, cell.reason, cell.detail = refusal
        return False
    try:
        process = gate.start(port, cell.method, cell.n, settings)
    except CellError as error:
        cell.outcome, cell.reason, cell.detail = error.outcome, error.reason, str(error)
        return False
    reading = CellReading(cell, port.program(cell.method), on_line, on_move, process.deadline)
    with process:
        try:
            reading.read(process.output(), process.expired)
            if not reading.read_all:
                process.stop()
            finish = process.finish()
        except CellError as error:  # what runs the program stopped answering (a server, the engine)
            cell.outcome, cell.reason, cell.detail = error.outcome, error.reason, str(error)
            return False
    reading.judge(finish, settings.timeout)
    return finish.lost is not None


def judge_output(port: Port, method: str, n: int, blocks: Iterator[bytes], fast: bool = True) -> Cell:
    """Read and verify output captured earlier, exactly as a cell's is: the harness's own share of
    the work, without the port's (``fast=False``: every line read, as the slow path alone reads it)."""
    cell = Cell(port.name, method, n)
    reading = CellReading(cell, port.program(method), None, None, None, fast)
    reading.read(blocks, lambda: False)
    reading.judge(Finish(failure=None, timed_out=False, stopped=False, evidence=""), timeout=0)
    return cell


def peg_names(port: Port, method: str) -> tuple[str, ...] | None:
    """The port's names for the method's pegs, as its manifest gives them; None where it gives none to use."""
    return None if port.manifest_error or method not in port.methods else port.program(method).output.pegs


def install_command(port: Port) -> str:
    """The one command that installs what a port needs here."""
    return f"harness doctor --install --lang {shlex.quote(port.name)} installs it"


def _refusal(port: Port, method: str, n: int, strict: bool, gate: Gate) -> tuple[Outcome, Reason, str] | None:
    """Why the cell cannot run at all, if it cannot. In a container, the port's image brings its
    own interpreters, so those missing here do not matter."""
    if port.manifest_error:
        return Outcome.ERROR, Reason.MANIFEST, port.manifest_error
    if method not in port.methods:
        return Outcome.SKIPPED, Reason.NOT_OFFERED, f"{port.name} does not offer the {method} method"
    refused = port.program(method).refuses(n)
    if refused:
        return Outcome.SKIPPED, Reason.OUT_OF_RANGE, refused
    missing = gate.missing(port.program(method))
    if missing:
        requirement, why = missing
        detail = f"{why}; {install_command(port)}" + (f" ({requirement.advice})" if requirement.advice else "")
        return (Outcome.ERROR if strict else Outcome.SKIPPED), Reason.MISSING_INTERPRETER, detail
    refused = gate.refusal(port.program(method))
    if refused:
        return (Outcome.ERROR if strict else Outcome.SKIPPED), Reason.MISSING_INTERPRETER, refused
    return None


def evaluate_all(
    ports: Iterable[Port],
    settings: Settings,
    gate: Gate,
    on_done: Callable[[Cell], None] | None = None,
) -> list[Cell]:
    """Every cell of the settings' plan, ``settings.jobs`` at a time, returned in the plan's order.
    A cell with more moves than ``settings.max_moves`` is skipped, saying so; with
    ``settings.fail_fast``, once a cell fails or errors the cells not yet started are skipped.
    Interrupted (Ctrl-C, SIGTERM), each cell still running goes to ``on_done`` as interrupted
    (:func:`interrupted_cell`) before anything is stopped, whatever its port's ending would have
    said; then the interruption is raised."""
    by_name = {port.name: port for port in ports}
    failed = threading.Event()
    run = _Running(on_done)

    def one(key: CellKey) -> Cell:
        name, method, n = key
        too_many = settings.too_many_moves(method, n) if method in by_name[name].methods else None
        if too_many:
            cell = Cell(name, method, n, Outcome.SKIPPED, detail=too_many, reason=Reason.TOO_MANY_MOVES)
        elif failed.is_set():
            cell = Cell(name, method, n, Outcome.SKIPPED, detail="not run: --fail-fast, after an earlier cell failed", reason=Reason.NOT_RUN)
        else:
            if not run.begin(key):  # the run is interrupted: no cell starts now
                return interrupted_cell(key, 0.0)
            cell = evaluate(by_name[name], method, n, settings, gate)
        if settings.fail_fast and cell.outcome in (Outcome.FAIL, Outcome.ERROR):
            failed.set()
        return run.end(key, cell)

    pool = ThreadPoolExecutor(max_workers=max(1, settings.jobs))
    futures = [pool.submit(one, key) for key in settings.plan.cells()]
    try:
        # Wait in short steps: Ctrl-C may be delivered to a worker thread, and the main thread
        # only notices it when it wakes.
        while wait(futures, timeout=INTERRUPT_CHECK_SECONDS).not_done:
            pass
    except BaseException:  # Ctrl-C or SIGTERM: the running cells marked, no cell still to start, no port or query left running
        run.interrupt()
        pool.shutdown(wait=False, cancel_futures=True)
        gate.stop_all()
        raise
    pool.shutdown()
    return [future.result() for future in futures]


def interrupted_cell(key: CellKey, seconds: float) -> Cell:
    """A cell the run's interruption cut short: neither a pass nor a fault of its port."""
    name, method, n = key
    detail = f"interrupted after {seconds:.1f} s: the run was stopped before this cell finished"
    return Cell(name, method, n, Outcome.SKIPPED, seconds=seconds, detail=detail, reason=Reason.INTERRUPTED)


class _Running:
    """The cells under way, and the run's interruption flag. A cell's verdict is the flag's: one that
    ends before the run is interrupted is reported as it ended; one still running then is reported
    interrupted at that moment, and what its port does once it is stopped (a crash, no moves) is
    never read as its verdict. One lock orders the two, so no cell is reported twice or lost."""

    def __init__(self, on_done: Callable[[Cell], None] | None) -> None:
        self.on_done = on_done
        self.lock = threading.Lock()
        self.interrupted = False
        self.started: dict[CellKey, float] = {}

    def begin(self, key: CellKey) -> bool:
        """Note that the cell starts; False if the run is already interrupted."""
        with self.lock:
            if not self.interrupted:
                self.started[key] = time.perf_counter()
            return not self.interrupted

    def end(self, key: CellKey, cell: Cell) -> Cell:
        """The cell as it ended, given to ``on_done`` unless the run is interrupted (then
        :meth:`interrupt` gave its interrupted cell, if it had started)."""
        with self.lock:
            self.started.pop(key, None)
            if self.on_done and not self.interrupted:
                self.on_done(cell)
        return cell

    def interrupt(self) -> None:
        """Raise the flag, and give ``on_done`` each cell still running, interrupted."""
        with self.lock:
            self.interrupted = True
            now = time.perf_counter()
            for key, began in self.started.items():
                if self.on_done:
                    self.on_done(interrupted_cell(key, now - began))
