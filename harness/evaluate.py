"""One cell end to end: run the port, read each line, play it on the board, digest it and walk it
beside the reference, all as the lines arrive, so memory stays flat however many moves there are.

Whatever goes wrong becomes the cell's outcome and detail; nothing here raises for a port's fault.
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable

from harness.compare import Divergence, StreamDigest
from harness.discover import Port
from harness.model import METHODS, Cell, Move, Outcome
from harness.normalise import Reader, Unreadable
from harness.run import PortProcess, missing_requirement
from harness.verify import Board, Violation

DEFAULT_TIMEOUT = 120.0


def evaluate(
    port: Port,
    method: str,
    n: int,
    timeout: float = DEFAULT_TIMEOUT,
    strict: bool = False,
    on_line: Callable[[str], None] | None = None,
    on_move: Callable[[Move], None] | None = None,
) -> Cell:
    """Run one (port, method, n) cell; ``on_line`` sees each raw line, ``on_move`` each verified move.
    A missing interpreter skips the cell, or with ``strict`` makes it an error."""
    cell = Cell(port.name, method, n)
    started = time.perf_counter()
    _play(cell, port, timeout, strict, on_line, on_move)
    cell.seconds = time.perf_counter() - started
    return cell


def _play(cell: Cell, port: Port, timeout: float, strict: bool, on_line, on_move) -> None:
    if port.problem:
        cell.outcome, cell.detail = Outcome.ERROR, port.problem
        return
    if cell.method not in port.methods:
        cell.outcome, cell.detail = Outcome.SKIPPED, f"{port.name} does not offer the {cell.method} method"
        return
    missing = missing_requirement(port)
    if missing:
        cell.outcome = Outcome.ERROR if strict else Outcome.SKIPPED
        cell.detail = f"{missing.executable} not found on PATH" + (f"; {missing.install}" if missing.install else "")
        return
    rules = METHODS[cell.method]
    reader, board = Reader(port), Board(cell.n, rules)
    digest, divergence = StreamDigest(), Divergence(rules.reference(cell.n))
    problem: tuple[Outcome, str] | None = None
    read_all = True
    try:
        process = PortProcess(port, cell.method, cell.n, timeout)
    except OSError as error:
        cell.outcome, cell.detail = Outcome.ERROR, f"could not start {port.argv(cell.method, cell.n)[0]}: {error}"
        return
    with process:
        for line_number, line in enumerate(process.lines(), 1):
            if on_line:
                on_line(line)
            try:
                move = reader.read(line)
            except Unreadable as error:
                problem = problem or (Outcome.ERROR, f"line {line_number}: {error}")
                read_all = False
                break
            if problem is None:
                try:
                    move = board.play(move)
                except Violation as error:
                    problem = (Outcome.FAIL, f"line {line_number}: {error}")
                else:
                    digest.update(move)
                    if on_move:
                        on_move(move)
            if not divergence.feed(move) and problem:
                read_all = False
                break
        if not read_all:
            process.stop()
        finish = process.finish()
    cell.moves = divergence.count
    if read_all and not finish.timed_out:
        divergence.finish()
    cell.diff = divergence.unified("reference", f"{cell.language}/{cell.method} n={cell.n}")
    if finish.timed_out:
        cell.outcome, cell.detail = Outcome.ERROR, f"timed out after {timeout:g} s, having printed {cell.moves} moves"
    elif problem and problem[0] is Outcome.ERROR:
        cell.outcome, cell.detail = problem
    elif finish.returncode != 0 and not finish.stopped:
        cell.outcome = Outcome.ERROR
        cell.detail = f"exited with code {finish.returncode} after {cell.moves} moves" + (
            f"; stderr ends:\n{finish.stderr_tail}" if finish.stderr_tail else "; stderr was empty"
        )
    elif problem:
        cell.outcome, cell.detail = problem
    else:
        cell.digest = digest.hexdigest()
        try:
            board.finish()
        except Violation as error:
            cell.outcome, cell.detail = Outcome.FAIL, str(error)
        else:
            cell.outcome = Outcome.PASS


def evaluate_all(
    ports: Iterable[Port],
    methods: Iterable[str],
    ns: Iterable[int],
    jobs: int,
    timeout: float = DEFAULT_TIMEOUT,
    strict: bool = False,
    on_done: Callable[[Cell], None] | None = None,
) -> list[Cell]:
    """Every (port, method, n) cell, ``jobs`` at a time, returned in a stable order."""
    ports, methods = list(ports), list(methods)
    plan = [(port, method, n) for n in ns for port in ports for method in methods]

    def one(task: tuple[Port, str, int]) -> Cell:
        cell = evaluate(*task, timeout=timeout, strict=strict)
        if on_done:
            on_done(cell)
        return cell

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(one, plan))
