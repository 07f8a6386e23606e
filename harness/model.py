"""The shared vocabulary of the pipeline: a move, the rules a method plays by, a cell and its outcome.

Every other module speaks in these terms; this one imports nothing of the harness.
"""

from __future__ import annotations

import enum
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

PEGS = 3
QUOTE_CHARS = 120
"""How much of a port's line a message quotes: enough to recognise it, never a flood."""


def shorten(text: str, limit: int = QUOTE_CHARS, whole: int | None = None) -> str:
    """``text`` quoted for a message, cut visibly when it is longer than ``limit`` characters; where
    ``text`` is the start of something longer, ``whole`` is how long that is, at least."""
    length = len(text) if whole is None else whole
    if length <= limit:
        return repr(text)
    more = f"{length - limit:,} more characters" if whole is None else f"at least {length - limit:,} more characters"
    return f"{text[:limit]!r}… ({more})"


ESCAPED_BYTE = re.compile("[\udc80-\udcff]")
"""A byte that was not UTF-8, as Python holds it in a name read from the file system (a lone surrogate)."""


def utf8_safe(text: str) -> str:
    """``text`` as UTF-8 can hold it: each byte of a name that was not UTF-8 written out, ``\\xff``,
    as the bytes it was; every other character as it is."""
    return ESCAPED_BYTE.sub(lambda found: f"\\x{ord(found[0]) - 0xDC00:02x}", text)


def visible(text: str) -> str:
    """``text`` from a port shown as data, never obeyed: each character that is not printable (controls
    such as ESC, which starts a terminal's escape sequences; lone surrogates and noncharacters, which
    XML refuses) written as repr() writes it, ``\\x1b``, and a byte of a name that was not UTF-8 as
    that byte, ``\\xff``, in every form of the report; newlines and tabs stay."""
    if text.isprintable():
        return text
    return "".join(_shown(char) for char in text)


def _shown(char: str) -> str:
    if char.isprintable() or char in "\n\t":
        return char
    return utf8_safe(char) if ESCAPED_BYTE.fullmatch(char) else repr(char)[1:-1]


def one_line(text: str) -> str:
    """``text`` as :func:`visible` shows it, its line breaks and tabs written out too (``\\n``): a
    name, which a report gives a line or a column of its own."""
    return visible(text).replace("\n", "\\n").replace("\t", "\\t")


class Move(NamedTuple):
    """One move of one disc. ``disk`` is None until the board has been consulted."""

    disk: int | None
    src: int
    dst: int

    def canonical(self) -> str:
        """The form every port is compared in: ``DISK SRC DST`` (``?`` for a disc not yet named)."""
        return f"{'?' if self.disk is None else self.disk} {self.src} {self.dst}"


Transfer = tuple[int, int, int]
"""Move this many discs, the smallest ones, from one peg to another: (discs, src, dst); a
sub-puzzle of the whole, which is (n, 0, the target)."""
Piece = Transfer | Move
"""A piece of a solution: a transfer still to unfold, or a single move."""


@dataclass(frozen=True)
class Rules:
    """What a method must achieve: where the discs end, which way a disc may go, in how many moves,
    and the one sequence that does it, given as the recursion's one level (``split``) so that the
    whole sequence and any stretch of it can be unfolded. A new kind of puzzle is one more of these."""

    name: str
    target: int
    optimal_count: Callable[[int], int]
    split: Callable[[int, int, int], list[Piece]]
    count_formula: str
    direction: int | None = None
    """Every move goes from peg p to peg (p + direction) mod 3; None lets a disc go to either other peg."""

    def reference(self, n: int) -> Iterator[Move]:
        """The optimal sequence for n discs from peg 0 to the target."""
        return self.unfold((n, 0, self.target))

    def unfold(self, transfer: Transfer) -> Iterator[Move]:
        """The moves that solve ``transfer``, in order, with a stack rather than recursion."""
        stack: list[Piece] = [transfer]
        while stack:
            piece = stack.pop()
            if isinstance(piece, Move):
                yield piece
            elif piece[0]:
                stack.extend(reversed(self.split(*piece)))



def _classic_split(discs: int, src: int, dst: int) -> list[Piece]:
    """The n − 1 smaller discs to the spare peg, the largest to the target, the n − 1 onto it."""
    spare = PEGS - src - dst
    return [(discs - 1, src, spare), Move(discs, src, dst), (discs - 1, spare, dst)]


CLASSIC = Rules(
    name="classic",
    target=2,
    optimal_count=lambda n: (1 << n) - 1,
    split=_classic_split,
    count_formula="2^n - 1",
)


def _cyclic_split(discs: int, src: int, dst: int) -> list[Piece]:
    """The cyclic Tower of Hanoi article's recursion, each move one peg on (0 → 1 → 2 → 0).

    To the next peg: n − 1 discs two pegs on, the largest one peg on, the n − 1 two pegs on again.
    Two pegs on: n − 1 discs two pegs on, the largest one on, the n − 1 back one on, the largest one
    on, the n − 1 two pegs on.
    """
    on, rest = (src + 1) % PEGS, discs - 1
    if dst == on:
        after = (dst + 1) % PEGS
        return [(rest, src, after), Move(discs, src, dst), (rest, after, dst)]
    return [(rest, src, dst), Move(discs, src, on), (rest, dst, src), Move(discs, on, dst), (rest, src, dst)]


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
    split=_cyclic_split,
    count_formula="((1 + √3)^(n+1) − (1 − √3)^(n+1)) / (2√3) − 1",
    direction=1,
)

METHODS: dict[str, Rules] = {
    "binary": CLASSIC,
    "recursive": CLASSIC,
    "iterative": CLASSIC,
    "cyclic": CYCLIC,
}


@dataclass(frozen=True)
class Usage:
    """What a port's run cost, as far as its runner can tell (None where it cannot): CPU seconds of
    the port's processes, or of the server process that ran its query, and their peak memory."""

    cpu_seconds: float | None = None
    peak_bytes: int | None = None


@dataclass(frozen=True)
class Finish:
    """How a port's run ended, as facts for the judge: what went wrong in the runner's words (None if
    nothing did), whether the deadline or the caller stopped it, what the port said on the way out,
    the limit it crossed, named with what it reached (None if it crossed none), what it cost, and its
    exit code (negative for a signal; None where it has none, as for a query)."""

    failure: str | None
    timed_out: bool
    stopped: bool
    evidence: str
    limit: str | None = None
    usage: Usage = Usage()
    exit_code: int | None = None
    cpu_shared: bool = True
    """Whether the CPU was shared by cell while it ran (a control group's weight, a container's, a
    server's): where it was not, a neighbour's many processes may have taken its time."""
    unread_lines: int = 0
    """How many lines the program wrote on the stream its moves are not read from (standard error,
    most often): where the moves are missing, a sign they went there."""
    lost: str | None = None
    """Why the output read may not be all the program wrote, where the way it came by says so (a
    container engine's stream that lost its end): then it says nothing of the port, and the program
    is run again, up to OUTPUT_ATTEMPTS times in all."""


OUTPUT_ATTEMPTS = 3


class Outcome(str, enum.Enum):
    """How a cell ended, in Bowtie's terms: a wrong answer fails, a port that could not answer errors."""

    PASS = "pass"
    FAIL = "fail"
    SKIPPED = "skipped"
    ERROR = "error"


class Reason(str, enum.Enum):
    """Why a cell did not pass, as a code a machine can act on; the cell's detail says it for people."""

    VIOLATION = "violation"  # a move or the end position breaks the rules
    TIMEOUT = "timeout"
    LIMIT = "limit"  # the port's tree used more memory or processes than the run allows
    CRASH = "crash"  # the port exited with an error or was killed
    UNREADABLE = "unreadable"  # output no pattern of the manifest reads
    START = "start"  # the port's program could not be started
    ENGINE = "engine"  # the container engine lost the program's output, each time the cell was run
    BUILD = "build"
    MANIFEST = "manifest"
    DATABASE = "database"
    NOT_OFFERED = "not-offered"
    OUT_OF_RANGE = "n-out-of-range"  # the program takes no n that small or that large (min_n, max_n)
    MISSING_INTERPRETER = "missing-interpreter"
    TOO_MANY_MOVES = "too-many-moves"
    NOT_RUN = "not-run"  # left out by --fail-fast after an earlier cell failed
    INTERRUPTED = "interrupted"  # running when the run was stopped (Ctrl-C, SIGTERM): no verdict, and no fault of the port


@dataclass(frozen=True)
class Parting:
    """Where a cell's moves part from the reference: ``at``, the number of the first move that
    differs (every move before it is the reference's own), and the moves the port printed from
    there, as few as the diff shows. Enough to replay what the port did, whatever n is."""

    at: int
    printed: tuple[Move, ...]


@dataclass(frozen=True)
class Rerun:
    """How to see a cell that did not pass again, as text to read, or paste into bash: ``command``,
    the harness's own command that runs the cell again as its run did; ``program``, the port's command
    line (or its query) as the run gave it; ``build``, the commands that made that program, in order.
    Shown as data in every report, never run by the harness."""

    command: str
    program: str | None = None
    build: tuple[str, ...] = ()

    def parts(self) -> list[tuple[str, str]]:
        """Each with its label, in the order the reports show them."""
        program = [("program", self.program)] if self.program else []
        return [("rerun", self.command), *program, *(("build", step) for step in self.build)]


@dataclass
class Cell:
    """One port running one method for one n, and everything learnt from it."""

    port: str
    method: str
    n: int
    outcome: Outcome = Outcome.ERROR
    moves: int = 0
    digest: str | None = None
    seconds: float = 0.0
    detail: str = ""
    diff: list[str] = field(default_factory=list)
    reason: Reason | None = None
    parting: Parting | None = None
    rerun: Rerun | None = None
    pegs: tuple[str, ...] | None = None
    """The port's names for pegs 0, 1 and 2 in this cell's method (its manifest's ``pegs``), by which
    the page names them; None where it has none to give (a method it does not offer, a broken manifest)."""

    @property
    def id(self) -> str:
        """``python/recursive/5``: the same cell in every run, on every machine."""
        return cell_id(self.port, self.method, self.n)

    @property
    def label(self) -> str:
        """``python/recursive n=5``: the cell as people read it."""
        return f"{self.port}/{self.method} n={self.n}"


def span(ns: Iterable[int]) -> str:
    """``0-12`` for a run of consecutive n, else ``3,8,12``."""
    ns = sorted(ns)
    if len(ns) > 2 and ns == list(range(ns[0], ns[-1] + 1)):
        return f"{ns[0]}-{ns[-1]}"
    return ",".join(map(str, ns))


def cell_id(port: str, method: str, n: int) -> str:
    """A cell's stable id, ``port/method/n``."""
    return f"{port}/{method}/{n}"


@dataclass(frozen=True)
class Shard:
    """The K-th of N shares of a run's cells. A cell's share follows from its id alone, so each
    share is the same on every machine and every run, whatever else the run holds."""

    index: int
    count: int

    def holds(self, port: str, method: str, n: int) -> bool:
        """Whether the cell of this port, method and n is in this share."""
        digest = hashlib.sha256(cell_id(port, method, n).encode()).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
