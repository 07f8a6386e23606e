"""Compare moves without holding them: a digest per cell, and a walk beside the reference that keeps
only the first difference and a few moves around it, shown like a unified diff."""

from __future__ import annotations

import collections
import hashlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from harness.model import METHODS, Cell, Move, Outcome, Parting

CONTEXT = 3
DIGEST_BATCH = 4096


class StreamDigest:
    """sha256 of the canonical moves, one per line, hashed as they come: one by one, gathered in
    batches, or as whole stretches of canonical text. Hashing beside the reading keeps it off the
    verdict's path: the port is still printing while its moves so far are hashed."""

    def __init__(self) -> None:
        self._hash = hashlib.sha256()
        self._pending: list[str] = []

    def update(self, move: Move) -> None:
        """One move more."""
        self._pending.append(move.canonical())
        if len(self._pending) >= DIGEST_BATCH:
            self._gather()

    def update_text(self, canonical: bytes) -> None:
        """Many moves at once, already as canonical lines."""
        self._gather()
        self._hash.update(canonical)

    def hexdigest(self) -> str:
        """The digest of every move so far."""
        self._gather()
        return self._hash.hexdigest()

    def _gather(self) -> None:
        if self._pending:
            self._hash.update(("\n".join(self._pending) + "\n").encode())
            self._pending.clear()


def _same(actual: Move, expected: Move | None) -> bool:
    """A move whose disc could not be named still matches on its pegs."""
    return (
        expected is not None
        and actual.src == expected.src
        and actual.dst == expected.dst
        and actual.disk in (None, expected.disk)
    )


def _hunk_range(first: int, count: int) -> str:
    """A hunk header's range as diff and patch write it: an empty side is numbered by the line
    before it, and a count of one is left out."""
    if count == 1:
        return str(first)
    return f"{first - 1 if count == 0 else first},{count}"


class Divergence:
    """Walks a cell's moves beside the reference's, remembering the first move where they part."""

    def __init__(self) -> None:
        self._before: collections.deque[Move] = collections.deque(maxlen=CONTEXT)
        self._expected: list[Move] = []
        self._actual: list[Move] = []
        self.count = 0
        self.at: int | None = None

    def agree(self, count: int, last: Sequence[Move]) -> None:
        """``count`` moves known to be the reference's own, taken at once; ``last``, the last few of them."""
        self.count += count
        self._before.extend(last[-CONTEXT:])

    def feed(self, move: Move, expected: Move | None) -> bool:
        """Take the cell's next move beside the reference's (None past its end); False once the
        difference and its context are complete."""
        self.count += 1
        if self.at is None:
            if _same(move, expected):
                self._before.append(move)
                return True
            self.at = self.count
        if expected is not None and len(self._expected) <= CONTEXT:
            self._expected.append(expected)
        if len(self._actual) <= CONTEXT:
            self._actual.append(move)
        return len(self._actual) <= CONTEXT

    def more_expected(self) -> bool:
        """Whether the diff still wants reference moves after the difference."""
        return self.at is not None and len(self._expected) <= CONTEXT

    def finish(self, rest: Iterator[Move]) -> None:
        """The cell's moves have ended: ``rest``, the reference moves still to come, are a difference too."""
        if self.at is None:
            expected = next(rest, None)
            if expected is None:
                return
            self.at = self.count + 1
            self._expected.append(expected)
        while len(self._expected) <= CONTEXT and (expected := next(rest, None)) is not None:
            self._expected.append(expected)

    def parting(self) -> Parting | None:
        """Where the moves part from the reference, and the port's moves from there; None where they agree."""
        return None if self.at is None else Parting(self.at, tuple(self._actual))

    def unified(self, expected_label: str, actual_label: str) -> list[str]:
        """The difference as unified-diff lines, numbered by move; empty where the moves agree."""
        if self.at is None:
            return []
        first = self.at - len(self._before)
        old, new = len(self._before) + len(self._expected), len(self._before) + len(self._actual)
        lines = [
            f"--- {expected_label}",
            f"+++ {actual_label}",
            f"@@ -{_hunk_range(first, old)} +{_hunk_range(first, new)} @@",
        ]
        lines += [f"  {move.canonical()}" for move in self._before]
        lines += [f"- {move.canonical()}" for move in self._expected]
        lines += [f"+ {move.canonical()}" for move in self._actual]
        return lines


@dataclass(frozen=True)
class Agreement:
    """For one n and one set of rules: which cells printed which sequence, by digest."""

    n: int
    rules: str
    by_digest: dict[str, list[str]]

    @property
    def agrees(self) -> bool:
        """Whether every cell of this n and puzzle printed the same moves."""
        return len(self.by_digest) <= 1


def agreements(cells: Iterable[Cell]) -> list[Agreement]:
    """Group the cells that printed a whole sequence by n and by the rules of their method."""
    groups: dict[tuple[int, str], dict[str, list[str]]] = collections.defaultdict(dict)
    for cell in cells:
        if cell.digest is not None:
            groups[(cell.n, METHODS[cell.method].name)].setdefault(cell.digest, []).append(
                f"{cell.port}/{cell.method}"
            )
    return [Agreement(n, rules, by_digest) for (n, rules), by_digest in sorted(groups.items())]


def succeeded(cells: Iterable[Cell], agreement: Iterable[Agreement]) -> bool:
    """Every cell that ran passed, and each group of comparable cells printed one sequence."""
    return all(cell.outcome in (Outcome.PASS, Outcome.SKIPPED) for cell in cells) and all(
        group.agrees for group in agreement
    )
