"""``harness compare``: every cell of the plan, verified, the ports held to one another, the report published."""

from __future__ import annotations

import click

from harness.cli.console import cells_progress
from harness.cli.group import cli, examples, signal_name
from harness.cli.options import DATABASE, ISOLATION, REPORTS, Outputs, options
from harness.cli.publish import publish, show
from harness.cli.session import Session, parsed
from harness.run import RunOptions, run


@cli.command(epilog=examples(
    "harness compare -n 5",
    "harness compare -n 0-6 --lang python,c --html report.html",
    "harness compare -n 3,8 --method cyclic --isolation sandbox --json report.json",
))
@options("n", "port", "method", "jobs", "timeout", "build_timeout", "strict", "max_moves", "fail_fast", "shard", *REPORTS, *DATABASE, *ISOLATION)
@click.pass_obj
@parsed
def compare(session: Session, /, options: RunOptions, outputs: Outputs) -> int:
    """Run every (port, method) cell for each n, verify each, and check that all agree."""
    ports = session.chosen(options.settings)
    ran = run("compare", ports, options, lambda: session.gate(options, ports), session.shown_root, cells_progress)
    if ran.stopped is None:
        return publish(ran.report, outputs)
    ran.report.interrupted = signal_name(ran.stopped)  # Ctrl-C, SIGTERM: every report asked for is still written, of the cells that finished
    show(ran.report, outputs)
    raise ran.stopped
