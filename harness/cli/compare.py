"""``harness compare``: every cell of the plan, verified, the ports held to one another, the report published."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from harness.cli.group import PROJECT_ROOT, cli, examples, signal_name
from harness.cli.options import DATABASE, ISOLATION, REPORTS, chosen, options, settings_from
from harness.cli.publish import Outputs, publish, show
from harness.cli.session import Session, port_versions, progress_bar
from harness.model import Cell, visible

if TYPE_CHECKING:
    from concurrent.futures import Future

    from harness.gate import Gate
    from harness.port import Port
    from harness.report import PortInfo


@cli.command(epilog=examples(
    "harness compare -n 5",
    "harness compare -n 0-6 --lang python,c --html report.html",
    "harness compare -n 3,8 --method cyclic --isolation sandbox --json report.json",
))
@options("n", "port", "method", "jobs", "timeout", "build_timeout", "strict", "max_moves", "fail_fast", "shard", *REPORTS, *DATABASE, *ISOLATION)
@click.pass_obj
def compare(session: Session, /, **given: Any) -> int:
    """Run every (port, method) cell for each n, verify each, and check that all agree."""
    from concurrent.futures import ThreadPoolExecutor

    from harness.evaluate import evaluate_all
    from harness.report import Report, now, port_info
    from harness.report.rerun import attach_reruns

    settings = settings_from(session.ports, given)
    ports = chosen(session.ports, settings)
    started = now()
    finished: list[Cell] = []

    def done(cell: Cell) -> None:
        finished.append(cell)
        progress.update(task, advance=1, description=visible(cell.label))

    stopped: KeyboardInterrupt | None = None
    about: Future[tuple[list[PortInfo], str | None, dict[str, Any]]] | None = None
    try:
        with session.gate(settings, given["dsn"], ports) as gate, progress_bar() as progress:
            task = progress.add_task("cells", total=len(settings.plan.cells()))
            if gate.database is not None:
                gate.database.warm([port for port in ports if port.query], settings.timeout)  # while the other ports' cells run
            aside = ThreadPoolExecutor(max_workers=1)
            try:
                about = aside.submit(_about, ports, gate)
                cells = evaluate_all(ports, settings, gate, on_done=done)
            finally:  # stopped, the run waits for none of it; else for it below
                aside.shutdown(wait=False)
    except KeyboardInterrupt as interruption:  # Ctrl-C, SIGTERM: every report asked for is still written, of the cells that finished
        stopped = interruption
        order = {key: index for index, key in enumerate(settings.plan.cells())}
        cells = sorted(finished.copy(), key=lambda cell: order.get((cell.port, cell.method, cell.n), len(order)))
    if about is not None and (stopped is None or about.done() and about.exception() is None):
        infos, checkout, where = about.result()
    else:
        infos, checkout, where = [port_info(port, {}) for port in ports], None, {}
    attach_reruns(cells, ports, settings, session.shown_root)
    report = Report("compare", started, now(), checkout, settings.plan, settings.options(), where, infos, list(settings.methods), cells)
    if stopped is None:
        return publish(report, Outputs.given(given))
    report.interrupted = signal_name(stopped)
    show(report, Outputs.given(given))
    raise stopped


def _about(ports: list[Port], gate: Gate) -> tuple[list[PortInfo], str | None, dict[str, Any]]:
    """What a report says of its run besides the cells: each port with its interpreters' versions,
    the commit and the machine. Gathered while the cells run, with the report's writer loaded
    meanwhile, so none of it is waited for once they are done."""
    from harness.report import port_info
    from harness.report.about import commit, machine

    versions = port_versions(ports, gate)
    return [port_info(port, versions) for port in ports], commit(PROJECT_ROOT), machine()
