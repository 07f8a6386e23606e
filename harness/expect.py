"""The reference sequence, laid out for fast comparison: the optimal moves unfold as a few top-level
single moves between stretches small enough to hold (a stretch is a transfer, ``(discs, src,
dst)``), and every stretch of the same transfer is the same moves. Each stretch is unfolded once, kept
as its moves and its canonical text, and, once a port's way of writing each of its moves has been
seen, as the very bytes that port must print. Equality with those bytes proves the moves optimal, and
so legal; only where the bytes differ does the board need to replay them, to explain.
"""

from __future__ import annotations

import functools
import hashlib

from harness.model import Move, Piece, Rules, Transfer

STRETCH_MOVES = 4096
"""The most moves a stretch holds: large enough that comparing one costs little Python, small enough
to keep one of each kind in memory."""


class Plan:
    """The optimal moves for n discs under ``rules``: how many moves a stretch takes, and its moves
    and canonical text, each worked out once for the whole run, whichever cell asks."""

    def __init__(self, rules: Rules, n: int) -> None:
        self.rules = rules
        self.n = n

    def count(self, transfer: Transfer) -> int:
        """How many moves solve ``transfer``."""
        return _count(self.rules, transfer)

    def moves(self, piece: Piece) -> tuple[Move, ...]:
        """A piece's moves."""
        return (piece,) if isinstance(piece, Move) else _moves(self.rules, piece)

    def canonical(self, piece: Piece) -> bytes:
        """A piece's moves as canonical lines, ``DISK SRC DST``, for the digest."""
        return f"{piece.canonical()}\n".encode() if isinstance(piece, Move) else _canonical(self.rules, piece)


@functools.cache
def _count(rules: Rules, transfer: Transfer) -> int:
    if transfer[0] == 0:
        return 0
    return sum(1 if isinstance(piece, Move) else _count(rules, piece) for piece in rules.split(*transfer))


@functools.lru_cache(maxsize=64)
def _moves(rules: Rules, transfer: Transfer) -> tuple[Move, ...]:
    return tuple(rules.unfold(transfer))


@functools.lru_cache(maxsize=64)
def _canonical(rules: Rules, transfer: Transfer) -> bytes:
    return "".join(f"{move.canonical()}\n" for move in _moves(rules, transfer)).encode()


@functools.lru_cache(maxsize=32)
def reference_digest(rules: Rules, n: int) -> str:
    """sha256 of the reference's canonical lines, worked out once per run for every cell that
    printed exactly the reference: the same digest reading its moves one by one would give."""
    plan, digest = Plan(rules, n), hashlib.sha256()
    stack: list[Piece] = [(n, 0, rules.target)]
    while stack:
        piece = stack.pop()
        if isinstance(piece, Move) or plan.count(piece) <= STRETCH_MOVES:
            digest.update(plan.canonical(piece))
        else:
            stack.extend(reversed(rules.split(*piece)))
    return digest.hexdigest()


class Wording:
    """How one port writes each move, learnt from the lines it printed that read as exactly that move,
    and the bytes it must therefore print for a whole piece."""

    def __init__(self, plan: Plan) -> None:
        self._plan = plan
        self._lines: dict[Move, bytes] = {}
        self._texts: dict[Transfer, bytes] = {}

    def learn(self, move: Move, line: bytes) -> None:
        """``line`` (without its line ending) was read as ``move``; the first way seen is kept."""
        self._lines.setdefault(move, line)

    def text(self, piece: Piece) -> bytes | None:
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
