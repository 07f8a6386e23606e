"""``harness gallery``: an index of the languages, and each method's code in the languages a reader picks, side by side, as a static site."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from harness.cli.group import cli, examples
from harness.cli.options import ISOLATION, DiscCounts, options, settings_from
from harness.cli.publish import write_file
from harness.cli.session import Session, read_report_file
from harness.errors import ExitCode
from harness.extras import require
from harness.settings import DEFAULT_MAX_MOVES


@cli.command(epilog=examples("harness gallery --out site", "harness gallery --out site --report report.json"))
@click.option("--out", required=True, type=click.Path(file_okay=False, path_type=Path), help="Folder for the site: index.html, report.html beside it.")
@click.option("--report", "report_file", type=click.Path(dir_okay=False), help="Build from this JSON report (compare or merge --json) instead of a fresh run.")
@click.option("-n", "--n", "ns", type=DiscCounts(), default="0-6", show_default=True, help="Discs for the fresh run.")
@click.option("--sample-n", type=click.IntRange(min=0, max=6), default=3, show_default=True, help="Discs for each port's sample of what it prints.")
@click.option("--no-samples", is_flag=True, help="Run no sample: show the code and the report alone.")
@options("jobs", *ISOLATION)
@click.pass_obj
def gallery(session: Session, /, out: Path, report_file: str | None, ns: list[int], sample_n: int, no_samples: bool, **walls: Any) -> int:
    """Write a static site: an index of the languages, and each method's code in the languages a
    reader picks, side by side, with each one's verdict, time and what it prints, and the report
    page beside it: from a fresh run, or from --report. The fresh run and the samples run each
    port as compare does, in the walls --isolation names."""
    require("harness gallery", "gallery")
    from harness.gallery import INDEX, run, site

    given = read_report_file(report_file) if report_file else None
    settings = settings_from(session.ports, {"ns": () if given else ns, "max_moves": DEFAULT_MAX_MOVES, **walls})
    with session.gate(settings, None) as gate:
        fresh, samples = run(session.ports, session.root, settings, gate, None if no_samples else sample_n)
    report = given or fresh
    assert report is not None  # a fresh run makes one when no report is given
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.ClickException(f"cannot write the gallery to {out}: {error.strerror or error}") from None
    written = True
    for name, text in site(report, session.ports, samples).items():  # each page whole or not at all, as every report is
        written &= write_file(str(out / name), text, f"gallery's {name}")
    if written:
        click.echo(f"wrote {out / INDEX}")
    return ExitCode.of(written)
