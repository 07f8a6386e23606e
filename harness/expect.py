"""The reference sequence, laid out for fast comparison: the optimal moves unfold as a few top-level
single moves between stretches small enough to hold (a stretch is a transfer, ``(discs, src,
dst)``), and every stretch of the same transfer is the same moves. So the bytes a port must print for
a stretch are built once from the bytes of smaller ones, never a move at a time: for a port that
prints a move a line, from the lines it printed for each move; for one that draws the towers, from
a drawing of the stretch's own discs, into which the larger discs that lie still beneath them are
filled. Equality with those bytes proves the moves optimal, and so legal; only where the bytes
differ does the board need to replay them, to explain. Each reader module makes its own
:class:`Wording` (``readers/lines.py``, ``readers/states.py``, ``readers/drawings.py``) on the
:class:`Plan` here.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from harness.model import Move, Piece, Rules, Transfer

if TYPE_CHECKING:
    from types import ModuleType

    from harness.output import Output

STRETCH_BYTES = 1 << 17
"""The most output compared at once: large enough that the Python around each comparison costs little
beside it, small enough that the stretches kept (each kind in its six orientations) take a few MiB."""

Pegs = Sequence[Sequence[int]]
"""The discs on pegs 0, 1 and 2, each from the bottom, as the board holds them."""


def built(rules: Rules, transfer: Transfer, texts: dict[Transfer, bytes], single: Callable[[Move], bytes | None]) -> bytes | None:
    """A transfer's bytes, joined from its pieces' (``single`` for a move, ``texts`` for a smaller
    transfer, built in turn and kept there); None while some move has no bytes."""
    if transfer in texts:
        return texts[transfer]
    parts = []
    for piece in rules.split(*transfer):
        part = single(piece) if isinstance(piece, Move) else b"" if piece[0] == 0 else built(rules, piece, texts, single)
        if part is None:
            return None
        parts.append(part)
    texts[transfer] = text = b"".join(parts)
    return text


class Plan:
    """The optimal moves for n discs under ``rules``: how many moves a stretch takes, its last moves
    and its canonical text, each worked out once for the cell."""

    def __init__(self, rules: Rules, n: int) -> None:
        self.rules = rules
        self.n = n
        self._canonical: dict[Transfer, bytes] = {}

    def count(self, transfer: Transfer) -> int:
        """How many moves solve ``transfer``."""
        return _count(self.rules, transfer)

    def tail(self, piece: Piece, most: int) -> tuple[Move, ...]:
        """A piece's last ``most`` moves (fewer if it has fewer), found without unfolding the rest."""
        return (piece,) if isinstance(piece, Move) else _tail(self.rules, piece, most)

    def canonical(self, piece: Piece) -> bytes:
        """A piece's moves as canonical lines, ``DISK SRC DST``, for the digest."""
        if isinstance(piece, Move):
            return _canonical_line(piece)
        text = built(self.rules, piece, self._canonical, _canonical_line) if piece[0] else b""
        assert text is not None  # every move has a canonical line
        return text


def _canonical_line(move: Move) -> bytes:
    return f"{move.canonical()}\n".encode()


@functools.cache
def _count(rules: Rules, transfer: Transfer) -> int:
    if transfer[0] == 0:
        return 0
    return sum(1 if isinstance(piece, Move) else _count(rules, piece) for piece in rules.split(*transfer))


@functools.lru_cache(maxsize=1024)
def _tail(rules: Rules, transfer: Transfer, most: int) -> tuple[Move, ...]:
    moves: tuple[Move, ...] = ()
    for piece in reversed(rules.split(*transfer)):
        if len(moves) >= most:
            break
        if isinstance(piece, Move):
            moves = (piece, *moves)
        elif piece[0]:
            moves = _tail(rules, piece, most - len(moves)) + moves
    return moves


class Wording(Protocol):
    """The bytes a port prints for a piece, where the harness can know them in advance: a reader's
    module makes one (``wording``) for the output formats whose bytes follow from the moves."""

    lines: int
    """Lines a move takes."""

    def fits(self, moves: int) -> bool:
        """Whether a stretch of this many moves is small enough to be compared whole."""

    def text(self, piece: Piece, pegs: Pegs) -> bytes | None:
        """The bytes the port prints for ``piece``, the discs lying as ``pegs`` says before it; None
        while they cannot be known yet."""

    def units(self, raw: bytes, moves: int, cut: bool) -> list[bytes | None] | None:
        """Each move's own bytes in ``raw``, a line the reader read as ``moves`` moves (``cut``: it
        ends at a separator, not at the line's end), where they can be told apart; else None."""

    def learn(self, move: Move, unit: bytes, pegs: Pegs) -> None:
        """``unit``, one of :meth:`units`, was read as ``move``, the reference's, after which the discs
        lie as ``pegs`` says: the port writes it so."""


class MoveCounter(Protocol):
    """Counts the moves in a program's output as it arrives, a block of bytes at a time, reading
    nothing: what ``harness bench`` times the port with."""

    moves: int

    def take(self, block: bytes) -> None:
        """The next block of the output."""


@runtime_checkable
class ReaderModule(Protocol):
    """What a reader's module (:data:`harness.readers.READERS`) tells the comparison and ``bench``
    of its format, besides its reader class."""

    def wording(self, output: Output, plan: Plan) -> Wording | None:
        """The bytes the output must hold, where they can be known in advance; else None."""

    def counter(self, output: Output) -> MoveCounter | None:
        """A counter of the moves in the output's bytes, where counting them counts the moves (a line
        a move, a drawing a move); None where only reading it can tell (``harness bench`` then takes
        the moves from its reading)."""


def reader_module(module: ModuleType) -> ReaderModule:
    """The module of an output format (its ``Reading.load()``), held to :class:`ReaderModule`."""
    if not isinstance(module, ReaderModule):
        raise TypeError(f"{module.__name__} lacks wording(output, plan) or counter(output), which a reader's module holds")
    return module
