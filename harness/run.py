"""The one road from a plan to a :class:`~harness.report.Report`: every cell of the plan
(``evaluate_all``), the ports' versions, the commit and the machine gathered beside them, the cells
in the plan's order however the run ended, a rerun line for each cell that did not pass, and the
report. ``compare``, ``gallery`` and ``bench``'s verification all take it, so that their cells and
reports cannot drift apart; a command only parses its options into :class:`RunOptions`, runs, and
publishes."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from harness.settings import Settings

if TYPE_CHECKING:
    from concurrent.futures import Future
    from contextlib import AbstractContextManager

    from harness.gate import Gate
    from harness.model import Cell
    from harness.port import Port
    from harness.report import PortInfo, Report

HARNESS_CHECKOUT = Path(__file__).resolve().parent.parent
"""The harness's own checkout, whose commit a report names; the ports may be anywhere."""

CellSink = Callable[["Cell"], None]
"""Sees each cell as it finishes (a progress bar)."""
Watch = Callable[[int], "AbstractContextManager[CellSink]"]
"""Given how many cells a run has, what sees each finish while it runs."""
Facts = tuple[list["PortInfo"], str | None, dict[str, Any]]
"""What a report says of its run besides the cells: the ports with their versions, the commit, the machine."""


@dataclass(frozen=True)
class RunOptions:
    """What a command's options make of a run, parsed once: its settings (which cells, how, what
    counts) and the PostgreSQL server the DSN names, if any, which stays out of the settings, since
    those are recorded in every report and a DSN may hold a password."""

    settings: Settings = field(default_factory=Settings)
    dsn: str | None = None


@dataclass
class Ran:
    """A run's report, and the interruption (Ctrl-C, SIGTERM) that stopped it, if one did: the report
    then holds the cells that finished, and the caller shows it before it lets the interruption go on."""

    report: Report
    stopped: KeyboardInterrupt | None = None


@contextlib.contextmanager
def unwatched(total: int) -> Iterator[CellSink]:
    """A run that no one watches."""
    yield lambda cell: None


def run(
    command: str, ports: list[Port], options: RunOptions, open_gate: Callable[[], AbstractContextManager[Gate]],
    shown_root: str, watch: Watch = unwatched,
) -> Ran:
    """Every cell of the settings' plan for ``ports`` through the gate ``open_gate`` opens, ``watch``
    seeing each as it finishes, made the report ``command`` names; each cell that did not pass gets
    its rerun line, naming the ports' folder as ``shown_root``. Stopped, the cells that finished are
    reported in the plan's order, and the interruption is returned with them."""
    from harness.report import Report, now
    from harness.report.rerun import attach_reruns

    settings = options.settings
    started = now()
    finished: list[Cell] = []
    stopped: KeyboardInterrupt | None = None
    facts: Future[Facts] | None = None

    def done(cell: Cell) -> None:
        finished.append(cell)
        seen(cell)

    try:
        with open_gate() as gate, watch(len(settings.plan.cells())) as seen:
            facts, cells = _cells_beside_facts(ports, settings, gate, done)
    except KeyboardInterrupt as interruption:
        stopped = interruption
        order = {key: index for index, key in enumerate(settings.plan.cells())}
        cells = sorted(finished.copy(), key=lambda cell: order.get((cell.port, cell.method, cell.n), len(order)))
    infos, checkout, where = _facts(ports, facts, waited=stopped is None)
    attach_reruns(cells, ports, settings, shown_root)
    report = Report(
        command=command, started=started, finished=now(), commit=checkout, plan=settings.plan, options=settings.options(),
        machine=where, ports=infos, methods=list(settings.methods), cells=cells,
    )
    return Ran(report, stopped)


def _cells_beside_facts(ports: list[Port], settings: Settings, gate: Gate, done: CellSink) -> tuple[Future[Facts], list[Cell]]:
    """The plan's cells, and beside them, in a thread of their own, the facts of the run (:func:`_gather`),
    so that none of them is waited for once the cells are done. A PostgreSQL that ports need is
    warmed first, while the other ports' cells run."""
    from harness.evaluate import evaluate_all

    if gate.database is not None:
        gate.database.warm([port for port in ports if port.query], settings.timeout)
    aside = ThreadPoolExecutor(max_workers=1)
    try:
        facts = aside.submit(_gather, ports, gate)
        return facts, evaluate_all(ports, settings, gate, on_done=done)
    finally:  # stopped, the run waits for none of it; else for it once the gate is closed
        aside.shutdown(wait=False)


def _gather(ports: list[Port], gate: Gate) -> Facts:
    """What a report says of its run besides the cells: each port with its interpreters' versions,
    the commit and the machine. Gathered while the cells run, with the report's writer loaded
    meanwhile."""
    from harness.report import port_info, versions_said
    from harness.report.about import commit, machine

    versions = versions_said(gate.versions(ports))
    return [port_info(port, versions) for port in ports], commit(HARNESS_CHECKOUT), machine()


def _facts(ports: list[Port], facts: Future[Facts] | None, waited: bool) -> Facts:
    """The facts gathered beside the cells: waited for after a whole run; after one that was stopped,
    only if they are there, else each port without versions, and no commit or machine."""
    from harness.report import port_info

    if facts is not None and (waited or facts.done() and facts.exception() is None):
        return facts.result()
    return [port_info(port, {}) for port in ports], None, {}
