"""The board as plain text, for ``harness show``: three pegs of stacked discs and the move line under
them, drawn the same on a terminal, in a pipe and on paper."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from harness.model import PEGS, Move, Rules
from harness.verify import CANONICAL, describe, peg_name

Pegs = list[list[int]]
"""Each peg's discs, from the bottom."""


def positions(n: int, moves: Iterable[Move]) -> Iterator[tuple[Pegs, Move | None]]:
    """The pegs at the start and after each move, with the move just made; the moves are verified
    ones, each of which can be made."""
    pegs: Pegs = [list(range(n, 0, -1))] + [[] for _ in range(PEGS - 1)]
    yield [peg[:] for peg in pegs], None
    for move in moves:
        pegs[move.dst].append(pegs[move.src].pop())
        yield [peg[:] for peg in pegs], move


def _disc(disc: int, width: int) -> str:
    """Disc d, 2d + 1 characters wide with its number in the middle: ``==3==`` would be ``=3=`` for 1."""
    label = str(disc)
    size = max(2 * disc + 1, len(label))
    left = (size - len(label)) // 2
    return ("=" * left + label + "=" * (size - len(label) - left)).center(width)


def draw(n: int, pegs: Pegs, move: Move | None, number: int, total: int, names: Sequence[str] = CANONICAL) -> list[str]:
    """One position: the pegs (a row above the tallest tower shows their tips), their names (the
    port's, with the canonical number beside where they differ), and the move line,
    ``move 3 of 7: disc 1 from peg 0 to peg 2``."""
    labels = [peg_name(peg, names) for peg in range(PEGS)]
    width = max(2 * n + 1, *map(len, labels))
    rows = [
        "  ".join(_disc(peg[level], width) if level < len(peg) else "|".center(width) for peg in pegs).rstrip()
        for level in range(n, -1, -1)
    ]
    rows.append("  ".join("-" * width for _ in pegs))
    rows.append("  ".join(label.center(width) for label in labels).rstrip())
    said = f"the start, {n} discs on {labels[0]}" if move is None else describe(move, names)
    rows.append(f"move {number} of {total}: {said}")
    return rows


def heading(label: str, rules: Rules, total: int, names: Sequence[str] = CANONICAL) -> str:
    """What is shown, said once above the board; for the cyclic puzzle, which way the discs go, by the port's peg ``names``."""
    way = f"; every move goes one peg on, {' → '.join(names[peg * rules.direction % PEGS] for peg in range(PEGS + 1))}" if rules.direction else ""
    return f"{label}: {total} moves{way}"
