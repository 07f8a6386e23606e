"""Turn a program's own output into moves, as its manifest's [output] table says to read it.

Two dialects: ``lines``, one move a line, read with the manifest's patterns and peg names; and
``drawings``, the cyclic Tower of Hanoi article's pictures of the towers after each move, from
which each move is worked out by comparing a drawing with the one before.
"""

from __future__ import annotations

from harness.discover import Output
from harness.model import PEGS, Move, Violation


class Unreadable(ValueError):
    """Output that is not in the port's dialect: a line no pattern reads, a peg the port does not
    have, a malformed drawing."""


class LineReader:
    """One move a line."""

    def __init__(self, output: Output):
        self._patterns = output.patterns
        self._pegs = {name: index for index, name in enumerate(output.pegs)}

    def read(self, line: str) -> Move:
        for pattern in self._patterns:
            match = pattern.fullmatch(line)
            if match:
                disk = match["disk"] if "disk" in pattern.groupindex else None
                return Move(None if disk is None else _disk(disk), self._peg(match["src"]), self._peg(match["dst"]))
        expected = " or ".join(pattern.pattern for pattern in self._patterns)
        raise Unreadable(f"{line!r} matches none of the port's patterns; expected {expected}")

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
            raise Unreadable(f"{line!r} should be the blank line after a drawing's {PEGS} rows")
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
            raise Unreadable(f"{line!r} should be the row of peg {self._names[peg]}, ending in |{self._names[peg]}")
        if len(body) != self._width or body.strip("-0123456789"):
            raise Unreadable(
                f"{line!r}: a row draws {self._n} slots of {len(str(self._n)) + 1} characters, hyphens and digits, before the |"
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


def reader(output: Output, n: int) -> LineReader | DrawingReader:
    """The reader for a program's dialect."""
    return DrawingReader(output, n) if output.format == "drawings" else LineReader(output)


def _disk(text: str) -> int:
    if not text.isdecimal():
        raise Unreadable(f"disk {text!r} is not a whole number")
    return int(text)
