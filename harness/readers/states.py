"""``states``: the board after each move (and perhaps before the first), one tower a pattern; each
move is worked out by comparing a state with the one before."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from harness.environment import quote
from harness.errors import OutOfTime, Unreadable, Violation
from harness.expect import STRETCH_BYTES, Pegs, Plan, Wording
from harness.model import PEGS, Move, Piece, Transfer
from harness.normalise import MAX_LINE_BYTES, Clock, Towers, disc_number, peg_number
from harness.output import Output
from harness.patterns import fixed_around

KEPT_TOWERS = 1 << 17
"""The most towers' texts kept read: a few tens of MiB at most, more than n = 20 shows."""


class StateReader:
    """The board after each move, and perhaps before the first: each match of a pattern is one
    tower, its discs in the group ``discs`` (numbers between any other characters, from the top or
    from the bottom: the first tower of two discs or more shows which, and every tower after it is
    read in that order, so that one listed the other way has a disc on a smaller one), and the peg in the group ``peg`` or, without it, the
    next peg in the order 0, 1, 2. Three towers make a state; the move is what changed since the
    state before, which must be exactly one disc taken from one top to another."""

    def __init__(self, output: Output, n: int, deadline: float | None = None) -> None:
        self._output, self._clock = output, Clock(deadline)
        self._pegs = {name: index for index, name in enumerate(output.pegs)}
        self._discs = DiscNames(output.discs) if output.discs else None
        self._reading: dict[int, tuple[int, ...]] = {}
        self._known: dict[str, tuple[int | None, tuple[int, ...], bool | None]] = {}
        self._towers: Towers = [tuple(range(1, n + 1)), (), ()]
        self._states = 0
        self.top_first: bool | None = None
        """Whether the program lists a tower's discs from the top; None until a tower of two shows it."""

    def read(self, line: str) -> list[Move]:
        """The moves a line completes: one once a whole state has been read after the one before."""
        moves = []
        for piece in self._clock.pieces(self._output, line):
            named, tower, top_first = self._read_tower(piece)
            if top_first is not None and self.top_first is not None and top_first != self.top_first:
                order = "top" if self.top_first else "bottom"
                raise Violation(f"the tower {quote(piece)} has a disc on a smaller one, read {order} first as the program lists its towers")
            peg = len(self._reading) if named is None else named
            if peg in self._reading:
                raise Unreadable(f"{quote(piece)} shows peg {self._output.pegs[peg]} a second time in one state")
            self._reading[peg] = tower
            self.top_first = top_first if self.top_first is None else self.top_first
            if len(self._reading) == PEGS:
                towers, self._reading = [self._reading[peg] for peg in range(PEGS)], {}
                moves += self._state(towers)
        return moves

    def _read_tower(self, piece: str) -> tuple[int | None, tuple[int, ...], bool | None]:
        """The peg a piece names (None where the pattern has no ``peg``), its discs, top first, and
        whether they were listed top first. A tower's text is read once: the same few thousand come
        back throughout a long solution (about 46,000 for n = 20's million states), kept up to
        KEPT_TOWERS."""
        if (known := self._known.get(piece)) is not None:
            return known
        match = self._clock.match(self._output.patterns, piece)
        peg = peg_number(self._pegs, match["peg"]) if "peg" in match.re.groupindex else None
        read = (peg, *_tower(match["discs"], self._discs))
        if len(self._known) < KEPT_TOWERS:
            self._known[piece] = read
        return read

    def between_moves(self) -> bool:
        """Whether no state is half read."""
        return not self._reading

    def skip(self, moves: int, pegs: Sequence[Sequence[int]]) -> None:
        """``moves`` states were taken without reading them, and ``pegs`` (each from its bottom disc
        up) is what the last shows."""
        self._towers = [tuple(reversed(peg)) for peg in pegs]
        self._states += moves

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


SEPARATORS = r"[^0-9A-Za-z\u0080-\U0010ffff]+"
"""What may lie between the discs of a tower: spaces and ASCII punctuation, nothing a disc's number or name is made of."""


class DiscNames:
    """The manifest's names for discs 1, 2, 3…, found in a tower's text longest first, with only
    separators between them."""

    def __init__(self, names: Sequence[str]) -> None:
        self._numbers = {name: disc for disc, name in enumerate(names, 1)}
        self._pattern = re.compile("|".join(re.escape(name) for name in sorted(names, key=len, reverse=True)))

    def read(self, text: str) -> list[int]:
        """The discs the text names, in its order; a text between them that is not a separator is unreadable."""
        discs, at = [], 0
        for match in [*self._pattern.finditer(text), None]:
            gap = text[at:match.start() if match else len(text)]
            if gap and not re.fullmatch(SEPARATORS, gap):
                raise Unreadable(f"{quote(gap, 40)} in the tower {quote(text)} is none of the port's discs {', '.join(map(repr, self._numbers))}")
            if match:
                discs.append(self._numbers[match[0]])
                at = match.end()
        return discs


def _tower(text: str, names: DiscNames | None = None) -> tuple[tuple[int, ...], bool | None]:
    """A tower's discs, top first, from their numbers (or ``names``) listed top first or bottom
    first, and which of the two it was (None for a tower of fewer than two discs, which does not tell)."""
    listed = names.read(text) if names else [disc_number(number) for number in re.split(SEPARATORS, text) if number]
    discs = tuple(listed)
    order = None if len(discs) < 2 else discs[0] < discs[1]
    if list(discs) == sorted(discs):
        return discs, order
    if list(discs) == sorted(discs, reverse=True):
        return discs[::-1], order
    raise Violation(f"the tower {quote(text)} has a disc on a smaller one")


_MARKS = tuple((bytes([0x0E + 2 * position]), bytes([0x0F + 2 * position])) for position in range(PEGS))
"""Where a board's rows, in a stretch's template, take what the larger discs beneath the stretch's
own make of them: each printed tower's row is its first mark alone (the stretch's discs are not on
it: the whole tower is filled in), or the stretch's discs with its second mark on the side the
larger discs are listed (filled in with them, and what comes before or after the tower's discs),
the text on the other side written out. No byte a learnt part may hold."""
_TEXT = re.compile(rb"[\t\x20-\x7e]*")
"""What a board's learnt lines may hold: printable ASCII, and tabs."""


class _Unknown(Exception):
    """A part of the board's text not yet seen in the output."""


class BoardWording:
    """How a port writes a board, learnt from the boards it printed that read as the reference's, and
    the bytes it must therefore print for a whole piece of the solution.

    Each printed tower is a line of the manifest's one pattern, which reads a fixed number of
    characters before its group ``discs`` and after it and any of one set's in it
    (:func:`~harness.patterns.fixed_around`), so the group always holds what lies between them. What
    is learnt, for each of the three lines in the order printed: the peg, the text of an empty tower,
    and what comes before and after the discs of one that is not; then the text between two discs
    and whether the top comes first, and the blank lines before each tower's line (the first
    tower's: those between two boards). Learnt once, each must stay the same, or nothing is used:
    the board the parts were learnt from must come out of them again, and the pattern must read the
    discs' text as the set of its group reads any of its characters (a tower of every digit and the
    text between discs, tried once a line) and as ASCII that is no disc's number but the discs'. So
    the reader reads the predicted text of a tower as exactly that tower: different boards make
    different bytes, and equal bytes are the reference's boards.

    Like :class:`~harness.readers.drawings.DrawingWording`, a stretch's boards are a template of its
    own discs after each of its moves, with marks where the larger discs beneath them (still
    throughout) are filled in."""

    def __init__(self, plan: Plan, output: Output, fixed: tuple[int, int]) -> None:
        self._plan, self._output, self._fixed = plan, output, fixed
        self._pattern, self._clock = output.patterns[0], Clock(None)
        self._named = "peg" in self._pattern.groupindex
        self._order: list[int | None] = [None] * PEGS
        self._empty: list[bytes | None] = [None] * PEGS
        self._before: list[bytes | None] = [None] * PEGS
        self._after: list[bytes | None] = [None] * PEGS
        self._between: bytes | None = None
        self._top_first: bool | None = None
        self._blank: list[bytes] | None = None
        self._lines: list[bytes] = []
        self._probed: set[int] = set()
        self._fresh = False
        self._moved = False
        self._broken = False
        self._templates: dict[Transfer, bytes] = {}
        self._numbers = [str(disc).encode() for disc in range(plan.n + 1)]
        self._board_bytes = self._size()
        self.lines = PEGS

    def fits(self, moves: int) -> bool:
        """Whether a stretch of this many moves is small enough to be compared whole."""
        return moves * self._board_bytes <= STRETCH_BYTES

    def _size(self) -> int:
        """The most bytes a board may take: each of the n discs is on one tower."""
        blank = sum(map(len, self._blank or []))
        towers = sum(len(self._before[at] or b"") + len(self._after[at] or b"") + len(self._empty[at] or b"") + 1 for at in range(PEGS))
        return blank + towers + self._plan.n * (len(str(self._plan.n)) + len(self._between or b" "))

    def units(self, raw: bytes, moves: int, cut: bool) -> list[bytes | None] | None:
        """The lines since the board before, once a line completes a board that is a move on: the
        board's own lines and the blank lines before it."""
        self._lines.append(raw + b"\n")
        if not moves:
            return None
        unit, self._lines = b"".join(self._lines), []
        self._fresh, self._moved = self._moved, True
        return [unit] if moves == 1 else None

    def learn(self, move: Move, unit: bytes, pegs: Pegs) -> None:
        """``unit`` was read as ``move``, the reference's, after which the discs lie as ``pegs``."""
        if self._broken:
            return
        try:
            self._learn(unit.split(b"\n")[:-1], pegs)
        except (_Unknown, Unreadable, OutOfTime, ValueError):
            self._broken = True

    def _learn(self, lines: list[bytes], pegs: Pegs) -> None:
        if not all(_TEXT.fullmatch(line) for line in lines):
            raise ValueError("not printable ASCII")
        towers = [at for at, line in enumerate(lines) if line.strip()]
        if len(towers) < PEGS:
            raise ValueError("fewer towers than pegs")
        last = towers[-PEGS:]
        starts = [towers[-PEGS - 1] + 1 if len(towers) > PEGS else 0 if self._fresh else None, last[0] + 1, last[1] + 1]
        if starts[0] is not None:
            blank = [b"".join(line + b"\n" for line in lines[start:end]) for start, end in zip(starts, last)]
            self._blank = _same(self._blank, blank)
        for position, at in enumerate(last):
            self._learn_tower(position, lines[at], pegs)
        for position in range(PEGS):
            if position not in self._probed and self._before[position] is not None and self._between is not None:
                self._probe(position)
        if starts[0] is not None and self._ready() and self._board(pegs) != b"".join(line + b"\n" for line in lines[starts[0]:]):
            raise ValueError("the board learnt does not come out of its parts")
        self._board_bytes = self._size()
        self.lines = PEGS + sum(part.count(b"\n") for part in self._blank or [])

    def _learn_tower(self, position: int, line: bytes, pegs: Pegs) -> None:
        """One printed tower's line, read with the pattern as the reader reads it."""
        match = self._clock.match(self._output.patterns, line.decode("ascii"))
        start, end = match.span("discs")
        if (start, len(line) - end) != self._fixed:
            raise ValueError("the pattern read the line otherwise than its parse says")
        peg = self._output.pegs.index(match["peg"]) if self._named else position
        self._order[position] = _same(self._order[position], peg)
        tower = list(pegs[peg])
        discs = list(re.finditer(rb"[0-9]+", line[start:end]))
        junk = [line[start:end][left:right] for left, right in zip([0] + [disc.end() for disc in discs], [disc.start() for disc in discs] + [end - start])]
        if any(re.search(rb"[A-Za-z]", part) for part in junk):
            raise ValueError("letters among the discs")
        if not tower:
            if discs:
                raise ValueError("an empty tower's line with a number among its discs")
            self._empty[position] = _same(self._empty[position], line)
            return
        written, bottom_first = [disc[0] for disc in discs], [self._numbers[disc] for disc in tower]
        if written not in (bottom_first, bottom_first[::-1]):  # each number as the harness writes it, no 03
            raise ValueError("the line is not the tower read")
        if len(tower) > 1:
            self._top_first = _same(self._top_first, written != bottom_first)
            self._between = _same(self._between, junk[1])
            if any(part != self._between for part in junk[1:-1]):
                raise ValueError("two texts between discs")
        before, after = line[:start] + junk[0], junk[-1] + line[end:]
        self._before[position] = _same(self._before[position], before)
        self._after[position] = _same(self._after[position], after)

    def _probe(self, position: int) -> None:
        """The pattern reads a tower of every digit, the discs' text between them, as its fixed
        characters around the group ``discs``, and the same peg: so its set holds every character a
        tower's discs are written with."""
        assert self._between is not None
        line = self._around(position, b"0123456789" + self._between + b"1", probed=False)
        match = self._clock.match(self._output.patterns, line.decode("ascii"))
        if match.span("discs") != (self._fixed[0], len(line) - self._fixed[1]):
            raise ValueError("the pattern does not read every digit among the discs")
        if self._named and self._output.pegs.index(match["peg"]) != self._order[position]:
            raise ValueError("the pattern reads another peg")
        self._probed.add(position)

    def _around(self, position: int, discs: bytes, probed: bool = True) -> bytes:
        """A tower's line, its discs written ``discs``: what comes before and after them, once the
        pattern is known to read them so (``probed``)."""
        before, after = self._sides(position, probed)
        return before + discs + after

    def _sides(self, position: int, probed: bool = True) -> tuple[bytes, bytes]:
        """What comes before a tower's discs and after them, once the pattern is known to read them
        so (``probed``)."""
        if probed and position not in self._probed:
            raise _Unknown
        return _known(self._before[position]), _known(self._after[position])

    def _ready(self) -> bool:
        """Whether the parts every board shares are known: the order, the text between discs, the
        blank lines, and the lines are never longer than a reader takes."""
        return (
            not self._broken and set(self._order) == set(range(PEGS))
            and self._between is not None and self._top_first is not None and self._blank is not None
            and self._longest() <= MAX_LINE_BYTES
        )

    def _longest(self) -> int:
        """The most bytes a tower's line may take, for ``n`` discs."""
        discs = self._plan.n * (len(str(self._plan.n)) + len(self._between or b""))
        return max(len(self._empty[at] or b"") + len(self._before[at] or b"") + len(self._after[at] or b"") + discs for at in range(PEGS))

    def text(self, piece: Piece, pegs: Pegs) -> bytes | None:
        """The boards after each move of ``piece``, the discs lying as ``pegs`` says before it; None
        while a part they need has not been seen."""
        if not self._ready():
            return None
        try:
            if isinstance(piece, Move):
                after = [list(peg) for peg in pegs]
                after[piece.dst].append(after[piece.src].pop())
                return self._board(after)
            return self._fill(self._template(piece), piece[0], pegs)
        except _Unknown:
            return None

    def _tower(self, position: int, tower: Sequence[int]) -> bytes:
        """A printed tower's line, its discs from the bottom in ``tower``."""
        if not tower:
            return _known(self._empty[position])
        return self._around(position, self._discs(tower))

    def _discs(self, tower: Sequence[int]) -> bytes:
        """Discs, given from the bottom, as the port lists them."""
        assert self._between is not None
        numbers = self._numbers
        return self._between.join([numbers[disc] for disc in (reversed(tower) if self._top_first else tower)])

    def _board(self, pegs: Pegs) -> bytes:
        assert self._blank is not None
        return b"".join(self._blank[at] + self._tower(at, pegs[peg]) + b"\n" for at, peg in enumerate(self._pegs()))

    def _pegs(self) -> list[int]:
        return [peg for peg in self._order if peg is not None]

    def _fill(self, template: bytes, discs: int, pegs: Pegs) -> bytes:
        """A template of the ``discs`` smallest discs with each tower's larger discs filled in."""
        assert self._between is not None
        for at, peg in enumerate(self._pegs()):
            alone, side = _MARKS[at]
            still = [disc for disc in pegs[peg] if disc > discs]
            if alone in template:
                template = template.replace(alone, self._tower(at, still))
            if side in template:
                before, after = self._sides(at)
                if self._top_first:
                    template = template.replace(side, (self._between + self._discs(still) if still else b"") + after)
                else:
                    template = template.replace(side, before + (self._discs(still) + self._between if still else b""))
        return template

    def _template(self, transfer: Transfer) -> bytes:
        """The boards of a transfer's own discs after each of its moves, marks for the rest: its
        pieces' templates, each widened by the largest disc, and the board after each move of it."""
        if transfer not in self._templates:
            discs, src, _ = transfer
            rest, largest = src, src
            parts = []
            for piece in self._plan.rules.split(*transfer):
                if isinstance(piece, Move):
                    largest = piece.dst
                    towers: list[list[int]] = [list(range(discs - 1, 0, -1)) if peg == rest else [] for peg in range(PEGS)]
                    towers[largest].insert(0, discs)
                    parts.append(self._marked(towers))
                elif piece[0]:
                    parts.append(self._widen(self._template(piece), discs, largest))
                    rest = piece[2]
            self._templates[transfer] = b"".join(parts)
        return self._templates[transfer]

    def _row(self, at: int, discs: bytes) -> bytes:
        """A tower's row in a template: ``discs``, the stretch's own, with the mark on the side of the
        larger discs."""
        before, after = self._sides(at)
        side = _MARKS[at][1]
        return before + discs + side if self._top_first else side + discs + after

    def _marked(self, towers: Sequence[Sequence[int]]) -> bytes:
        """One board's template: each tower of the stretch's own discs, from the bottom."""
        assert self._blank is not None
        return b"".join(
            self._blank[at] + (self._row(at, self._discs(towers[peg])) if towers[peg] else _MARKS[at][0]) + b"\n"
            for at, peg in enumerate(self._pegs())
        )

    def _widen(self, template: bytes, disc: int, peg: int) -> bytes:
        """A template of the discs smaller than ``disc`` as one of them all: ``disc`` under the
        others on ``peg``."""
        assert self._between is not None
        at = self._pegs().index(peg)
        alone, side = _MARKS[at]
        number = str(disc).encode()
        under = side + number + self._between if not self._top_first else self._between + number + side
        return template.replace(side, under).replace(alone, self._row(at, number))


def _known(part: bytes | None) -> bytes:
    if part is None:
        raise _Unknown
    return part


_Part = TypeVar("_Part")


def _same(learnt: _Part | None, seen: _Part) -> _Part:
    """What was seen, which must be what was learnt before, if anything was."""
    if learnt is not None and learnt != seen:
        raise ValueError("a part of the board written two ways")
    return seen


def wording(output: Output, plan: Plan) -> Wording | None:
    """The boards' bytes, where each tower is a line of one pattern that reads fixed characters
    around its discs (:class:`BoardWording`), nothing is ignored or split, and the discs are
    numbers; else None (discs with names, ``output.discs``, too), and every line is read."""
    if output.separator is not None or output.ignore or len(output.patterns) != 1 or output.discs:
        return None
    fixed = fixed_around(output.patterns[0].pattern, "discs")
    return None if fixed is None else BoardWording(plan, output, fixed)


def counter(output: Output) -> None:
    """None: a state takes several lines, and the first may come before any move."""
    return None
