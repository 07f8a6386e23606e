"""``harness run``: one cell's moves, canonical or as the port prints them."""

from __future__ import annotations

import sys

import click

from harness.cli.cell import one_cell, say_how_it_ended
from harness.cli.group import cli, examples
from harness.cli.options import DATABASE, ISOLATION, complete_ports, options
from harness.cli.session import Session, parsed
from harness.model import visible
from harness.run import RunOptions


@cli.command(epilog=examples("harness run python recursive -n 4", "harness run c cyclic -n 3 --raw"))
@click.argument("port_name", metavar="PORT", shell_complete=complete_ports)
@click.argument("method")
@options("n", "timeout", "build_timeout", "strict", "max_moves", *DATABASE)
@click.option("--raw", is_flag=True, help="Print the port's own lines instead of canonical moves.")
@options(*ISOLATION)
@click.pass_obj
@parsed
def run(session: Session, /, port_name: str, method: str, raw: bool, options: RunOptions) -> int:
    """Print one cell's moves, canonical (DISK SRC DST) or as the port prints them."""
    def show(line: str) -> None:
        sys.stdout.write(visible(line) + "\n")

    cell = one_cell(
        session, port_name, method, options, "run",
        on_line=show if raw else None, on_move=None if raw else (lambda move: show(move.canonical())),
    )
    sys.stdout.flush()
    return say_how_it_ended(cell)
