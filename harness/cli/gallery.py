"""``harness gallery``: every method's code in every port, side by side, as a static site."""

from __future__ import annotations

from pathlib import Path

import click

from harness.cli.group import EXIT_CODES, cli
from harness.cli.options import DiscCounts, options
from harness.cli.session import read_report_file


@cli.command(epilog=EXIT_CODES)
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder for the site: index.html, report.html beside it.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False), help="Build from this JSON report (compare or merge --json) instead of a fresh run.")
@click.option("-n", "--n", "ns", type=DiscCounts(), default="0-6", show_default=True, help="Discs for the fresh run.")
@click.option("--sample-n", type=click.IntRange(min=0, max=6), default=3, show_default=True, help="Discs for each port's sample of what it prints.")
@click.option("--no-samples", is_flag=True, help="Run no sample: show the code and the report alone.")
@options("jobs")
@click.pass_context
def gallery(ctx: click.Context, /, out: Path, report_file: str | None, ns: list[int], sample_n: int, no_samples: bool, jobs: int) -> None:
    """Write a static site of every method's code in every port, side by side, with each one's verdict,
    time and what it prints, and the report page beside it: from a fresh run, or from --report."""
    from harness.gallery import run, write

    given = read_report_file(report_file) if report_file else None
    fresh, samples = run(ctx.obj, ctx.meta["root"], None if given else ns, None if no_samples else sample_n, jobs)
    report = given or fresh
    assert report is not None  # a fresh run makes one when no report is given
    try:
        click.echo(f"wrote {write(out, report, ctx.obj, samples)}")
    except OSError as error:
        raise click.ClickException(f"cannot write the gallery to {out}: {error.strerror or error}") from None
