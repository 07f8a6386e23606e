"""``harness bench``: time each port alone and the harness reading it, as whole processes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from harness.cli.console import progress_bar, terminal
from harness.cli.group import cli, examples
from harness.cli.options import DATABASE, ISOLATION, MAX_DISCS, DiscCounts, Outputs, ReportFile, options
from harness.cli.publish import write_file
from harness.cli.session import Session, parsed
from harness.errors import ExitCode
from harness.extras import require
from harness.model import visible
from harness.report import WRITERS, writing
from harness.run import HARNESS_CHECKOUT, RunOptions


@cli.command(name="bench", epilog=examples(
    "harness bench -n 16,20 --lang c,rust --method binary", "harness bench --repeat 3 --plot bench.svg",
    "harness bench --merge figures/bench-*.json --markdown docs/bench.md --json docs/bench.json --plot docs/bench.svg",
))
@click.argument("figures_files", metavar="[FIGURES]...", nargs=-1, type=click.Path(dir_okay=False))
@click.option(
    "-n", "--n", "ns", type=DiscCounts(),
    help=f"Discs, for every method: 5, 1-10 or 3,8,12 (0 to {MAX_DISCS}; default: each classic method at 0 and 20, the cyclic at 0 and 12).",
)
@options("port", "method", "timeout", "build_timeout", "max_moves", *writing("figures"), *DATABASE, *ISOLATION)
@click.option("--repeat", type=click.IntRange(min=1, max=1000), default=5, show_default=True, help="Timed runs of each cell, after one warm-up.")
@click.option("--plot", "plot_file", type=ReportFile(), help="Draw each port's time at its largest n, a panel a method, to this .svg.")
@click.option(
    "--merge", is_flag=True,
    help="Time nothing: merge the JSON FIGURES of several benches (one a port, as CI makes them) into one summary, expecting every port under --root.",
)
@click.pass_obj
@parsed
def bench_command(
    session: Session, /, figures_files: tuple[str, ...], repeat: int, plot_file: str | None, merge: bool, options: RunOptions, outputs: Outputs,
) -> int:
    """Time each port: wall and CPU seconds, peak memory and moves per second, port alone, after it
    passes at n=5 and its output verifies at the n timed (else it is listed as failed, not timed),
    run as --isolation says; the harness's own reading speed on the same output; and harness compare
    of the cell as a whole process, with its start-up on its own. The summary, each port and method
    at its largest n beside its time at n=0 and the harness's reading, goes to --markdown and --plot.
    With --merge, the figures of several benches are read instead, and summed up as one."""
    if plot_file and not plot_file.lower().endswith(".svg"):
        raise click.BadParameter("the plot is an .svg file", param_hint="'--plot'")
    if merge != bool(figures_files):
        raise click.UsageError("--merge takes the FIGURES files to merge" if merge else "FIGURES are read only with --merge")
    if merge:
        return _merged(session, figures_files, plot_file, outputs)
    require("harness bench", "postgres", "pretty")
    from harness.bench import bench, bench_to_json, plan, render_bench
    from harness.report.about import commit, machine
    from harness.report.figures import BenchStatus

    settings = options.settings  # with no --n, no n: bench runs each method at its own (the plan's)
    ports = session.chosen(settings)
    ns = plan(settings.methods, settings.ns)
    files = outputs.files
    piped = "-" in files.values()
    about = {**machine(), "commit": commit(HARNESS_CHECKOUT), "isolation": settings.isolation}  # before the run: the commit the figures come from
    with session.gate(options, ports) as gate, progress_bar() as progress:
        task = progress.add_task("bench", total=len(ports) * sum(map(len, ns.values())))
        cells, versions = bench(
            ports, options, ns, repeat, gate, session.root,
            on_done=lambda cell: progress.update(task, advance=1, description=visible(f"{cell.port}/{cell.method} n={cell.n}")),
        )
    figures = bench_to_json(cells, about, versions, repeat)
    render_bench(terminal(stderr=piped), cells, figures)
    return ExitCode.of(_written(figures, plot_file, outputs) and all(cell.status is not BenchStatus.ERROR for cell in cells))


def _merged(session: Session, paths: tuple[str, ...], plot_file: str | None, outputs: Outputs) -> int:
    """The figures in ``paths`` merged (expecting every port under --root), shown and written as a
    bench's are; failed where a port has no figures or a file could not be written."""
    require("harness bench --merge", "postgres", "pretty")
    from harness.bench import render_bench
    from harness.report.about import machine
    from harness.report.figures import merge_figures
    from harness.report.json import read_figures

    figures = merge_figures([(path, read_figures(Path(path))) for path in paths], machine(), session.names)
    render_bench(terminal(stderr="-" in outputs.files.values()), [], figures)
    return ExitCode.of(_written(figures, plot_file, outputs) and not figures["missing"])


def _written(figures: dict[str, Any], plot_file: str | None, outputs: Outputs) -> bool:
    """The figures written in every form asked for, and the plot; whether all were."""
    from harness.bench import bench_svg

    written = True
    for name, path in outputs.files.items():
        written &= write_file(path, WRITERS[name].figures_text(figures), f"{WRITERS[name].form} figures")
    if plot_file:
        written &= write_file(plot_file, bench_svg(figures), "plot")
    return written
