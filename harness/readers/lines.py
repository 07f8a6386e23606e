"""``lines``: moves, one a line or several split by the manifest's separator, each read with the
manifest's patterns and peg names."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.expect import LineWording, Plan, Wording
from harness.model import Move
from harness.normalise import Clock, disc_named, disc_number, peg_number
from harness.patterns import literal
from harness.readers import Output

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
