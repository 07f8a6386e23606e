"""``harness bench``: time each port alone and the harness reading it, as whole processes."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import click

from harness.cli.group import EXIT_CODES, PROJECT_ROOT, cli, finish
from harness.cli.options import DATABASE, ISOLATION, ReportFile, chosen, options, settings_from
from harness.cli.publish import write_file
from harness.cli.session import open_gate, port_versions, progress_bar, terminal
from harness.model import visible


@cli.command(name="bench", epilog=EXIT_CODES)
@options("n", "port", "method", "timeout", "build_timeout", "max_moves", "json", *DATABASE, *ISOLATION)
@click.option("--repeat", type=click.IntRange(min=1, max=1000), default=5, show_default=True, help="Timed runs of each cell, after one warm-up.")
@click.option("--plot", "plot_file", type=ReportFile(), help="Draw time against n to this .svg or .png (needs matplotlib).")
@click.pass_context
def bench_command(ctx: click.Context, /, repeat: int, plot_file: str | None, **given: Any) -> None:
    """Time each port: wall and CPU seconds, peak memory and moves per second, port alone, after it
    passes at n=5, run as --isolation says; the harness's own reading speed on the same output; and
    harness compare of the cell as a whole process, with its start-up on its own."""
    from harness.bench import BenchStatus, bench, bench_to_json, plot_bench, render_bench
    from harness.report.about import commit, machine
    from harness.report.json import json_text

    settings = settings_from(ctx.obj, given)
    ports = chosen(ctx.obj, settings)
    if plot_file:
        if not plot_file.lower().endswith((".svg", ".png")):
            raise click.BadParameter("the plot is an .svg or a .png file", param_hint="'--plot'")
        if importlib.util.find_spec("matplotlib") is None:
            raise click.UsageError("--plot needs matplotlib: pip install 'hanoi-polyglot[plot]'", ctx)
    json_file = given["json_file"]
    console = terminal(stderr=json_file == "-")
    about = {**machine(), "commit": commit(PROJECT_ROOT), "isolation": settings.isolation}  # before the run: the commit the figures come from
    with open_gate(settings, given["dsn"], ports) as gate, progress_bar() as progress:
        task = progress.add_task("bench", total=len(ports) * len(settings.methods) * len(settings.ns))
        cells = bench(
            ports, settings, repeat, gate, ctx.meta["root"], given["dsn"],
            on_done=lambda cell: progress.update(task, advance=1, description=visible(f"{cell.port}/{cell.method} n={cell.n}")),
        )
        versions = port_versions(ports, gate)
    render_bench(console, cells, about, versions, repeat)
    written = True
    if json_file:
        written &= write_file(json_file, json_text(bench_to_json(cells, about, versions, repeat), indent=2) + "\n", "JSON figures")
    if plot_file:
        written &= write_file(plot_file, lambda handle: plot_bench(handle, Path(plot_file).suffix[1:].lower(), cells, about), "plot")
    finish(written and all(cell.status is not BenchStatus.ERROR for cell in cells))
