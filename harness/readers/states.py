"""``states``: the board after each move (and perhaps before the first), one tower a pattern; each
move is worked out by comparing a state with the one before."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.environment import quote
from harness.errors import Unreadable, Violation
from harness.expect import Plan, Wording
from harness.model import PEGS, Move
from harness.normalise import Clock, Towers, disc_number, peg_number
from harness.readers import Output

if TYPE_CHECKING:
    from collections.abc import Sequence

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
        read = (peg, *_tower(match["discs"]))
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


def _tower(text: str) -> tuple[tuple[int, ...], bool | None]:
    """A tower's discs, top first, from their numbers listed top first or bottom first, and which of
    the two it was (None for a tower of fewer than two discs, which does not tell)."""
    discs = tuple(disc_number(number) for number in re.split(r"[^0-9A-Za-z\u0080-\U0010ffff]+", text) if number)
    order = None if len(discs) < 2 else discs[0] < discs[1]
    if list(discs) == sorted(discs):
        return discs, order
    if list(discs) == sorted(discs, reverse=True):
        return discs[::-1], order
    raise Violation(f"the tower {quote(text)} has a disc on a smaller one")


def wording(output: Output, plan: Plan) -> Wording | None:
    """None: only the manifest's patterns can tell what a tower's text reads as."""
    return None


def counter(output: Output) -> None:
    """None: a state takes several lines, and the first may come before any move."""
    return None
