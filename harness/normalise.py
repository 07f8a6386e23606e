"""Turn a program's own output into moves, as its manifest's [output] table says to read it.

Two dialects: ``lines``, one move a line, read with the manifest's patterns and peg names; and
``drawings``, the cyclic Tower of Hanoi article's pictures of the towers after each move, from
which each move is worked out by comparing a drawing with the one before.
"""

from __future__ import annotations

import time
from typing import Iterator

from harness.discover import Output
from harness.model import PEGS, Move, Violation, shorten

MAX_LINE_BYTES = 8192
"""Longer than any move or drawing row a port prints: a longer line is an error, not a flood."""
MATCH_SECONDS = 1.0
"""A pattern reads a line at once; one still matching after this long backtracks without end."""


class Unreadable(ValueError):
    """Output that is not in the port's dialect: a line no pattern reads, a peg the port does not
    have, a malformed drawing, a line with no end."""


def text(line: bytes) -> str:
    """A line of output as text: UTF-8, a stray carriage return dropped, undecodable bytes shown as such."""
    return line.decode("utf-8", "replace").rstrip("\r")


class OutOfTime(Exception):
    """The cell's time ran out while a line was being read: a timeout, not a fault of the line."""


class OutputStream:
    """A port's output as it arrives in blocks: taken either a known stretch of bytes at a time
    (:meth:`take`) or a line at a time (:meth:`line`), a line never longer than
    :data:`MAX_LINE_BYTES`, so memory stays bounded whatever a port prints."""

    def __init__(self, blocks: Iterator[bytes]):
        self._blocks = blocks
        self._buffer = b""
        self._at = 0
        self.lines = 0
        """How many lines have been taken."""

    def take(self, expected: bytes, lines: int) -> bool:
        """Take ``expected`` (``lines`` whole lines) if the output goes on with exactly those bytes."""
        while len(self._buffer) - self._at < len(expected):
            if not self._more():
                return False
        if not self._buffer.startswith(expected, self._at):
            return False
        self._at += len(expected)
        self.lines += lines
        return True

    def line(self) -> bytes | None:
        """The next line without its line ending (a last line may lack one); None at the end."""
        while (end := self._buffer.find(b"\n", self._at, self._at + MAX_LINE_BYTES + 1)) < 0:
            if len(self._buffer) - self._at > MAX_LINE_BYTES:
                raise Unreadable(
                    f"line {self.lines + 1} is longer than {MAX_LINE_BYTES:,} bytes, the most a move's line may be;"
                    f" it starts {shorten(self._buffer[self._at:self._at + 200].decode('utf-8', 'replace'), 60)}"
                )
            if not self._more():
                if self._at == len(self._buffer):
                    return None
                last, self._at = self._buffer[self._at:], len(self._buffer)
                self.lines += 1
                return last
        line = self._buffer[self._at:end]
        self._at = end + 1
        self.lines += 1
        return line

    def _more(self) -> bool:
        block = next(self._blocks, None)
        if block is None:
            return False
        self._buffer = self._buffer[self._at:] + block
        self._at = 0
        return True


class LineReader:
    """One move a line. A pattern gets :data:`MATCH_SECONDS` a line, and never past ``deadline`` (on
    :func:`time.monotonic`'s clock): one that backtracks without end is the cell's error, not a hung harness."""

    def __init__(self, output: Output, deadline: float | None = None):
        self._patterns = output.patterns
        self._pegs = {name: index for index, name in enumerate(output.pegs)}
        self._deadline = deadline

    def read(self, line: str) -> Move:
        for pattern in self._patterns:
            try:
                match = pattern.fullmatch(line, timeout=self._time_left(), concurrent=True)
            except TimeoutError:
                if self._deadline is not None and time.monotonic() >= self._deadline:
                    raise OutOfTime() from None
                raise Unreadable(
                    f"the pattern {pattern.pattern!r} was still matching {shorten(line, 60)} after {MATCH_SECONDS:g} s"
                ) from None
            if match:
                disk = match["disk"] if "disk" in pattern.groupindex else None
                return Move(None if disk is None else _disk(disk), self._peg(match["src"]), self._peg(match["dst"]))
        expected = " or ".join(pattern.pattern for pattern in self._patterns)
        raise Unreadable(f"{shorten(line)} matches none of the port's patterns; expected {expected}")

    def _time_left(self) -> float:
        if self._deadline is None:
            return MATCH_SECONDS
        return min(max(self._deadline - time.monotonic(), 0.001), MATCH_SECONDS)

    def finish(self) -> None:
        """Lines hold nothing back: there is never a move left half read."""

    def _peg(self, name: str) -> int:
        try:
            return self._pegs[name]
        except KeyError:
            raise Unreadable(f"peg {name!r} is not one of {', '.join(map(repr, self._pegs))}") from None


class DrawingReader:
    """The towers drawn after each move, one row a tower and a blank line after them::

        -------1--2|A
        -------------|B
        -------------|C

    Each row is one slot a disc, left to right from the top: a slot is hyphens, or hyphens and the
    disc's number, right-aligned. The first drawing must show every disc on the first peg; each one
    after it must be the drawing before with one disc moved from the top of one tower to the top of
    another, and that is the move. The board then judges whether the move was legal.
    """

    def __init__(self, output: Output, n: int):
        self._names = output.pegs
        self._n = n
        self._width = n * (len(str(n)) + 1)
        self._rows: list[str] = []
        self._towers: list[tuple[int, ...]] | None = None
        self._drawings = 0

    def read(self, line: str) -> Move | None:
        """The move a drawing shows, at the blank line that ends it; None for the lines before."""
        if len(self._rows) < PEGS:
            self._rows.append(self._row(line, len(self._rows)))
            return None
        if line:
            raise Unreadable(f"{shorten(line)} should be the blank line after a drawing's {PEGS} rows")
        towers = [self._discs(row) for row in self._rows]
        self._rows = []
        self._drawings += 1
        before, self._towers = self._towers, towers
        if before is None:
            if towers != [tuple(range(1, self._n + 1)), (), ()]:
                raise Violation(f"the first drawing shows {self._show(towers)}, not all {self._n} discs on {self._names[0]}")
            return None
        return self._move(before, towers)

    def finish(self) -> None:
        if self._rows:
            raise Unreadable(f"the output ends in the middle of a drawing, after {len(self._rows)} of its {PEGS} rows")
        if self._towers is None:
            raise Unreadable("the output has no drawing, not even the first, of the discs before any move")

    def _row(self, line: str, peg: int) -> str:
        body, bar, name = line.rpartition("|")
        if not bar or name != self._names[peg]:
            raise Unreadable(f"{shorten(line)} should be the row of peg {self._names[peg]}, ending in |{self._names[peg]}")
        if len(body) != self._width or body.strip("-0123456789"):
            raise Unreadable(
                f"{shorten(line)}: a row draws {self._n} slots of {len(str(self._n)) + 1} characters, hyphens and digits, before the |"
            )
        return body

    @staticmethod
    def _discs(row: str) -> tuple[int, ...]:
        return tuple(int(number) for number in row.split("-") if number)

    def _move(self, before: list[tuple[int, ...]], after: list[tuple[int, ...]]) -> Move:
        changed = [peg for peg in range(PEGS) if before[peg] != after[peg]]
        if len(changed) == 2:
            for src, dst in (changed, changed[::-1]):
                if before[src] and after[src] == before[src][1:] and after[dst] == before[src][:1] + before[dst]:
                    return Move(before[src][0], src, dst)
        raise Violation(
            f"drawing {self._drawings} is not one move on from the drawing before: {self._show(before)}, then {self._show(after)}"
        )

    def _show(self, towers: list[tuple[int, ...]]) -> str:
        return "; ".join(f"{name}: {list(tower)}" for name, tower in zip(self._names, towers))


def reader(output: Output, n: int, deadline: float | None = None) -> LineReader | DrawingReader:
    """The reader for a program's dialect; patterns may match until ``deadline``."""
    return DrawingReader(output, n) if output.format == "drawings" else LineReader(output, deadline)


def _disk(text: str) -> int:
    if not text.isdecimal():
        raise Unreadable(f"disk {shorten(text, 40)} is not a whole number")
    return int(text)
