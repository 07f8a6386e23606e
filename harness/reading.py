"""A cell's output read against the reference as it arrives, by two paths that record into one
:class:`Tally`: the fast path (:class:`FastPath`) takes whole stretches of the reference where the
output goes on with exactly the bytes the port must print for them (its reader module's wording);
the slow path (:class:`SlowPath`) reads a line at a time, plays each move on the board, digests it
and walks it beside the reference, which explains any difference. :class:`CellReading` walks the
reference, offering each piece to the fast path and splitting what it cannot take down to the
single moves the slow path reads. Nothing here starts a process or raises for a port's fault.
"""

from __future__ import annotations

import collections
import itertools
from collections.abc import Callable, Iterator, Sequence

from harness.compare import CONTEXT, Divergence, StreamDigest
from harness.errors import OutOfTime, Unreadable, Violation
from harness.expect import Plan, Wording, reader_module
from harness.model import METHODS, Cell, Finish, Move, Outcome, Piece, Reason
from harness.normalise import OutputStream, text
from harness.port import Program
from harness.readers import READERS, Reader
from harness.verify import CANONICAL, Board

UNSHARED_CPU = (
    "; the CPU was not shared by cell here (no control group with the CPU controller: the kernel shares it by process"
    " and session), so other processes may have taken this cell's time: --jobs 1, or run as root (docs/isolation.md)"
)
"""What a time-out says where no control group weighed the cell as one: it may be its neighbours'
doing, not the port's."""
SLOW_STRETCH_MOVES = 4096
"""Read line by line, the reference is unfolded this many moves at a time, so the cell's time is
checked between them."""
MISSES = 64
"""Single moves whose bytes may differ from those expected, yet read as the expected move, before
a port is read line by line for the rest of its cell."""

LineSink = Callable[[str], None]
"""Sees each line a port prints, as text."""
MoveSink = Callable[[Move], None]
"""Sees each move once it is verified on the board."""


class Tally:
    """What both paths record: the board, the digest, the walk beside the reference, and the first
    fault found (its outcome and detail)."""

    def __init__(self, plan: Plan, pegs: Sequence[str] = CANONICAL) -> None:
        """``pegs``: the port's names for the pegs, by which the board's messages name them."""
        self.plan = plan
        self.board = Board(plan.n, plan.rules, pegs)
        self.digest, self.divergence = StreamDigest(), Divergence()
        self.finding: tuple[Outcome, str] | None = None
        self.found_on_a_cut_line = False
        """Whether the fault was found on the output's last line, which had no line ending."""

    def find(self, outcome: Outcome, detail: str, cut_short: bool) -> None:
        """Record the first fault found; ``cut_short``: it was found on a last line that had no line ending."""
        if self.finding is None:
            self.finding, self.found_on_a_cut_line = (outcome, detail), cut_short

    def agree(self, piece: Piece) -> int:
        """A piece of the reference taken whole: its moves are the reference's own. Returns how many."""
        count = 1 if isinstance(piece, Move) else self.plan.count(piece)
        if isinstance(piece, Move):
            self.board.play(piece)
        else:
            self.board.skip(piece, count)
        self.digest.update_text(self.plan.canonical(piece))
        self.divergence.agree(count, self.plan.tail(piece, CONTEXT))
        return count

    def clean(self) -> bool:
        """Whether nothing has differed from the reference nor broken a rule."""
        return self.divergence.at is None and self.finding is None


class FastPath:
    """Takes whole pieces of the reference by comparing the output's bytes with those the port must
    print for them (``wording``), at memory speed. A port whose single moves keep differing from the
    bytes expected (it writes a move two ways) is left to the slow path from then on."""

    def __init__(self, wording: Wording, stream: OutputStream, reader: Reader, tally: Tally) -> None:
        self.wording: Wording | None = wording
        self.stream, self.reader, self.tally = stream, reader, tally
        self.taken = 0
        """Moves taken whole by comparing bytes, not read line by line."""
        self._misses = 0

    def hopeful(self) -> bool:
        """Whether whole pieces may still be taken: the bytes are known, and nothing has differed."""
        return self.wording is not None and self.tally.clean()

    def fits(self, piece: Piece) -> bool:
        """Whether a piece is small enough to be compared whole."""
        return self.wording is not None and (isinstance(piece, Move) or self.wording.fits(self.tally.plan.count(piece)))

    def take(self, piece: Piece, mid_move: bool) -> bool:
        """Take ``piece`` if the output goes on with exactly the port's bytes for it; never while a
        move is half read (``mid_move``, or the reader holds part of one)."""
        if self.wording is None or mid_move or not self.reader.between_moves():
            return False
        expected = self.wording.text(piece, self.tally.board.pegs)
        count = 1 if isinstance(piece, Move) else self.tally.plan.count(piece)
        if expected is None or not self.stream.take(expected, count * self.wording.lines):
            if expected is not None and isinstance(piece, Move):
                self._misses += 1
                if self._misses >= MISSES:
                    self.wording = None
            return False
        self.tally.agree(piece)
        self.reader.skip(count, self.tally.board.pegs)
        self.taken += count
        return True


class SlowPath:
    """Reads the output a line at a time with the port's reader, plays each move on the board,
    digests it and walks it beside the reference; what the fast path's wording can learn from a
    move read as the reference's, it is shown."""

    def __init__(self, stream: OutputStream, reader: Reader, tally: Tally, on_line: LineSink | None, on_move: MoveSink | None) -> None:
        self.stream, self.reader, self.tally = stream, reader, tally
        self.on_line, self.on_move = on_line, on_move
        self.fast: FastPath | None = None
        """The fast path whose wording learns from the moves read, while it has one."""
        self.ended = False
        """The output ended before the move asked for."""
        self.out_of_time = False
        self._pending: collections.deque[Move] = collections.deque()  # read from a line that held several
        self._units: collections.deque[bytes | None] = collections.deque()  # each pending move's own bytes, where known

    def mid_move(self) -> bool:
        """Whether moves of a line read are still to be walked."""
        return bool(self._pending)

    def next(self, expected: Move | None) -> bool:
        """Read the output's next move and walk it beside ``expected``; False when reading stops: the
        output ended, the cell's time is up, a fault was found and the diff around it is complete."""
        while not self._pending:
            if not self._read_line():
                return False
        move, unit = self._pending.popleft(), self._units.popleft()
        tally = self.tally
        if tally.finding is None:
            try:
                move = tally.board.play(move)
            except Violation as error:
                tally.find(Outcome.FAIL, f"line {self.stream.lines}: {error}", self.stream.cut_short)
            else:
                tally.digest.update(move)
                if self.on_move:
                    self.on_move(move)
                if self.fast is not None and self.fast.wording is not None and unit is not None and move == expected:
                    self.fast.wording.learn(move, unit, tally.board.pegs)
        return tally.divergence.feed(move, expected) or not tally.finding

    def _read_line(self) -> bool:
        """Read one line into the moves pending; False when reading stops."""
        raw = self.stream.line()
        if raw is None:
            self.ended = True
            return False
        line = text(raw)
        if self.on_line:
            self.on_line(line)
        try:
            moves = self.reader.read(line)
        except OutOfTime:
            self.out_of_time = True
            return False
        except (Unreadable, Violation) as error:
            self.stop(error)
            return False
        self._pending.extend(moves)
        wording = self.fast.wording if self.fast is not None else None
        units = wording.units(raw, len(moves), self.stream.within_line) if wording is not None else None
        self._units.extend(units or [None] * len(moves))
        return True

    def stop(self, error: Exception) -> None:
        """Output that cannot be read on is an error; a drawing no move explains, a fail."""
        outcome = Outcome.FAIL if isinstance(error, Violation) else Outcome.ERROR
        where = "" if str(error).startswith("line ") else f"line {self.stream.lines}: "
        self.tally.find(outcome, f"{where}{error}", self.stream.cut_short)


class CellReading:
    """One cell's output read to its verdict: the reference walked piece by piece, each offered to
    the fast path (where the port's reader module knows its bytes) and split, where it cannot be
    taken, down to the moves the slow path reads. ``fast=False`` reads every line, as the slow path
    alone would; so does a cell whose lines or moves are shown (``on_line``, ``on_move``)."""

    def __init__(
        self, cell: Cell, program: Program, on_line: LineSink | None, on_move: MoveSink | None, deadline: float | None,
        fast: bool = True,
    ) -> None:
        self.cell, self.program = cell, program
        self.on_line, self.on_move = on_line, on_move
        self.tally = Tally(Plan(METHODS[cell.method], cell.n), program.output.pegs)
        reading = READERS[program.output.format]
        self.reader = reading.open(program.output, cell.n, deadline)
        shown = on_line is not None or on_move is not None
        self._wording = reader_module(reading.load()).wording(program.output, self.tally.plan) if fast and not shown else None
        self.read_all = True
        self.fast: FastPath | None = None
        self._expected: Iterator[Move] = iter(())
        self._lines_read = 0

    @property
    def taken(self) -> int:
        """Moves taken whole by the fast path."""
        return self.fast.taken if self.fast else 0

    def read(self, blocks: Iterator[bytes], expired: Callable[[], bool]) -> None:
        """Read the output to its end, or until a fault is found and the diff around it is complete,
        or until the cell's time is up; with ``on_line``, every line the port printed still goes to it,
        past one that stopped the reading too."""
        stream = OutputStream(blocks, self.program.output.separator)
        slow = SlowPath(stream, self.reader, self.tally, self.on_line, self.on_move)
        if self._wording is not None:
            self.fast = slow.fast = FastPath(self._wording, stream, self.reader, self.tally)
        try:
            self._walk(slow, expired)
        except Unreadable as error:  # a line with no end
            slow.stop(error)
            self.read_all = False
        self._lines_read = stream.lines
        if slow.out_of_time:
            expired()  # marks the cell timed out
        if self.on_line:
            try:
                while (raw := stream.line()) is not None:
                    self.on_line(text(raw))
            except Unreadable:
                pass

    def _walk(self, slow: SlowPath, expired: Callable[[], bool]) -> None:
        """Each move the fast path does not take, read by the slow path beside the reference's; past
        the reference's end, anything more the output holds must not be a move. Reading stops early
        where the output ends (all it held was read), or where the slow path stops (not all was)."""
        self._expected = self._to_read(slow, expired)
        for expected in self._expected:
            if not slow.next(expected):
                if slow.ended:  # the output ended before ``expected``, which belongs to the diff
                    self._expected = itertools.chain((expected,), self._expected)
                self.read_all = self.read_all and slow.ended
                return
        while self.read_all and slow.next(None):
            pass
        self.read_all = self.read_all and slow.ended

    def _to_read(self, slow: SlowPath, expired: Callable[[], bool]) -> Iterator[Move]:
        """The reference moves the slow path must read, in order. A piece the fast path takes is not
        among them; one it cannot take (a move of it not yet seen, or a difference) is split into
        smaller ones, down to single moves; once it has no hope left, the reference is unfolded a
        stretch at a time."""
        plan, fast = self.tally.plan, self.fast
        stack: list[Piece] = [(plan.n, 0, plan.rules.target)]
        while stack:
            if expired():
                self.read_all = False
                return
            piece = stack.pop()
            if not isinstance(piece, Move) and not piece[0]:
                continue
            hopeful = fast is not None and fast.hopeful()
            if hopeful and fast is not None and fast.fits(piece) and fast.take(piece, slow.mid_move()):
                continue
            if isinstance(piece, Move):
                yield piece
            elif hopeful or plan.count(piece) > SLOW_STRETCH_MOVES:
                stack.extend(reversed(plan.rules.split(*piece)))
            else:
                yield from plan.rules.unfold(piece)

    def judge(self, finish: Finish, timeout: float) -> None:
        """The outcome, then, for a failed cell, the diff; and for any cell whose moves part from the
        reference, where they do and the port's moves from there, for the page to replay."""
        cell, divergence = self.cell, self.tally.divergence
        self._outcome(finish, timeout)
        if cell.outcome is Outcome.FAIL:
            if self.read_all:
                divergence.finish(self._expected)
            cell.diff = divergence.unified("reference", f"{cell.port}/{cell.method} n={cell.n}")
        cell.parting = divergence.parting()

    def _outcome(self, finish: Finish, timeout: float) -> None:
        """The outcome: a move that breaks the rules first, as a reader of the output would say, however
        the port ended after it (so that the verdict is the same whether or not the reading stopped
        before its exit was seen); then the most fundamental fault: a port that hung or crashed is not
        judged on the moves it did not print. Output lost on its way (the runner says so) fails only on a
        move among those that came, which the port printed; what was lost may have been anything."""
        cell, finding = self.cell, self.tally.finding
        cell.moves = self.tally.divergence.count
        if self.tally.found_on_a_cut_line and (finish.timed_out or finish.limit):
            finding = None  # a line the harness cut by ending the program: the port never finished writing it
        if finding and finding[0] is Outcome.FAIL:
            (cell.outcome, cell.detail), cell.reason = finding, Reason.VIOLATION
        elif finish.lost:
            cell.outcome, cell.reason, cell.detail = Outcome.ERROR, Reason.ENGINE, f"{finish.lost} (read: {cell.moves} moves)"
        elif finish.limit:
            cell.outcome, cell.reason = Outcome.ERROR, Reason.LIMIT
            cell.detail = f"{finish.limit} after {cell.moves} moves; {finish.evidence}"
        elif finish.timed_out:
            cell.outcome, cell.detail = Outcome.ERROR, f"timed out after {timeout:g} s, having printed {cell.moves} moves"
            cell.detail += "" if finish.cpu_shared else UNSHARED_CPU
            cell.reason = Reason.TIMEOUT
        elif finding and finding[0] is Outcome.ERROR:
            (cell.outcome, cell.detail), cell.reason = finding, Reason.UNREADABLE
        elif finish.failure and not finish.stopped:
            cell.outcome, cell.reason = Outcome.ERROR, Reason.CRASH
            cell.detail = f"{finish.failure} after {cell.moves} moves" + (f"; {finish.evidence}" if finish.evidence else "")
        else:
            self._complete(cell, finish)

    def _complete(self, cell: Cell, finish: Finish) -> None:
        """A cell that ran to its end: the output must end between moves, and the board be solved."""
        try:
            self.reader.finish()
        except Unreadable as error:
            cell.outcome, cell.reason, cell.detail = Outcome.ERROR, Reason.UNREADABLE, f"at the end of the output: {error}{self._elsewhere(finish)}"
            return
        cell.digest = self.tally.digest.hexdigest()
        try:
            self.tally.board.finish(top_first=self.reader.top_first is True)
        except Violation as error:
            cell.outcome, cell.reason, cell.detail = Outcome.FAIL, Reason.VIOLATION, f"{error}{self._elsewhere(finish)}"
        else:
            cell.outcome = Outcome.PASS

    def _elsewhere(self, finish: Finish) -> str:
        """Where the moves may have gone, for a port whose standard output was empty while its
        standard error was not: the manifest's ``stream`` reads them there."""
        if self.program.output.stream != "stdout" or self._lines_read or not finish.unread_lines:
            return ""
        lines = f"{finish.unread_lines:,} line{'s' * (finish.unread_lines != 1)}"
        return (
            f"; standard output was empty, while standard error has {lines}: if the moves are there,"
            ' the manifest says so with [output] stream = "stderr" (or "both", for both streams in the order written)'
        )
