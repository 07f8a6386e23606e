"""Replay moves on a board and enforce the rules as they happen: trust no port, not even when all agree."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from harness.errors import Violation
from harness.model import PEGS, Move, Rules, Transfer

CANONICAL = tuple(str(peg) for peg in range(PEGS))
"""The pegs' canonical names, 0, 1 and 2: a port that names its pegs so needs no number beside them."""


def peg_name(peg: int, names: Sequence[str] = CANONICAL) -> str:
    """``peg left (0)``, as messages name a peg: by the port's own name (the manifest's ``pegs``),
    with the canonical number beside it where the two differ; ``peg 0`` where they do not."""
    name = names[peg]
    return f"peg {name}" if name == str(peg) else f"peg {name} ({peg})"


def describe(move: Move, names: Sequence[str] = CANONICAL) -> str:
    """``disc 1 from peg 0 to peg 2``, as messages name a move, its pegs by the port's ``names``."""
    disk = "a disc" if move.disk is None else f"disc {move.disk}"
    return f"{disk} from {peg_name(move.src, names)} to {peg_name(move.dst, names)}"


class Board:
    """Three pegs with discs 1..n on peg 0, 1 the smallest, that accept only legal moves; its
    messages name the pegs by the port's ``names``."""

    def __init__(self, n: int, rules: Rules, names: Sequence[str] = CANONICAL) -> None:
        self.n = n
        self.rules = rules
        self.names = tuple(names)
        self.limit = rules.optimal_count(n)
        self.pegs: list[list[int]] = [list(range(n, 0, -1))] + [[] for _ in range(PEGS - 1)]
        self.count = 0

    def play(self, move: Move) -> Move:
        """Make the move and return it with its disc named (inferred from the board when the port gave none)."""
        self.count += 1
        if self.count > self.limit:
            self._break(move, f"more moves than the optimal {self.limit} ({self.rules.count_formula})")
        if move.src == move.dst:
            self._break(move, "source and target are the same peg")
        direction = self.rules.direction
        if direction is not None and move.dst != (move.src + direction) % PEGS:
            ways = ", ".join(f"{self.names[peg]} → {self.names[(peg + direction) % PEGS]}" for peg in range(PEGS))
            rule = f"a disc may only go from peg p to peg (p + {direction}) mod {PEGS}"
            self._break(move, rule if self.names == CANONICAL else f"{rule}: {ways}")
        source, target = self.pegs[move.src], self.pegs[move.dst]
        if not source:
            self._break(move, f"{peg_name(move.src, self.names)} is empty")
        disk = source[-1]
        if move.disk is not None and move.disk != disk:
            self._break(move, f"the top of {peg_name(move.src, self.names)} is disc {disk}, not disc {move.disk}")
        if target and target[-1] < disk:
            self._break(move, f"puts disc {disk} on smaller disc {target[-1]}")
        target.append(source.pop())
        return Move(disk, move.src, move.dst)

    def skip(self, transfer: Transfer, moves: int) -> None:
        """Take a stretch of moves known to be the optimal ones for ``transfer``, at once: its discs,
        the smallest ones, go from the top of one peg to the top of another, in the same order."""
        discs, src, dst = transfer
        moved = self.pegs[src][-discs:]
        del self.pegs[src][-discs:]
        self.pegs[dst].extend(moved)
        self.count += moves

    def _break(self, move: Move, rule: str) -> NoReturn:
        raise Violation(f"move {self.count} ({describe(move, self.names)}): {rule}")

    def finish(self, top_first: bool = False) -> None:
        """Check the run ended solved: every disc on the target peg. With no move past the optimal
        count allowed, and none shorter possible, a solved board means an optimal run. The message
        lists each peg's discs top first where the port printed them so, else bottom first."""
        if len(self.pegs[self.rules.target]) != self.n:
            raise Violation(
                f"after {self.count} moves the discs are not all on {peg_name(self.rules.target, self.names)}: {self.layout(top_first)}"
            )

    def layout(self, top_first: bool = False) -> str:
        """The pegs' discs, bottom first (or top first), for a message."""
        return "; ".join(f"{peg_name(index, self.names)}: {peg[::-1] if top_first else peg}" for index, peg in enumerate(self.pegs))
