"""The reference sequence, laid out for fast comparison: the optimal moves unfold as a few top-level
single moves between stretches small enough to hold (a stretch is a transfer, ``(discs, src,
dst)``), and every stretch of the same transfer is the same moves. So the bytes a port must print for
a stretch are built once from the bytes of smaller ones, never a move at a time: for a port that
prints a move a line, from the lines it printed for each move; for one that draws the towers, from
a drawing of the stretch's own discs, into which the larger discs that lie still beneath them are
filled. Equality with those bytes proves the moves optimal, and so legal; only where the bytes
differ does the board need to replay them, to explain.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence, Set
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from harness.model import PEGS, Move, Piece, Rules, Transfer

if TYPE_CHECKING:
    from harness.readers import Output, Reading

STRETCH_BYTES = 1 << 17
"""The most output compared at once: large enough that the Python around each comparison costs little
beside it, small enough that the stretches kept (each kind in its six orientations) take a few MiB."""

Pegs = Sequence[Sequence[int]]
"""The discs on pegs 0, 1 and 2, each from the bottom, as the board holds them."""


def _built(rules: Rules, transfer: Transfer, texts: dict[Transfer, bytes], single: Callable[[Move], bytes | None]) -> bytes | None:
    """A transfer's bytes, joined from its pieces' (``single`` for a move, ``texts`` for a smaller
    transfer, built in turn and kept there); None while some move has no bytes."""
    if transfer in texts:
        return texts[transfer]
    parts = []
    for piece in rules.split(*transfer):
        part = single(piece) if isinstance(piece, Move) else b"" if piece[0] == 0 else _built(rules, piece, texts, single)
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
        text = _built(self.rules, piece, self._canonical, _canonical_line) if piece[0] else b""
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

    def learn(self, move: Move, unit: bytes) -> None:
        """``unit``, one of :meth:`units`, was read as ``move``, the reference's: the port writes it so."""


class LineWording:
    """How a port that prints moves as lines, or as pieces of lines cut at a ``separator``, writes
    each move, learnt from the lines or pieces it printed that read as exactly that move, and the
    bytes it must therefore print for a whole piece of the solution."""

    def __init__(self, plan: Plan, separator: bytes | None = None, ignored: Set[bytes] = frozenset()) -> None:
        self._plan = plan
        self.separator = separator
        self._ignored = ignored
        """Whole lines the manifest ignores: a piece that is one is never a move's own bytes."""
        self.lines = 0 if separator else 1
        """Lines a move takes: one, or, with a separator, none (a piece of a line, which goes on)."""
        self._units: dict[Move, bytes] = {}
        self._texts: dict[Transfer, bytes] = {}
        self._longest = 1

    def units(self, raw: bytes, moves: int, cut: bool) -> list[bytes | None] | None:
        """Each move's own bytes in ``raw``, a line or, ``cut`` at a separator, a part of one, that
        read as ``moves`` moves: a line and its line ending, or a piece and the separator after it
        (not the last piece of a line, which a line ending follows, nor one that alone would be a
        line ignored). None where they cannot be told apart: pieces the reader skipped, or bytes
        that are not the text it read."""
        if self.separator is None:
            return [raw + b"\n"] if moves == 1 else None
        pieces = raw.split(self.separator)
        if len(pieces) != moves or raw.endswith(b"\r") or not _utf8(raw):
            return None
        units: list[bytes | None] = [None if piece in self._ignored else piece + self.separator for piece in pieces]
        if not cut:
            units[-1] = None
        return units

    def learn(self, move: Move, unit: bytes) -> None:
        """``unit`` was read as ``move``. The latest way seen is kept: a port may write a move another
        way at first (the first piece of a line that opens a printed list), and the stretches built
        from the old way are built anew."""
        if self._units.get(move) != unit:
            self._units[move] = unit
            self._texts.clear()
            self._longest = max(self._longest, len(unit))

    def fits(self, moves: int) -> bool:
        """Whether a stretch of this many moves is small enough to be compared whole."""
        return moves * self._longest <= STRETCH_BYTES

    def text(self, piece: Piece, pegs: Pegs) -> bytes | None:
        """The bytes the port prints for ``piece`` (whatever the board, ``pegs``), or None while some
        move of it has not been seen. Where they are the canonical text itself (a port that prints
        ``DISK SRC DST``), that one copy is kept."""
        if isinstance(piece, Move):
            return self._units.get(piece)
        if piece in self._texts:
            return self._texts[piece]
        text = _built(self._plan.rules, piece, self._texts, self._units.get)
        if text is not None and text == (canonical := self._plan.canonical(piece)):
            self._texts[piece] = text = canonical
        return text


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


_BEFORE = (b"\x01", b"\x02", b"\x03")
_AFTER = (b"\x04", b"\x05", b"\x06")
"""Where a drawing's rows, in a stretch's template, take what lies to the left of the stretch's own
discs and what lies under them (each peg's row has its own mark)."""


def disc_labels(n: int, discs: Sequence[str]) -> list[str]:
    """What a drawing writes for discs 1 to n: their numbers, or the program's names for them (numbers
    past the last name, which no cell of the port asks for: its max_n is the number of names)."""
    return [discs[disc - 1] if disc <= len(discs) else str(disc) for disc in range(1, n + 1)]


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

    def learn(self, move: Move, unit: bytes) -> None:
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


def reader_module(reading: Reading) -> ReaderModule:
    """The module of an output format, loaded at first need, held to :class:`ReaderModule`."""
    module = reading.load()
    if not isinstance(module, ReaderModule):
        raise TypeError(f"{reading.module} lacks wording(output, plan) or counter(output), which a reader's module holds")
    return module
