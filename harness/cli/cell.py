"""The one cell that ``run`` and ``show`` ask for, and how it ended, said."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from harness.cli.console import say
from harness.cli.options import choose
from harness.cli.session import Session
from harness.errors import ExitCode
from harness.model import METHODS, Cell, Outcome, Reason

if TYPE_CHECKING:
    from harness.reading import LineSink, MoveSink
    from harness.run import RunOptions


def one_cell(
    session: Session, port_name: str, method: str, options: RunOptions, command: str,
    on_line: LineSink | None = None, on_move: MoveSink | None = None,
) -> Cell:
    """One cell of the port and method named (a port by its exact name first: a report's rerun line
    names it so), for the one n of ``options``, run or skipped (--max-moves) as compare does;
    ``on_line`` and ``on_move`` see its lines or moves as they come."""
    from harness.evaluate import evaluate

    if len(options.settings.ns) != 1:
        raise click.BadParameter(f"{command} takes one n", param_hint="'--n'")
    names = session.names
    port = session.port(port_name if port_name in names else choose(port_name, names, "port", "'PORT'")[0])
    method = choose(method, list(METHODS), "method", "'METHOD'")[0]
    settings = options.settings
    too_many = settings.too_many_moves(method, settings.ns[0]) if method in port.methods else None
    if too_many:
        return Cell(port.name, method, settings.ns[0], Outcome.SKIPPED, detail=too_many, reason=Reason.TOO_MANY_MOVES)
    with session.gate(options, [port]) as gate:
        return evaluate(port, method, settings.ns[0], settings, gate, on_line, on_move)


def say_how_it_ended(cell: Cell) -> int:
    """A cell that did not pass says why on standard error, with its diff; the exit code it returns
    says whether it ran well (a skipped cell did)."""
    if cell.outcome is not Outcome.PASS:
        for line in (f"{cell.label}: {cell.outcome.value}: {cell.detail}", *cell.diff):
            say(line, stderr=True)
    return ExitCode.of(cell.outcome in (Outcome.PASS, Outcome.SKIPPED))
