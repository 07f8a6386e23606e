"""``harness gallery``: an index of the languages, and each method's code in the languages a reader picks, side by side, as a static site."""

from __future__ import annotations

import contextlib
import dataclasses
from pathlib import Path

import click

from harness.cli.group import cli, examples
from harness.cli.options import ISOLATION, DiscCounts, options
from harness.cli.publish import write_file
from harness.cli.session import Session, parsed
from harness.errors import ExitCode
from harness.extras import require
from harness.run import RunOptions, run
from harness.settings import DEFAULT_MAX_MOVES


@cli.command(epilog=examples("harness gallery --out site", "harness gallery --out site --report report.json"))
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder for the site: index.html, report.html beside it.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False), help="Build from this JSON report (compare or merge --json) instead of a fresh run.")
@click.option("-n", "--n", "ns", type=DiscCounts(), default="0-6", show_default=True, help="Discs for the fresh run.")
@click.option("--sample-n", type=click.IntRange(min=0, max=6), default=3, show_default=True, help="Discs for each port's sample of what it prints.")
@click.option("--no-samples", is_flag=True, help="Run no sample: show the code and the report alone.")
@options("jobs", *ISOLATION)
@click.pass_obj
@parsed
def gallery(session: Session, /, out: Path, report_file: str | None, sample_n: int, no_samples: bool, options: RunOptions) -> int:
    """Write a static site: an index of the languages, and each method's code in the languages a
    reader picks, side by side, with each one's verdict, time and what it prints, and the report
    page beside it: from a fresh run, or from --report. The fresh run and the samples run each
    port as compare does, in the walls --isolation names. Exit 1 when a port's manifest is broken
    (the site still shows it) or a page could not be written."""
    require("harness gallery", "gallery")
    from harness.gallery import INDEX, samples, site
    from harness.report.json import read_report

    report = read_report(Path(report_file)) if report_file else None
    settings = dataclasses.replace(options.settings, ns=() if report else options.settings.ns, max_moves=DEFAULT_MAX_MOVES)
    options = dataclasses.replace(options, settings=settings)
    with session.gate(options) as gate:
        if report is None:  # the fresh run, as compare's, through this gate, which the samples use too
            ran = run("gallery", session.ports, options, lambda: contextlib.nullcontext(gate), session.shown_root)
            if ran.stopped is not None:
                raise ran.stopped
            report = ran.report
        shown = {} if no_samples else samples(session.ports, settings, gate, sample_n)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.ClickException(f"cannot write the gallery to {out}: {error.strerror or error}") from None
    written = True
    for name, text in site(report, session.ports, shown).items():  # each page whole or not at all, as every report is
        written &= write_file(str(out / name), text, f"gallery's {name}")
    if written:
        click.echo(f"wrote {out / INDEX}")
    broken = any(port.manifest_error for port in session.ports)  # shown on the site, and failed, as compare fails it
    return ExitCode.of(written and not broken)
