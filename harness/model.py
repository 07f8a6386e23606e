"""The shared vocabulary of the pipeline: a move, the rules a method plays by, a cell and its outcome.

Every other module speaks in these terms; this one imports nothing of the harness.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable, Iterator, NamedTuple

PEGS = 3
QUOTE_CHARS = 120
"""How much of a port's line a message quotes: enough to recognise it, never a flood."""


def shorten(text: str, limit: int = QUOTE_CHARS) -> str:
    """``text`` quoted for a message, cut visibly when it is longer than ``limit`` characters."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text) - limit:,} more characters)"


class Move(NamedTuple):
    """One move of one disc. ``disk`` is None until the board has been consulted."""

    disk: int | None
    src: int
    dst: int

    def canonical(self) -> str:
        """The form every port is compared in: ``DISK SRC DST`` (``?`` for a disc not yet named)."""
        return f"{'?' if self.disk is None else self.disk} {self.src} {self.dst}"


@dataclass(frozen=True)
class Rules:
    """What a method must achieve: where the discs end, which way a disc may go, in how many moves,
    and the one sequence that does it. A new kind of puzzle is one more of these."""

    name: str
    target: int
    optimal_count: Callable[[int], int]
    reference: Callable[[int], Iterator[Move]]
    count_formula: str
    step: int | None = None
    """Every move goes from peg p to peg (p + step) mod 3; None lets a disc go to either other peg."""


class Violation(ValueError):
    """A move, a drawing or the end of a run that breaks the rules; the message names where and which rule."""


def _classic_reference(n: int) -> Iterator[Move]:
    """The optimal classic sequence by the binary formula, pegs 1 and 2 relabelled for even n.

    On move i the disc that moves is 1 + the number of trailing zero bits of i.
    """
    relabel = (0, 2, 1) if n % 2 == 0 else (0, 1, 2)
    for i in range(1, 1 << n):
        yield Move((i & -i).bit_length(), relabel[(i & i - 1) % 3], relabel[((i | i - 1) + 1) % 3])


CLASSIC = Rules(
    name="classic",
    target=2,
    optimal_count=lambda n: (1 << n) - 1,
    reference=_classic_reference,
    count_formula="2^n - 1",
)



def _cyclic_reference(n: int) -> Iterator[Move]:
    """The cyclic Tower of Hanoi article's recursion, n discs from peg 0 to peg 1, each move one peg on.

    To the next peg: n - 1 discs two pegs on, the largest one peg on, the n - 1 two pegs on again.
    Two pegs on: n - 1 discs two pegs on, the largest one on, the n - 1 back one on, the largest one
    on, the n - 1 two pegs on. Written with a stack of tasks instead of recursion, last first.
    """
    tasks = [(n, 0, 1, False)]  # (discs, src, dst, one disc: that disc alone)
    while tasks:
        discs, src, dst, alone = tasks.pop()
        if alone:
            yield Move(discs, src, dst)
        elif discs:
            on, rest = (src + 1) % PEGS, discs - 1
            if dst == on:
                after = (dst + 1) % PEGS
                steps = [(rest, src, after, False), (discs, src, dst, True), (rest, after, dst, False)]
            else:
                steps = [
                    (rest, src, dst, False), (discs, src, on, True), (rest, dst, src, False),
                    (discs, on, dst, True), (rest, src, dst, False),
                ]
            tasks.extend(reversed(steps))


def _cyclic_count(n: int) -> int:
    """((1 + √3)^(n+1) − (1 − √3)^(n+1)) / (2√3) − 1, in integers: u(n+1) − 1 where u(0) = 0,
    u(1) = 1 and u(k) = 2u(k−1) + 2u(k−2)."""
    before, current = 0, 1
    for _ in range(n):
        before, current = current, 2 * current + 2 * before
    return current - 1


CYCLIC = Rules(
    name="cyclic",
    target=1,
    optimal_count=_cyclic_count,
    reference=_cyclic_reference,
    count_formula="((1 + √3)^(n+1) − (1 − √3)^(n+1)) / (2√3) − 1",
    step=1,
)

METHODS: dict[str, Rules] = {
    "binary": CLASSIC,
    "recursive": CLASSIC,
    "iterative": CLASSIC,
    "cyclic": CYCLIC,
}


@dataclass(frozen=True)
class Finish:
    """How a port's run ended, as facts for the judge: what went wrong in the runner's words (None if
    nothing did), whether the deadline or the caller stopped it, and what the port said on the way out."""

    failure: str | None
    timed_out: bool
    stopped: bool
    evidence: str


class Outcome(str, enum.Enum):
    """How a cell ended, in Bowtie's terms: a wrong answer fails, a port that could not answer errors."""

    PASS = "pass"
    FAIL = "fail"
    SKIPPED = "skipped"
    ERROR = "error"


@dataclass
class Cell:
    """One port running one method for one n, and everything learnt from it."""

    language: str
    method: str
    n: int
    outcome: Outcome = Outcome.ERROR
    moves: int = 0
    digest: str | None = None
    seconds: float = 0.0
    detail: str = ""
    diff: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.language}/{self.method} n={self.n}"
