"""One cell end to end: run the port, read each line, play it on the board, digest it and walk it
beside the reference, all as the lines arrive, so memory stays flat however many moves there are.

Whatever goes wrong becomes the cell's outcome and detail; nothing here raises for a port's fault.
"""

from __future__ import annotations

import collections
import itertools
import shlex
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor, wait

from harness.compare import CONTEXT, Divergence, StreamDigest
from harness.errors import CellError, OutOfTime, Unreadable, Violation
from harness.expect import Plan, Wording, reader_module
from harness.gate import Gate
from harness.model import METHODS, Cell, Finish, Move, Outcome, Piece, Reason
from harness.normalise import OutputStream, text
from harness.port import Port, Program
from harness.readers import READERS
from harness.settings import CellKey, Settings
from harness.verify import Board

INTERRUPT_CHECK_SECONDS = 0.2
SLOW_STRETCH_MOVES = 4096
"""Read line by line, the reference is unfolded this many moves at a time, so the cell's time is
checked between them."""
MISSES = 64
"""Single moves whose bytes may differ from those expected, yet read as the expected move, before
a port is read line by line for the rest of its cell."""
DEFAULTS = Settings()
UNSHARED_CPU = (
    "; the CPU was not shared by cell here (no control group with the CPU controller: the kernel shares it by process"
    " and session), so other processes may have taken this cell's time: --jobs 1, or run as root (docs/isolation.md)"
)
"""What a time-out says where no control group weighed the cell as one: it may be its neighbours'
doing, not the port's."""

LineSink = Callable[[str], None]
"""Sees each line a port prints, as text."""
MoveSink = Callable[[Move], None]
"""Sees each move once it is verified on the board."""


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
    sees each raw line (the run's secrets masked), ``on_move`` each verified move. A missing interpreter skips the cell, or
    with ``strict`` makes it an error. Everything runs through ``gate``: a program within the run's
    walls, a query in its PostgreSQL (without a gate, a gate of the settings' own, for this cell alone)."""
    if gate is None:
        with Gate(settings, ports=[port]) as own:
            return evaluate(port, method, n, settings, own, on_line, on_move)
    cell = Cell(port.name, method, n)
    started = time.perf_counter()
    secrets = gate.secrets
    _play(cell, port, settings, gate, (lambda line: on_line(secrets.mask(line))) if on_line else None, on_move)
    cell.seconds = time.perf_counter() - started
    cell.detail, cell.diff = secrets.mask(cell.detail), [secrets.mask(line) for line in cell.diff]
    return cell


def _play(cell: Cell, port: Port, settings: Settings, gate: Gate, on_line: LineSink | None, on_move: MoveSink | None) -> None:
    refusal = _refusal(port, cell.method, cell.n, settings.strict, gate)
    if refusal:
        cell.outcome, cell.reason, cell.detail = refusal
        return
    try:
        process = gate.start(port, cell.method, cell.n, settings)
    except CellError as error:
        cell.outcome, cell.reason, cell.detail = error.outcome, error.reason, str(error)
        return
    reading = _Reading(cell, port.program(cell.method), on_line, on_move, process.deadline)
    with process:
        try:
            reading.read(process.output(), process.expired)
            if not reading.read_all:
                process.stop()
            finish = process.finish()
        except CellError as error:  # what runs the program stopped answering (a server, the engine)
            cell.outcome, cell.reason, cell.detail = error.outcome, error.reason, str(error)
            return
    reading.judge(finish, settings.timeout)


def judge_output(port: Port, method: str, n: int, blocks: Iterator[bytes], fast: bool = True) -> Cell:
    """Read and verify output captured earlier, exactly as a cell's is: the harness's own share of
    the work, without the port's (``fast=False``: every line read, as the slow path alone reads it)."""
    cell = Cell(port.name, method, n)
    reading = _Reading(cell, port.program(method), None, None, None, fast)
    reading.read(blocks, lambda: False)
    reading.judge(Finish(failure=None, timed_out=False, stopped=False, evidence=""), timeout=0)
    return cell


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


class _Reading:
    """A cell's output as it arrives, checked against the reference. Where the port's own bytes for a
    stretch of the reference can be known (:class:`~harness.expect.LineWording`,
    :class:`~harness.expect.DrawingWording`), the output is compared with them at memory speed;
    elsewhere each line is read, played on the board, digested and walked beside the reference, which
    explains any difference. ``fast=False`` reads every line, as the slow path alone would."""

    def __init__(
        self, cell: Cell, program: Program, on_line: LineSink | None, on_move: MoveSink | None, deadline: float | None,
        fast: bool = True,
    ) -> None:
        rules = METHODS[cell.method]
        self.cell, self.on_line, self.on_move = cell, on_line, on_move
        self.plan = Plan(rules, cell.n)
        shown = on_line is not None or on_move is not None
        self.reading = READERS[program.output.format]
        self.wording: Wording | None = reader_module(self.reading).wording(program.output, self.plan) if fast and not shown else None
        self.reader, self.board = self.reading.open(program.output, cell.n, deadline), Board(cell.n, rules)
        self.separator = program.output.separator
        self.digest, self.divergence = StreamDigest(), Divergence()
        self.finding: tuple[Outcome, str] | None = None
        self.read_all = True
        self.taken = 0
        """Moves taken whole by comparing bytes, not read line by line."""
        self._misses = 0
        self._expected: Iterator[Move] = iter(())
        self._expired: Callable[[], bool] = lambda: False
        self._pending: collections.deque[Move] = collections.deque()  # read from a line that held several
        self._units: collections.deque[bytes | None] = collections.deque()  # each pending move's own bytes, where known

    def read(self, blocks: Iterator[bytes], expired: Callable[[], bool]) -> None:
        """Read the output to its end, or until a fault is found and the diff around it is complete,
        or until the cell's time is up; with ``on_line``, every line the port printed still goes to it,
        past one that stopped the reading too."""
        self.stream = OutputStream(blocks, self.separator)
        self._expired = expired
        self._expected = self._one_by_one(expired)
        try:
            self._read_moves()
        except Unreadable as error:  # a line with no end
            self._stop_reading(error)
        if self.on_line:
            try:
                while (raw := self.stream.line()) is not None:
                    self.on_line(text(raw))
            except Unreadable:
                pass

    def _read_moves(self) -> None:
        for expected in self._expected:
            if not self._next(expected):
                return
        if self.read_all:  # the reference is done: anything more must not be a move
            while self._next(None):
                pass

    def _hopeful(self) -> bool:
        """Whether whole stretches may still be taken: the bytes are known, and nothing has differed."""
        return self.wording is not None and self.divergence.at is None and self.finding is None

    def _one_by_one(self, expired: Callable[[], bool]) -> Iterator[Move]:
        """The reference moves that must be read a line at a time. While the output can be matched
        with the port's own bytes, whole stretches are taken at once; a stretch that cannot be (a
        move of it not yet seen, or a difference) is split into smaller ones, down to the single
        moves that must be read."""
        plan, split = self.plan, self.plan.rules.split
        stack: list[Piece] = [(plan.n, 0, plan.rules.target)]
        while stack:
            if expired():
                self.read_all = False
                return
            piece = stack.pop()
            hopeful = self._hopeful()
            if isinstance(piece, Move):
                if not (hopeful and self._take(piece)):
                    yield piece
            elif piece[0]:
                count = plan.count(piece)
                if hopeful and self.wording is not None and self.wording.fits(count) and self._take(piece):
                    continue
                if hopeful or count > SLOW_STRETCH_MOVES:
                    stack.extend(reversed(split(*piece)))
                else:
                    yield from plan.rules.unfold(piece)

    def _take(self, piece: Piece) -> bool:
        """Take a whole piece at once if the output goes on with exactly the port's bytes for it. A
        port whose single moves keep differing from the bytes expected (it writes a move two ways)
        is read line by line from then on."""
        assert self.wording is not None
        if self._pending or not self.reader.between_moves():
            return False
        text = self.wording.text(piece, self.board.pegs)
        count = 1 if isinstance(piece, Move) else self.plan.count(piece)
        if text is None or not self.stream.take(text, count * self.wording.lines):
            if text is not None and isinstance(piece, Move):
                self._misses += 1
                if self._misses >= MISSES:
                    self.wording = None
            return False
        if isinstance(piece, Move):
            self.board.play(piece)
        else:
            self.board.skip(piece, count)
        self.reader.skip(count, self.board.pegs)
        self.digest.update_text(self.plan.canonical(piece))
        self.divergence.agree(count, self.plan.tail(piece, CONTEXT))
        self.taken += count
        return True

    def _next(self, expected: Move | None) -> bool:
        """Read the output's next move and walk it beside ``expected``; False when reading stops."""
        while not self._pending:
            raw = self.stream.line()
            if raw is None:  # the output ended before ``expected``, which belongs to the diff
                if expected is not None:
                    self._expected = itertools.chain((expected,), self._expected)
                return False
            line = text(raw)
            if self.on_line:
                self.on_line(line)
            try:
                moves = self.reader.read(line)
            except OutOfTime:
                self._expired()  # marks the cell timed out
                self.read_all = False
                return False
            except (Unreadable, Violation) as error:
                self._stop_reading(error)
                return False
            self._pending.extend(moves)
            units = self.wording.units(raw, len(moves), self.stream.within_line) if self.wording is not None else None
            self._units.extend(units or [None] * len(moves))
        move, unit = self._pending.popleft(), self._units.popleft()
        if self.finding is None:
            try:
                move = self.board.play(move)
            except Violation as error:
                self.finding = (Outcome.FAIL, f"line {self.stream.lines}: {error}")
            else:
                self.digest.update(move)
                if self.on_move:
                    self.on_move(move)
                if self.wording is not None and unit is not None and move == expected:
                    self.wording.learn(move, unit)
        if not self.divergence.feed(move, expected) and self.finding:
            self.read_all = False
            return False
        return True

    def _stop_reading(self, error: Exception) -> None:
        """Output that cannot be read on is an error; a drawing no move explains, a fail."""
        outcome = Outcome.FAIL if isinstance(error, Violation) else Outcome.ERROR
        where = "" if str(error).startswith("line ") else f"line {self.stream.lines}: "
        self.finding = self.finding or (outcome, f"{where}{error}")
        self.read_all = False

    def judge(self, finish: Finish, timeout: float) -> None:
        """The outcome, then, for a failed cell, the diff; and for any cell whose moves part from the
        reference, where they do and the port's moves from there, for the page to replay."""
        cell = self.cell
        self._outcome(finish, timeout)
        if cell.outcome is Outcome.FAIL:
            if self.read_all:
                self.divergence.finish(self._expected)
            cell.diff = self.divergence.unified("reference", f"{cell.port}/{cell.method} n={cell.n}")
        cell.parting = self.divergence.parting()

    def _outcome(self, finish: Finish, timeout: float) -> None:
        """The outcome: a move that breaks the rules first, as a reader of the output would say, however
        the port ended after it (so that the verdict is the same whether or not the reading stopped
        before its exit was seen); then the most fundamental fault: a port that hung or crashed is not
        judged on the moves it did not print."""
        cell = self.cell
        cell.moves = self.divergence.count
        if self.finding and self.finding[0] is Outcome.FAIL:
            (cell.outcome, cell.detail), cell.reason = self.finding, Reason.VIOLATION
        elif finish.limit:
            cell.outcome, cell.reason = Outcome.ERROR, Reason.LIMIT
            cell.detail = f"{finish.limit} after {cell.moves} moves; {finish.evidence}"
        elif finish.timed_out:
            cell.outcome, cell.detail = Outcome.ERROR, f"timed out after {timeout:g} s, having printed {cell.moves} moves"
            cell.detail += "" if finish.cpu_shared else UNSHARED_CPU
            cell.reason = Reason.TIMEOUT
        elif self.finding and self.finding[0] is Outcome.ERROR:
            (cell.outcome, cell.detail), cell.reason = self.finding, Reason.UNREADABLE
        elif finish.failure and not finish.stopped:
            cell.outcome, cell.reason = Outcome.ERROR, Reason.CRASH
            cell.detail = f"{finish.failure} after {cell.moves} moves" + (f"; {finish.evidence}" if finish.evidence else "")
        else:
            try:
                self.reader.finish()
            except Unreadable as error:
                cell.outcome, cell.reason, cell.detail = Outcome.ERROR, Reason.UNREADABLE, f"at the end of the output: {error}"
                return
            cell.digest = self.digest.hexdigest()
            try:
                self.board.finish(top_first=self.reader.top_first is True)
            except Violation as error:
                cell.outcome, cell.reason, cell.detail = Outcome.FAIL, Reason.VIOLATION, str(error)
            else:
                cell.outcome = Outcome.PASS


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
