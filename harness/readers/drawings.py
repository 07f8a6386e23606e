"""``drawings``: the cyclic Tower of Hanoi article's pictures of the towers, a row a peg, read
the same way as states."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.environment import quote
from harness.errors import Unreadable, Violation
from harness.expect import STRETCH_BYTES, Pegs, Plan, Wording
from harness.model import PEGS, Move, Piece, Transfer
from harness.normalise import Clock, Towers
from harness.output import Output
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
        self._slot = max(map(len, disc_labels(n, output.discs)), default=1) + 1
        self._width = n * self._slot
        self._discs = {name: disc for disc, name in enumerate(output.discs, 1)}
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
        slot = self._slot
        slots = [body[start:start + slot] for start in range(0, len(body), slot)]
        if len(body) != self._width or any(not self._slot_reads(each) for each in slots):
            named = "name" if self._discs else "number"
            raise Unreadable(
                f"{quote(line)}: a row draws {self._n} slots of {slot} characters before the |, each hyphens"
                f" or a disc's {named} right-aligned after them"
            )
        return tuple(self._discs[label] if self._discs else int(label) for each in slots if (label := each.lstrip("-")))

    def _slot_reads(self, slot: str) -> bool:
        """Whether a slot is hyphens, then nothing or a disc's number (or its name, by the manifest's ``discs``)."""
        label = slot.lstrip("-")
        return slot[:1] == "-" and (not label or (label in self._discs if self._discs else bool(_SLOT.fullmatch(slot))))



def disc_labels(n: int, discs: Sequence[str]) -> list[str]:
    """What a drawing writes for discs 1 to n: their numbers, or the program's names for them (numbers
    past the last name, which no cell of the port asks for: its max_n is the number of names)."""
    return [discs[disc - 1] if disc <= len(discs) else str(disc) for disc in range(1, n + 1)]


_BEFORE = (b"\x01", b"\x02", b"\x03")
_AFTER = (b"\x04", b"\x05", b"\x06")
"""Where a drawing's rows, in a stretch's template, take what lies to the left of the stretch's own
discs and what lies under them (each peg's row has its own mark)."""


class DrawingWording:
    """The bytes of the cyclic Tower of Hanoi article's drawings, as ``DrawingReader`` reads them: each
    row a tower's slots from the top, right-aligned in hyphens, then ``|`` and the peg's name; three
    rows and a blank line a move.

    A stretch moves the k smallest discs while the larger ones lie still, under them, so each row is
    what lies left of the k discs' slots, those slots, and what lies under them: the middle is the
    stretch's own, the same wherever the stretch comes, and is kept as a template with a mark at each
    side; the sides are filled in from the board at the stretch's start, a replace per mark."""

    lines = PEGS + 1

    def __init__(self, plan: Plan, names: Sequence[str], discs: Sequence[str] = ()) -> None:
        """``names``: the pegs'; ``discs``: the discs', where the program names them."""
        self._plan = plan
        labels = disc_labels(plan.n, discs)
        self._slot = max(map(len, labels), default=1) + 1
        self._slots = [b""] + [label.rjust(self._slot, "-").encode() for label in labels]
        self._names = [name.encode() for name in names]
        self._size = sum(plan.n * self._slot + 2 + len(name) for name in self._names) + 1
        self._templates: dict[Transfer, bytes] = {}

    @staticmethod
    def takes(names: Sequence[str]) -> bool:
        """Whether the peg names can be filled into a template: none may hold a character that is not
        printable, as the marks are not."""
        return all(name.isprintable() for name in names)

    def fits(self, moves: int) -> bool:
        """Whether a stretch of this many moves is small enough to be compared whole."""
        return moves * self._size <= STRETCH_BYTES

    def text(self, piece: Piece, pegs: Pegs) -> bytes:
        """The drawings after each move of ``piece``, the discs lying as ``pegs`` says before it."""
        if isinstance(piece, Move):
            after = [list(peg) for peg in pegs]
            after[piece.dst].append(after[piece.src].pop())
            return self._fill(self._drawing(0, [(), (), ()]), 0, after)
        return self._fill(self._template(piece), piece[0], pegs)

    def units(self, raw: bytes, moves: int, cut: bool) -> None:
        """None: a drawing's bytes follow from the board alone, nothing is learnt from the output."""
        return None

    def learn(self, move: Move, unit: bytes, pegs: Pegs) -> None:
        """Never called: :meth:`units` gives no bytes to learn."""

    def _fill(self, template: bytes, discs: int, pegs: Pegs) -> bytes:
        """A template of the ``discs`` smallest discs' slots with each row's sides filled in: the
        hyphens left of them, and the larger discs under them, the bar and the peg's name."""
        text = template
        for peg, under in enumerate(pegs):
            still = [disc for disc in under if disc > discs]
            left = b"-" * ((self._plan.n - discs - len(still)) * self._slot)
            right = b"".join(self._slots[disc] for disc in reversed(still)) + b"|" + self._names[peg] + b"\n"
            text = text.replace(_BEFORE[peg], left).replace(_AFTER[peg], right)
        return text

    def _template(self, transfer: Transfer) -> bytes:
        """The drawings of a transfer's own discs after each of its moves, marks at each row's sides:
        its pieces' templates, each widened by the largest disc, and the drawing after each move of it."""
        if transfer not in self._templates:
            discs, src, _ = transfer
            rest, largest = src, src  # where the smaller discs lie, together, and where the largest does
            parts = []
            for piece in self._plan.rules.split(*transfer):
                if isinstance(piece, Move):
                    largest = piece.dst
                    towers = [tuple(range(1, discs)) if peg == rest else () for peg in range(PEGS)]
                    towers[largest] += (discs,)
                    parts.append(self._drawing(discs, towers))
                elif piece[0]:
                    parts.append(self._widen(self._template(piece), discs, largest))
                    rest = piece[2]
            self._templates[transfer] = b"".join(parts)
        return self._templates[transfer]

    def _widen(self, template: bytes, disc: int, peg: int) -> bytes:
        """A template of the discs smaller than ``disc`` as one of them all: ``disc`` under the others'
        slots on ``peg``, an empty slot left of them on the other pegs."""
        for other in range(PEGS):
            if other == peg:
                template = template.replace(_AFTER[other], self._slots[disc] + _AFTER[other])
            else:
                template = template.replace(_BEFORE[other], _BEFORE[other] + b"-" * self._slot)
        return template

    def _drawing(self, discs: int, towers: Sequence[Sequence[int]]) -> bytes:
        """One drawing's template: each tower of the ``discs`` smallest discs, top first."""
        rows = [
            _BEFORE[peg] + b"-" * ((discs - len(tower)) * self._slot) + b"".join(self._slots[disc] for disc in tower) + _AFTER[peg]
            for peg, tower in enumerate(towers)
        ]
        return b"".join(rows) + b"\n"


def wording(output: Output, plan: Plan) -> Wording | None:
    """The drawings' bytes as the reader reads them, with no line the manifest ignores (an ignored
    line is no row) and peg names that can be filled in."""
    return DrawingWording(plan, output.pegs, output.discs) if not output.ignore and DrawingWording.takes(output.pegs) else None


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
