"""The reference sequence, laid out for fast comparison: the optimal moves unfold as a few top-level
single moves between stretches small enough to hold (a stretch is a smaller problem, ``(discs, src,
dst)``), and every stretch of the same problem is the same moves. Each stretch is unfolded once, kept
as its moves and its canonical text, and, once a port's way of writing each of its moves has been
seen, as the very bytes that port must print. Equality with those bytes proves the moves optimal, and
so legal; only where the bytes differ does the board need to replay them, to explain.
"""

from __future__ import annotations

from typing import Iterator

from harness.model import Move, Problem, Rules

STRETCH_MOVES = 1024
"""The most moves a stretch holds: large enough that comparing one costs little Python, small enough
to keep one of each kind in memory."""


class Plan:
    """The optimal moves for n discs under ``rules``, as single moves and stretches."""

    def __init__(self, rules: Rules, n: int):
        self.rules = rules
        self.n = n
        self._counts: dict[Problem, int] = {}
        self._moves: dict[Problem, tuple[Move, ...]] = {}
        self._canonical: dict[Problem, bytes] = {}

    def pieces(self) -> Iterator[Move | Problem]:
        """The whole sequence: each piece a single move or a stretch of at most STRETCH_MOVES moves."""
        stack: list[Move | Problem] = [(self.n, 0, self.rules.target)]
        while stack:
            step = stack.pop()
            if isinstance(step, Move):
                yield step
            elif step[0] and self.count(step) <= STRETCH_MOVES:
                yield step
            elif step[0]:
                stack.extend(reversed(self.rules.split(*step)))

    def count(self, problem: Problem) -> int:
        """How many moves solve ``problem``."""
        if problem not in self._counts:
            discs = problem[0]
            self._counts[problem] = 0 if discs == 0 else sum(
                1 if isinstance(step, Move) else self.count(step) for step in self.rules.split(*problem)
            )
        return self._counts[problem]

    def moves(self, piece: Move | Problem) -> tuple[Move, ...]:
        """A piece's moves, unfolded once per kind of stretch."""
        if isinstance(piece, Move):
            return (piece,)
        if piece not in self._moves:
            self._moves[piece] = tuple(self.rules.unfold(piece))
        return self._moves[piece]

    def canonical(self, piece: Move | Problem) -> bytes:
        """A piece's moves as canonical lines, ``DISK SRC DST``, for the digest."""
        if isinstance(piece, Move):
            return f"{piece.canonical()}\n".encode()
        if piece not in self._canonical:
            self._canonical[piece] = "".join(f"{move.canonical()}\n" for move in self.moves(piece)).encode()
        return self._canonical[piece]


class Wording:
    """How one port writes each move, learnt from the lines it printed that read as exactly that move,
    and the bytes it must therefore print for a whole piece."""

    def __init__(self, plan: Plan):
        self._plan = plan
        self._lines: dict[Move, bytes] = {}
        self._texts: dict[Problem, bytes] = {}

    def learn(self, move: Move, line: bytes) -> None:
        """``line`` (without its line ending) was read as ``move``; the first way seen is kept."""
        self._lines.setdefault(move, line)

    def text(self, piece: Move | Problem) -> bytes | None:
        """The bytes the port prints for ``piece``, or None while some move of it has not been seen."""
        if isinstance(piece, Move):
            line = self._lines.get(piece)
            return None if line is None else line + b"\n"
        if piece not in self._texts:
            lines = self._lines
            moves = self._plan.moves(piece)
            if not all(move in lines for move in moves):
                return None
            self._texts[piece] = b"".join([lines[move] + b"\n" for move in moves])
        return self._texts[piece]
