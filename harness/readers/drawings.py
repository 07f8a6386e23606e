"""``drawings``: the cyclic Tower of Hanoi article's pictures of the towers, a row a peg, read
the same way as states."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.environment import quote
from harness.errors import Unreadable, Violation
from harness.expect import DrawingWording, Plan, Wording
from harness.model import PEGS, Move
from harness.normalise import Clock, Towers
from harness.readers import Output
from harness.readers.states import one_move, show

if TYPE_CHECKING:
    from collections.abc import Sequence


_SLOT = re.compile(r"-+[0-9]*")
"""One slot of a row: hyphens, then a disc's number or nothing, so that the number is right-aligned."""


class DrawingReader:
    """The towers drawn after each move, one row a tower and a blank line after them::

        -------1--2|A
        -------------|B
        -------------|C

    Each row is one slot a disc, left to right from the top: a slot is hyphens, or hyphens and the
    disc's number, right-aligned in it (``-1`` and ``--`` are slots of two characters; ``1-`` is
    none). The first drawing must show every disc on the first peg; each one
    after it must be the drawing before with one disc moved from the top of one tower to the top of
    another, and that is the move. The board then judges whether the move was legal.
    """

    def __init__(self, output: Output, n: int, deadline: float | None = None) -> None:
        self._output, self._names, self._clock = output, output.pegs, Clock(deadline)
        self._n = n
        self._width = n * (len(str(n)) + 1)
        self._rows: list[tuple[int, ...]] = []
        self._towers: Towers | None = None
        self._drawings = 0
        self.top_first = True
        """A drawing's row shows a tower's discs from the top, left to right."""

    def between_moves(self) -> bool:
        """Whether the next line begins the drawing after a move: the first drawing has been read,
        and no row of the next is."""
        return self._towers is not None and not self._rows

    def skip(self, moves: int, pegs: Sequence[Sequence[int]]) -> None:
        """``moves`` drawings were taken without reading them, and ``pegs`` (each from its bottom disc
        up) is what the last shows."""
        self._towers = [tuple(reversed(peg)) for peg in pegs]
        self._drawings += moves

    def read(self, line: str) -> list[Move]:
        """The move a drawing shows, at the blank line that ends it; none for the lines before."""
        if any(self._clock.run(pattern, "fullmatch", line) for pattern in self._output.ignore):
            return []
        if len(self._rows) < PEGS:
            self._rows.append(self._row(line, len(self._rows)))
            return []
        if line:
            raise Unreadable(f"{quote(line)} should be the blank line after a drawing's {PEGS} rows")
        towers, self._rows = self._rows, []
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

    def _row(self, line: str, peg: int) -> tuple[int, ...]:
        """The discs a row draws, from the top."""
        body, bar, name = line.rpartition("|")
        if not bar or name != self._names[peg]:
            raise Unreadable(f"{quote(line)} should be the row of peg {self._names[peg]}, ending in |{self._names[peg]}")
        slot = len(str(self._n)) + 1
        slots = [body[start:start + slot] for start in range(0, len(body), slot)]
        if len(body) != self._width or any(not _SLOT.fullmatch(each) for each in slots):
            raise Unreadable(
                f"{quote(line)}: a row draws {self._n} slots of {slot} characters before the |, each hyphens"
                " or a disc's number right-aligned after them"
            )
        return tuple(int(number) for each in slots if (number := each.lstrip("-")))


def wording(output: Output, plan: Plan) -> Wording | None:
    """The drawings' bytes as the reader reads them, with no line the manifest ignores (an ignored
    line is no row) and peg names that can be filled in."""
    return DrawingWording(plan, output.pegs) if not output.ignore and DrawingWording.takes(output.pegs) else None


class DrawingCounter:
    """Moves counted as drawings: a blank line ends each, the first the towers before any move."""

    def __init__(self) -> None:
        self.drawings = 0
        self._last = b""

    @property
    def moves(self) -> int:
        """The drawings after the first, each drawn after a move."""
        return self.drawings - 1

    def take(self, block: bytes) -> None:
        """The next block of the output: each "\\n\\n", across blocks too, ends a drawing."""
        self.drawings += block.count(b"\n\n") + (self._last == b"\n" and block[:1] == b"\n")
        self._last = block[-1:]


def counter(output: Output) -> DrawingCounter | None:
    """Where nothing but drawings is printed, counting drawings counts the moves."""
    return DrawingCounter() if not output.ignore and output.separator is None else None
