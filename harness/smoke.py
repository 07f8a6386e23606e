"""The contract every port keeps (docs/SPEC.md, The program), probed before anyone trusts its
compare: a small fixed set of runs, each a finding. n spelled any way but ASCII decimal digits, an
unknown method and one disc more than the manifest's ``max_n`` (where it is below the harness's
most, MOST_DISCS) are refused, with a usage message on standard error, exit code 2 and no output;
n = 0 passes with no move; the first moves at ``max_n`` are the reference's. A port in PostgreSQL is given n as an integer, not as text, so of the
refusals only one disc more than ``max_n`` applies to it: the query ends in an error, with no row.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from harness.errors import CellError
from harness.evaluate import evaluate
from harness.gate import Gate
from harness.model import METHODS, Cell, Move, Outcome, visible
from harness.port import MOST_DISCS, Port
from harness.runners.process import EMPTY_STDERR, describe_exit
from harness.settings import Settings

MALFORMED = ("+3", "-3", "-0", "3.0", "1e1", "0x3", "0b11", "1_0", " 3", "3 ", "\u0663", "\uff13", "", "three", "0'a")
"""n spelled as no port may take it: a sign, a fraction, an exponent, a base's prefix, an underscore,
space around it, another script's digit (Arabic-Indic, full-width), nothing, a word, a Prolog
character code (``0'a`` is 97)."""
UNKNOWN_METHOD = "no-such-method"
USAGE_EXIT = 2
FIRST_MOVES = 100
"""How many of the moves at ``max_n`` are held to the reference before the port is stopped."""
HEAD_BYTES = 4096
"""How much of what a refusal prints is read before it is stopped: any of it is too much."""


@dataclass(frozen=True)
class Finding:
    """One probe of one port's method: what went wrong (None if nothing did), or why it was not tried."""

    port: str
    method: str
    probe: str
    problem: str | None = None
    skipped: str | None = None

    def line(self) -> str:
        """The finding in one line: port, method, probe, verdict."""
        verdict = f"FAIL: {self.problem}" if self.problem else f"skipped: {self.skipped}" if self.skipped else "pass"
        return visible(f"{self.port} {self.method} {self.probe}: {verdict}")


class _Enough(Exception):  # not an error: the probe has read all it needs
    """Raised from the move sink once the first moves are in: the cell's runner is closed on the way out."""


def probes(ports: list[Port], settings: Settings, gate: Gate) -> Iterator[Callable[[], Finding]]:
    """Every probe of the ports' methods that ``settings`` name, each a call that runs it."""
    for port in ports:
        if port.manifest_error:  # a broken manifest fails, as it fails compare: not a probe skipped
            yield functools.partial(Finding, port.name, "every method", "every probe", problem=f"manifest problem: {port.manifest_error}")
            continue
        for method in (method for method in settings.methods if method in port.methods):
            program = port.program(method)
            found = functools.partial(Finding, port.name, method)
            missing = gate.missing(program)
            if missing:
                yield functools.partial(found, "every probe", skipped=missing[1])
                continue
            refused = functools.partial(_refused, gate, port, method, settings)
            if program.query is None and program.takes_decimal_n:
                yield from (_probe(found, f"n = {spelling!r}", refused, (method, spelling)) for spelling in MALFORMED)
            if program.query is None and program.takes_method:
                yield _probe(found, f"method {UNKNOWN_METHOD!r}", refused, (UNKNOWN_METHOD, str(program.min_n)))
            if (program.query is not None or program.takes_n) and program.max_n < MOST_DISCS:
                above = program.max_n + 1
                yield _probe(found, f"n = {above} (max_n + 1)", refused, None if program.query else (method, str(above)), above)
            if program.min_n == 0:
                yield _probe(found, "n = 0", _passes, gate, port, method, 0, settings)
            yield _probe(found, f"the first {FIRST_MOVES} moves at n = {program.max_n} (max_n)", _first_moves, gate, port, method, settings)


def _probe(found: Callable[..., Finding], name: str, check: Callable[..., str | None], *arguments: object) -> Callable[[], Finding]:
    return lambda: found(name, check(*arguments))


def smoke(ports: list[Port], settings: Settings, gate: Gate) -> list[Finding]:
    """Every probe run, ``settings.jobs`` at once, in the order :func:`probes` gives them."""
    with ThreadPoolExecutor(max_workers=settings.jobs) as pool:
        return list(pool.map(lambda probe: probe(), probes(ports, settings, gate)))


def _refused(gate: Gate, port: Port, method: str, settings: Settings, spelled: tuple[str, str] | None, n: int | None = None) -> str | None:
    """What the program did instead of refusing: ``spelled`` (the method and n as it is given them),
    or ``n`` for a query. A refusal prints nothing, says why on standard error, and exits with 2; a
    query ends in an error. A program whose moves are read from standard error (``output.stream``)
    says why where its moves would be, so only its exit is held to the contract."""
    program = port.program(method)
    try:
        head, finish = gate.start(port, method, program.min_n if n is None else n, settings, spelled=spelled).head(HEAD_BYTES)
    except CellError as error:  # it could not be started, or what runs it stopped answering
        return f"{error}"
    if finish.lost:
        return finish.lost
    words_with_moves = program.output.stream != "stdout"
    if head and not words_with_moves:
        first = head.split(b"\n", 1)[0].decode("utf-8", "replace")[:80]
        return f"printed {first!r}, where a refusal prints nothing"
    if finish.timed_out:
        return f"did not end within {settings.timeout:g} s"
    if program.query is not None:
        return None if finish.failure and not finish.stopped else "the query ended without an error"
    if finish.exit_code != USAGE_EXIT:
        ended = describe_exit(finish.exit_code) if finish.exit_code is not None else finish.failure or "ended"
        return f"{ended}, where a refusal exits with {USAGE_EXIT}"
    if finish.evidence == EMPTY_STDERR and not words_with_moves:
        return "said nothing on standard error, where a refusal says how it is used"
    return None


def _passes(gate: Gate, port: Port, method: str, n: int, settings: Settings) -> str | None:
    return _unless_passed(evaluate(port, method, n, settings, gate))


def _unless_passed(cell: Cell) -> str | None:
    """What a cell that did not pass says; None for one that did."""
    return None if cell.outcome is Outcome.PASS else f"{cell.outcome.value}: {cell.detail}"


def _first_moves(gate: Gate, port: Port, method: str, settings: Settings) -> str | None:
    """Whether the first FIRST_MOVES moves at max_n are the reference's: the port is stopped once
    they are read (or, where it makes fewer, its whole cell must pass)."""
    n = port.program(method).max_n
    moves: list[Move] = []

    def take(move: Move) -> None:
        moves.append(move)
        if len(moves) >= FIRST_MOVES:
            raise _Enough

    try:
        cell = evaluate(port, method, n, settings, gate, on_move=take)
    except _Enough:
        expected = itertools.islice(METHODS[method].reference(n), FIRST_MOVES)
        for number, (made, wanted) in enumerate(zip(moves, expected, strict=False), start=1):
            if made.canonical() != wanted.canonical():
                return f"move {number} is {made.canonical()}, where the reference's is {wanted.canonical()}"
        return None
    return _unless_passed(cell)
