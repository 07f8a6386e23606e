"""Turn a program's own output into moves, as its manifest's [output] table says to read it.

Three dialects: ``lines``, moves read with the manifest's patterns and peg names; ``states``, the
board after each move, one tower a pattern, from which each move is worked out by comparing a
state with the one before; and ``drawings``, the cyclic Tower of Hanoi article's pictures of the
towers, read the same way. Every reader's ``read`` takes one line and gives the moves it completes,
none or several.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator, Sequence
from typing import Any

import regex

from harness.discover import Output
from harness.errors import OutOfTime, Unreadable, Violation
from harness.model import PEGS, Move, shorten

MAX_LINE_BYTES = 8192
"""Longer than any move or drawing row a port prints: a longer line is an error, not a flood."""
MATCH_SECONDS = 1.0
"""A pattern reads a line at once; one still matching after this long backtracks without end."""

MAX_DISC_DIGITS = 6
"""No puzzle a port can finish has a disc numbered beyond this; a longer number is refused unread."""

Towers = list[tuple[int, ...]]
"""The discs on pegs 0, 1 and 2, each tower from its top disc down."""


def text(line: bytes) -> str:
    """A line of output as text: UTF-8, a stray carriage return dropped, undecodable bytes shown as such."""
    return line.decode("utf-8", "replace").rstrip("\r")


class OutputStream:
    """A port's output as it arrives in blocks: taken either a known stretch of bytes at a time
    (:meth:`take`) or a line at a time (:meth:`line`), a line never longer than
    :data:`MAX_LINE_BYTES`, so memory stays bounded whatever a port prints. Where the manifest
    splits lines at a ``separator``, a longer line is taken in pieces cut at separators, each piece
    within that bound: a program that prints every move on one line is read in bounded memory."""

    def __init__(self, blocks: Iterator[bytes], separator: regex.Pattern[str] | None = None) -> None:
        self._blocks = blocks
        self._separator = separator
        self._buffer = b""
        self._at = 0
        self._mid_line = False
        self.lines = 0
        """The number of the line being read: how many lines have been begun."""

    @property
    def within_line(self) -> bool:
        """Whether what was taken last left its line unfinished: a piece cut at a separator."""
        return self._mid_line

    def take(self, expected: bytes, lines: int) -> bool:
        """Take ``expected`` if the output goes on with exactly those bytes: ``lines`` whole lines, or,
        with none, a part of a line that goes on after it."""
        while len(self._buffer) - self._at < len(expected):
            if not self._more():
                return False
        if not self._buffer.startswith(expected, self._at):
            return False
        self._at += len(expected)
        if lines:
            self.lines += lines
        else:
            self._begin(ends=False)
        return True

    def line(self) -> bytes | None:
        """The next line without its line ending (a last line may lack one), or the next piece of a
        long line with a separator; None at the end."""
        while (end := self._buffer.find(b"\n", self._at, self._at + MAX_LINE_BYTES + 1)) < 0:
            if len(self._buffer) - self._at > MAX_LINE_BYTES:
                return self._piece()
            if not self._more():
                if self._at == len(self._buffer):
                    return None
                last, self._at = self._buffer[self._at:], len(self._buffer)
                self._begin(ends=True)
                return last
        line = self._buffer[self._at:end]
        self._at = end + 1
        self._begin(ends=True)
        return line

    def _begin(self, ends: bool) -> None:
        """Count a line where one begins, and note whether the part taken ended it."""
        if not self._mid_line:
            self.lines += 1
        self._mid_line = not ends

    def _piece(self) -> bytes:
        """The part of a long line up to its last separator within :data:`MAX_LINE_BYTES`; a line
        with no separator there is refused. Bytes that are not UTF-8 keep their place
        (surrogateescape), so the cut falls where the separator is."""
        window = self._buffer[self._at:self._at + MAX_LINE_BYTES].decode("utf-8", "surrogateescape")
        cut = None
        if self._separator is not None:
            cut = next(
                (match for match in reversed(list(self._separator.finditer(window, timeout=MATCH_SECONDS)))
                 if match.end() < len(window) and match.end() > match.start()),
                None,
            )
        if cut is None:
            number = self.lines + (not self._mid_line)
            what = f"line {number} has more than {MAX_LINE_BYTES:,} bytes between separators, the most a piece of a line may be"
            if self._separator is None:
                what = f"line {number} is longer than {MAX_LINE_BYTES:,} bytes, the most a move's line may be"
            start = window[:200].encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            raise Unreadable(f"{what}; it starts {shorten(start, 60, whole=len(window))}")
        piece = window[:cut.start()].encode("utf-8", "surrogateescape")
        self._at += len(window[:cut.end()].encode("utf-8", "surrogateescape"))
        self._begin(ends=False)
        return piece

    def _more(self) -> bool:
        block = next(self._blocks, None)
        if block is None:
            return False
        left = len(self._buffer) - self._at  # what is still unread is copied once, with the block
        self._buffer = b"".join((memoryview(self._buffer)[self._at:], block)) if left else block
        self._at = 0
        return True


class _Clock:
    """How long a pattern may match: :data:`MATCH_SECONDS` a line, and never past ``deadline`` (on
    :func:`time.monotonic`'s clock), so one that backtracks without end is the cell's error, not a
    hung harness."""

    def __init__(self, deadline: float | None) -> None:
        self._deadline = deadline

    def run(self, pattern: regex.Pattern[str], method: str, text: str) -> Any:
        """``pattern.method(text)`` (fullmatch, search or split), within the time left."""
        left = MATCH_SECONDS if self._deadline is None else min(max(self._deadline - time.monotonic(), 0.001), MATCH_SECONDS)
        try:
            return getattr(pattern, method)(text, timeout=left, concurrent=True)
        except TimeoutError:
            if self._deadline is not None and time.monotonic() >= self._deadline:
                raise OutOfTime() from None
            raise Unreadable(
                f"the pattern {pattern.pattern!r} was still matching {shorten(text, 60)} after {MATCH_SECONDS:g} s"
            ) from None

    def pieces(self, output: Output, line: str) -> list[str]:
        """The parts of a line to read: none for a blank line or one the manifest ignores, else the
        line cut at each separator (an empty piece may be an empty tower, in a state)."""
        if not line.strip() or any(self.run(pattern, "fullmatch", line) for pattern in output.ignore):
            return []
        return [line] if output.separator is None else self.run(output.separator, "split", line)

    def match(self, patterns: Sequence[regex.Pattern[str]], text: str) -> regex.Match[str]:
        """The first pattern's match of the whole of ``text``; refused, with what was expected, if none."""
        for pattern in patterns:
            match = self.run(pattern, "fullmatch", text)
            if match:
                return match
        expected = " or ".join(pattern.pattern for pattern in patterns)
        partial = next((pattern.pattern for pattern in patterns if self.run(pattern, "search", text)), None)
        hint = f" ({partial} matches part of it: patterns must match the whole line)" if partial else ""
        raise Unreadable(f"{shorten(text)} matches none of the port's patterns; expected {expected}{hint}")


class LineReader:
    """Moves, one a line, or several split by the manifest's separator."""

    top_first = None
    """Moves show no tower, so no order of its discs."""

    def __init__(self, output: Output, deadline: float | None = None) -> None:
        self._output, self._clock = output, _Clock(deadline)
        self._pegs = {name: index for index, name in enumerate(output.pegs)}

    def read(self, line: str) -> list[Move]:
        """The moves a line holds: one, or one a piece where the manifest splits lines."""
        pieces = (piece for piece in self._clock.pieces(self._output, line) if piece.strip())  # a separator may end the line
        return [self._move(self._clock.match(self._output.patterns, piece)) for piece in pieces]

    def finish(self) -> None:
        """Lines hold nothing back: there is never a move left half read."""
    def _move(self, match: re.Match[str]) -> Move:
        disk = match["disk"] if "disk" in match.re.groupindex else None
        return Move(None if disk is None else _disk(disk), _peg(self._pegs, match["src"]), _peg(self._pegs, match["dst"]))


class StateReader:
    """The board after each move, and perhaps before the first: each match of a pattern is one
    tower, its discs in the group ``discs`` (numbers between any other characters, from the top or
    from the bottom: the order shows which), and the peg in the group ``peg`` or, without it, the
    next peg in the order 0, 1, 2. Three towers make a state; the move is what changed since the
    state before, which must be exactly one disc taken from one top to another."""

    def __init__(self, output: Output, n: int, deadline: float | None = None) -> None:
        self._output, self._clock = output, _Clock(deadline)
        self._pegs = {name: index for index, name in enumerate(output.pegs)}
        self._reading: dict[int, tuple[int, ...]] = {}
        self._towers: Towers = [tuple(range(1, n + 1)), (), ()]
        self._states = 0
        self.top_first: bool | None = None
        """Whether the program lists a tower's discs from the top; None until a tower of two shows it."""

    def read(self, line: str) -> list[Move]:
        """The moves a line completes: one once a whole state has been read after the one before."""
        moves = []
        for piece in self._clock.pieces(self._output, line):
            match = self._clock.match(self._output.patterns, piece)
            peg = _peg(self._pegs, match["peg"]) if "peg" in match.re.groupindex else len(self._reading)
            if peg in self._reading:
                raise Unreadable(f"{shorten(piece)} shows peg {self._output.pegs[peg]} a second time in one state")
            self._reading[peg], top_first = _tower(match["discs"])
            self.top_first = top_first if self.top_first is None else self.top_first
            if len(self._reading) == PEGS:
                towers, self._reading = [self._reading[peg] for peg in range(PEGS)], {}
                moves += self._state(towers)
        return moves

    def _state(self, towers: Towers) -> list[Move]:
        """The move a state shows; none for one that shows the board as it was (the discs before any
        move, or the state before printed again)."""
        self._states += 1
        before, self._towers = self._towers, towers
        if towers == before:
            return []
        return [one_move(before, towers, self._output, f"state {self._states}", self.top_first is not False)]

    def finish(self) -> None:
        """Refuse output that ends in the middle of a state."""
        if self._reading:
            raise Unreadable(f"the output ends in the middle of a state, after {len(self._reading)} of its {PEGS} towers")


def one_move(before: Towers, after: Towers, output: Output, which: str, top_first: bool = True) -> Move:
    """The one move that turns ``before`` into ``after``: a disc taken from the top of one tower to
    the top of another, the rest unchanged (the board judges whether it was legal). Anything else
    breaks the rules; ``which`` names the state ("state 4", "drawing 4") in the message, which lists
    the discs in the program's own order."""
    changed = [peg for peg in range(PEGS) if before[peg] != after[peg]]
    if len(changed) == 2:
        for src, dst in (changed, changed[::-1]):
            if before[src] and after[src] == before[src][1:] and after[dst] == before[src][:1] + before[dst]:
                return Move(before[src][0], src, dst)
    kind = which.split()[0]
    shown = f"{show(output, before, top_first)}, then {show(output, after, top_first)}"
    raise Violation(f"{which} is not one move on from the {kind} before: {shown}")


def show(output: Output, towers: Towers, top_first: bool = True) -> str:
    """A board as a failure shows it: each peg's name and its discs, top first or bottom first, as
    the program lists them."""
    return "; ".join(f"{name}: {list(tower if top_first else tower[::-1])}" for name, tower in zip(output.pegs, towers))


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

    def __init__(self, output: Output, n: int, deadline: float | None = None) -> None:
        self._output, self._names, self._clock = output, output.pegs, _Clock(deadline)
        self._n = n
        self._width = n * (len(str(n)) + 1)
        self._rows: list[str] = []
        self._towers: Towers | None = None
        self._drawings = 0
        self.top_first = True
        """A drawing's row shows a tower's discs from the top, left to right."""

    def between_moves(self) -> bool:
        """Whether the next line begins the drawing after a move: the first drawing has been read,
        and no row of the next is."""
        return self._towers is not None and not self._rows

    def skip(self, moves: int, towers: Towers) -> None:
        """``moves`` drawings were taken without reading them, and ``towers`` is what the last shows."""
        self._towers = towers
        self._drawings += moves

    def read(self, line: str) -> list[Move]:
        """The move a drawing shows, at the blank line that ends it; none for the lines before."""
        if any(self._clock.run(pattern, "fullmatch", line) for pattern in self._output.ignore):
            return []
        if len(self._rows) < PEGS:
            self._rows.append(self._row(line, len(self._rows)))
            return []
        if line:
            raise Unreadable(f"{shorten(line)} should be the blank line after a drawing's {PEGS} rows")
        towers = [self._discs(row) for row in self._rows]
        self._rows = []
        self._drawings += 1
        before, self._towers = self._towers, towers
        if before is None:
            if towers != [tuple(range(1, self._n + 1)), (), ()]:
                raise Violation(f"the first drawing shows {show(self._output, towers)}, not all {self._n} discs on {self._names[0]}")
            return []
        if towers == before:  # the drawing before, drawn again: no move
            return []
        return [one_move(before, towers, self._output, f"drawing {self._drawings}")]

    def finish(self) -> None:
        """Refuse output that ends in the middle of a drawing, or has none."""
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


def reader(output: Output, n: int, deadline: float | None = None) -> LineReader | StateReader | DrawingReader:
    """The reader for a program's dialect; patterns may match until ``deadline``."""
    if output.format == "drawings":
        return DrawingReader(output, n, deadline)
    return StateReader(output, n, deadline) if output.format == "states" else LineReader(output, deadline)


def _peg(pegs: dict[str, int], name: str) -> int:
    try:
        return pegs[name]
    except KeyError:
        raise Unreadable(f"peg {shorten(name, 40)} is not one of {', '.join(map(repr, pegs))}") from None


def _tower(text: str) -> tuple[tuple[int, ...], bool | None]:
    """A tower's discs, top first, from their numbers listed top first or bottom first, and which of
    the two it was (None for a tower of fewer than two discs, which does not tell)."""
    discs = tuple(_disk(number) for number in re.split(r"[^0-9A-Za-z\u0080-\U0010ffff]+", text) if number)
    order = None if len(discs) < 2 else discs[0] < discs[1]
    if list(discs) == sorted(discs):
        return discs, order
    if list(discs) == sorted(discs, reverse=True):
        return discs[::-1], order
    raise Violation(f"the tower {shorten(text)} has a disc on a smaller one")


def _disk(text: str) -> int:
    """A disc's number: ASCII digits only (int() would take other scripts' digits too), and few of them."""
    if not (text.isascii() and text.isdigit()):
        raise Unreadable(f"disk {text[:20]!r} is not a whole number in the digits 0-9")
    if len(text) > MAX_DISC_DIGITS:
        raise Unreadable(f"disk {text[:20]}... has {len(text)} digits: no disc of a finishable puzzle has more than {MAX_DISC_DIGITS}")
    return int(text)
