"""``lines``: moves, one a line or several split by the manifest's separator, each read with the
manifest's patterns and peg names."""

from __future__ import annotations

import re
from collections.abc import Set
from typing import TYPE_CHECKING

from harness.expect import STRETCH_BYTES, Pegs, Plan, Wording, built
from harness.model import Move, Piece, Transfer
from harness.normalise import Clock, disc_named, disc_number, peg_number
from harness.output import Output
from harness.patterns import literal

if TYPE_CHECKING:
    from collections.abc import Sequence


class LineReader:
    """Moves, one a line, or several split by the manifest's separator."""

    top_first = None
    """Moves show no tower, so no order of its discs."""

    def __init__(self, output: Output, n: int | None = None, deadline: float | None = None) -> None:
        """``n`` is not needed: a line says all of its move."""
        self._output, self._clock = output, Clock(deadline)
        self._pegs = {name: index for index, name in enumerate(output.pegs)}
        self._discs = {name: disc for disc, name in enumerate(output.discs, 1)}

    def read(self, line: str) -> list[Move]:
        """The moves a line holds: one, or one a piece where the manifest splits lines."""
        pieces = (piece for piece in self._clock.pieces(self._output, line) if piece.strip())  # a separator may end the line
        return [self._move(self._clock.match(self._output.patterns, piece)) for piece in pieces]

    def finish(self) -> None:
        """Lines hold nothing back: there is never a move left half read."""

    def between_moves(self) -> bool:
        """Always: no line holds part of a move."""
        return True

    def skip(self, moves: int, pegs: Sequence[Sequence[int]]) -> None:
        """Nothing to keep: a line's move does not depend on the ones before."""

    def _move(self, match: re.Match[str]) -> Move:
        disk = match["disk"] if "disk" in match.re.groupindex else None
        number = None if disk is None else disc_named(self._discs, disk) if self._discs else disc_number(disk)
        return Move(number, peg_number(self._pegs, match["src"]), peg_number(self._pegs, match["dst"]))


class LineWording:
    """How a port that prints moves as lines, or as pieces of lines cut at a ``separator``, writes
    each move, learnt from the lines or pieces it printed that read as exactly that move, and the
    bytes it must therefore print for a whole piece of the solution."""

    def __init__(self, plan: Plan, separator: bytes | None = None, ignored: Set[bytes] = frozenset()) -> None:
        self._plan = plan
        self.separator = separator
        self._ignored = ignored
        """Whole lines the manifest ignores: a piece that is one is never a move's own bytes."""
        self.lines = 0 if separator else 1
        """Lines a move takes: one, or, with a separator, none (a piece of a line, which goes on)."""
        self._units: dict[Move, bytes] = {}
        self._texts: dict[Transfer, bytes] = {}
        self._longest = 1

    def units(self, raw: bytes, moves: int, cut: bool) -> list[bytes | None] | None:
        """Each move's own bytes in ``raw``, a line or, ``cut`` at a separator, a part of one, that
        read as ``moves`` moves: a line and its line ending, or a piece and the separator after it
        (not the last piece of a line, which a line ending follows, nor one that alone would be a
        line ignored). None where they cannot be told apart: pieces the reader skipped, or bytes
        that are not the text it read."""
        if self.separator is None:
            return [raw + b"\n"] if moves == 1 else None
        pieces = raw.split(self.separator)
        if len(pieces) != moves or raw.endswith(b"\r") or not _utf8(raw):
            return None
        units: list[bytes | None] = [None if piece in self._ignored else piece + self.separator for piece in pieces]
        if not cut:
            units[-1] = None
        return units

    def learn(self, move: Move, unit: bytes, pegs: Pegs) -> None:
        """``unit`` was read as ``move``, wherever the discs lie (``pegs``: a move's line does not show
        them). The latest way seen is kept: a port may write a move another way at first (the first
        piece of a line that opens a printed list), and the stretches built from the old way are
        built anew."""
        if self._units.get(move) != unit:
            self._units[move] = unit
            self._texts.clear()
            self._longest = max(self._longest, len(unit))

    def fits(self, moves: int) -> bool:
        """Whether a stretch of this many moves is small enough to be compared whole."""
        return moves * self._longest <= STRETCH_BYTES

    def text(self, piece: Piece, pegs: Pegs) -> bytes | None:
        """The bytes the port prints for ``piece`` (whatever the board, ``pegs``), or None while some
        move of it has not been seen. Where they are the canonical text itself (a port that prints
        ``DISK SRC DST``), that one copy is kept."""
        if isinstance(piece, Move):
            return self._units.get(piece)
        if piece in self._texts:
            return self._texts[piece]
        text = built(self._plan.rules, piece, self._texts, self._units.get)
        if text is not None and text == (canonical := self._plan.canonical(piece)):
            self._texts[piece] = text = canonical
        return text


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def wording(output: Output, plan: Plan) -> Wording | None:
    """The bytes the output must hold, where they can be known in advance: moves, as the port was
    seen to write each, one a line or split at a separator that is a plain text (a pattern could
    match across two moves' bytes), where each line ignored is a plain text too, without the
    separator (so it is never some moves' pieces, cut where the reading cuts a long line)."""
    if output.separator is None:
        return LineWording(plan)
    separator, ignored = literal(output.separator.pattern), [literal(pattern.pattern) for pattern in output.ignore]
    if not separator or any(text is None or separator in text for text in ignored):
        return None
    return LineWording(plan, separator.encode(), {text.encode() for text in ignored if text is not None})


class LineCounter:
    """Moves counted as line endings."""

    def __init__(self) -> None:
        self.moves = 0

    def take(self, block: bytes) -> None:
        """The next block of the output."""
        self.moves += block.count(b"\n")


def counter(output: Output) -> LineCounter | None:
    """Where each line is one move and nothing else, counting lines counts the moves."""
    return LineCounter() if not output.ignore and output.separator is None else None
