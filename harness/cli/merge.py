"""``harness merge``: the reports of several runs made one, held to the plans they record."""

from __future__ import annotations

from pathlib import Path

import click

from harness.cli.group import cli, examples
from harness.cli.options import REPORTS, Outputs, options
from harness.cli.publish import publish
from harness.cli.session import Session, parsed


@cli.command(epilog=examples(
    "harness merge shard-1.json shard-2.json --json report.json",
    "harness merge --expect plan --html report.html shard-1.json shard-2.json",
))
@click.argument("reports", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--mixed", is_flag=True, help="Merge reports from different commits or harness versions too.")
@click.option(
    "--expect", type=click.Choice(["checkout", "plan"]), default="checkout", show_default=True,
    help="What must have a report: every port the manifests under --root list and all the reports' plans hold (checkout), or their plans alone (plan).",
)
@options(*REPORTS)
@click.pass_obj
@parsed
def merge(session: Session, /, reports: tuple[str, ...], mixed: bool, expect: str, outputs: Outputs) -> int:
    """Merge the JSON reports of several runs (such as the shards of one, on several machines) and
    decide from their digests whether all the ports agree, as compare does for one run. Each report
    records the run it is part of: a port, a shard or a cell of it that no report holds fails the merge,
    named."""
    from harness.report.json import read_report
    from harness.report.merge import merge_reports

    if expect == "checkout" and not session.manifests:
        raise click.UsageError(f"no ports under {session.root} to expect: give --root, or --expect plan to expect only what the reports planned")
    expected = tuple(session.names) if expect == "checkout" else ()
    merged = merge_reports([(path, read_report(Path(path))) for path in reports], mixed, expected)
    return publish(merged, outputs)
