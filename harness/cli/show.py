"""``harness show``: one cell's moves drawn as stacks of discs."""

from __future__ import annotations

import sys
import time

import click

from harness.cli.cell import one_cell, say_how_it_ended
from harness.cli.group import cli, examples
from harness.cli.options import DATABASE, ISOLATION, complete_ports, options
from harness.cli.session import Session, parsed
from harness.model import METHODS, Cell, Move, visible
from harness.run import RunOptions
from harness.verify import CANONICAL

MAX_SHOWN = 12
"""The most discs ``show`` draws: three towers of 12 fit an 80-column terminal."""


@cli.command(epilog=examples("harness show python recursive -n 4", "harness show prolog cyclic -n 3 --delay 0.1"))
@click.argument("port_name", metavar="PORT", shell_complete=complete_ports)
@click.argument("method")
@options("n", "timeout", "build_timeout", "strict", *DATABASE)
@click.option(
    "--delay", type=click.FloatRange(min=0, max=60), default=0.3, show_default=True, metavar="SECONDS",
    help="Seconds between moves on a terminal.",
)
@options(*ISOLATION)
@click.pass_obj
@parsed
def show(session: Session, /, port_name: str, method: str, delay: float, options: RunOptions) -> int:
    """Draw one cell's moves as stacks of discs: animated on a terminal, each position once when piped.
    The moves are the port's own, verified; a port that breaks a rule is drawn up to it."""
    from harness.board import draw, heading, positions

    if options.settings.ns and options.settings.ns[0] > MAX_SHOWN:
        raise click.BadParameter(f"show draws at most {MAX_SHOWN} discs, {MAX_SHOWN} being as wide as a terminal", param_hint="'--n'")
    moves: list[Move] = []
    cell = one_cell(session, port_name, method, options, "show", on_move=moves.append)
    names = peg_names(session, cell)
    animated = sys.stdout.isatty()
    sys.stdout.write(visible(heading(cell.label, METHODS[cell.method], len(moves), names)) + "\n")
    drawn = 0
    for number, (pegs, move) in enumerate(positions(cell.n, moves)):
        lines = [visible(line) for line in draw(cell.n, pegs, move, number, len(moves), names)]
        if animated and drawn:
            time.sleep(delay)
            sys.stdout.write(f"\x1b[{drawn}F")  # back to the first line of the board drawn last
        elif drawn:
            sys.stdout.write("\n")
        sys.stdout.write("".join(f"{line}\x1b[K\n" if animated else f"{line}\n" for line in lines))
        sys.stdout.flush()
        drawn = len(lines)
    return say_how_it_ended(cell)


def peg_names(session: Session, cell: Cell) -> tuple[str, ...]:
    """The port's own names for the cell's pegs, as its manifest gives them; 0, 1 and 2 where it gives none it can use."""
    port = session.port(cell.port)
    usable = not port.manifest_error and cell.method in port.methods
    return port.program(cell.method).output.pegs if usable else CANONICAL
