"""The shared vocabulary of the pipeline: a move, the rules a method plays by, a cell and its outcome.

Every other module speaks in these terms; this one imports nothing of the harness.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Callable, Iterator, NamedTuple

PEGS = 3


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
    """What a method must achieve: where the discs end, in how many moves, and the one sequence that does it."""

    name: str
    target: int
    optimal_count: Callable[[int], int]
    reference: Callable[[int], Iterator[Move]]
    count_formula: str


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

METHODS: dict[str, Rules] = {
    "binary": CLASSIC,
    "recursive": CLASSIC,
    "iterative": CLASSIC,
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
