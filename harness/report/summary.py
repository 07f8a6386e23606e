"""What every form of a report shows, worked out once: the table of ports by methods, the problems
grouped by port and reason, each distinct difference from the reference once, and the verdict,
with everything a port sent made visible."""

from __future__ import annotations

import collections
from collections.abc import Iterable
from dataclasses import dataclass, replace

from harness.model import Cell, Outcome, Reason, Rerun, span, visible
from harness.report import Report

NOT_OFFERED = "—"
NOT_INSTALLED = "not installed"
"""A method whose cells were all skipped because a tool the port needs is not on this machine."""
SHOWN_DIFFS = 5
"""The most distinct differences from the reference a report quotes in full."""
SHOWN_IN_SUMMARY = 10
"""The most problems or disagreements a Markdown summary lists; the rest are counted."""


def one_line(text: str) -> str:
    """A detail as one line, visible: what a port printed over several is joined by `` | ``."""
    return " | ".join(part.strip() for part in visible(text).split("\n") if part.strip())


@dataclass(frozen=True)
class Fault:
    """One fault, as it happened to one port, for one reason and detail, over some methods and n."""

    port: str
    outcome: Outcome
    reason: Reason | None
    detail: str
    methods: tuple[str, ...]
    ns: tuple[int, ...]
    rerun: Rerun | None = None
    """How to see the first of its cells again: the others fail as it does."""

    @property
    def where(self) -> str:
        """The methods and n the fault showed in."""
        return f"{','.join(self.methods)} n={span(self.ns)}"

    @property
    def kind(self) -> str:
        """The outcome, and the reason where there is one: ``fail (violation)``."""
        return f"{self.outcome.value} ({self.reason.value})" if self.reason else self.outcome.value


@dataclass(frozen=True)
class Difference:
    """One distinct difference from the reference, and every cell that showed it."""

    labels: tuple[str, ...]
    lines: tuple[str, ...]


def offered(cell: Cell) -> bool:
    """Whether the port offers the cell's method: a cell it does not offer is shown as a dash, not a fault."""
    return cell.reason is not Reason.NOT_OFFERED


def faults(cells: Iterable[Cell]) -> list[Fault]:
    """Each distinct fault once, grouped by port and reason; a method a port does not offer is no fault."""
    grouped: dict[tuple[str, Outcome, Reason | None, str], list[Cell]] = collections.defaultdict(list)
    for cell in cells:
        if cell.outcome is not Outcome.PASS and offered(cell):
            grouped[(cell.port, cell.outcome, cell.reason, cell.detail)].append(cell)
    found = [
        Fault(port, outcome, reason, detail, tuple(dict.fromkeys(c.method for c in group)), tuple(sorted({c.n for c in group})), group[0].rerun)
        for (port, outcome, reason, detail), group in grouped.items()
    ]
    return sorted(found, key=lambda p: (p.port, p.reason.value if p.reason else "", p.methods, p.ns))


def differences(cells: Iterable[Cell]) -> list[Difference]:
    """Each distinct diff once (the same moves parting the same way), with the cells that show it."""
    by_lines: dict[tuple[str, ...], list[str]] = {}
    for cell in cells:
        if cell.diff:
            by_lines.setdefault(tuple(cell.diff[2:]), []).append(cell.label)
    return [Difference(tuple(labels), lines) for lines, labels in by_lines.items()]


def _column(cells: list[Cell], single_n: bool) -> list[tuple[Outcome | None, str]]:
    """One table cell: how a port's method did over every n asked, as (outcome, text) parts."""
    cells = [cell for cell in cells if offered(cell)]
    if not cells:
        return [(None, NOT_OFFERED)]
    by_outcome: dict[Outcome, list[Cell]] = collections.defaultdict(list)
    for cell in cells:
        by_outcome[cell.outcome].append(cell)
    parts: list[tuple[Outcome | None, str]] = []
    for outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.SKIPPED, Outcome.PASS):
        group = by_outcome.get(outcome)
        if not group:
            continue
        moves = sum(cell.moves for cell in group)
        word = Reason.INTERRUPTED.value if all(cell.reason is Reason.INTERRUPTED for cell in group) else outcome.value
        if outcome is Outcome.SKIPPED and all(cell.reason is Reason.MISSING_INTERPRETER for cell in group):
            text = NOT_INSTALLED
        elif single_n:
            text = f"{outcome.value} · {moves:,} moves" if outcome is not Outcome.SKIPPED else word
        elif outcome is Outcome.PASS:
            text = f"pass ×{len(group)} · {moves:,} moves"
        else:
            text = f"{word} n={span(cell.n for cell in group)}"
        parts.append((outcome, text))
    return parts


@dataclass
class View:
    """Everything a rendering shows, worked out once whatever the form, what ports sent made visible."""

    title: str
    methods: list[str]
    rows: list[tuple[str, str, list[list[tuple[Outcome | None, str]]]]]  # port, versions, a column per method
    faults: list[Fault]
    differences: list[Difference]
    disagreements: list[tuple[str, list[tuple[str, list[str]]]]]
    missing: list[str]
    verdict: str
    passed: bool


def summarise(report: Report) -> View:
    """What every form of the report shows: the table, the problems, the diffs, the verdict."""
    cells = report.cells
    ns = sorted({cell.n for cell in cells})
    by_port: dict[tuple[str, str], list[Cell]] = collections.defaultdict(list)
    for cell in cells:
        by_port[(cell.port, cell.method)].append(cell)
    rows = [
        (visible(port.name), visible(", ".join(v for v in port.versions.values() if v)),
         [_column(by_port[(port.name, method)], len(ns) == 1) for method in report.methods])
        for port in report.ports
    ]
    disagreements = [
        (f"n={group.n} ({group.rules}): the ports print {len(group.by_digest)} different sequences",
         [(visible(digest[:12]), [visible(label) for label in labels]) for digest, labels in group.by_digest.items()])
        for group in report.agreement if not group.agrees
    ]
    ran = [cell for cell in cells if cell.outcome is not Outcome.SKIPPED]
    counts = collections.Counter(cell.outcome for cell in cells if offered(cell))
    tally = ", ".join(f"{counts[outcome]} {outcome.value}" for outcome in Outcome if counts[outcome]) or "none"
    if report.interrupted:
        verdict = f"Interrupted by {report.interrupted} after {len(cells)} of {len(report.plan.cells())} cells ({tally})."
    elif report.missing:
        verdict = f"Incomplete: not every part of the run has a report ({tally})."
    elif not ran:
        verdict = f"No cell ran ({tally})."
    elif report.passed:
        each = "an n" if len({group.rules for group in report.agreement}) == 1 else "a puzzle and n"
        verdict = f"All {len(ran)} cells that ran pass and agree: one sequence {each} ({tally})."
    else:
        verdict = f"Not all ports pass and agree ({tally})."
    shown_faults = [replace(fault, port=visible(fault.port), detail=visible(fault.detail)) for fault in faults(cells)]
    shown_differences = [
        Difference(tuple(map(visible, difference.labels)), tuple(map(visible, difference.lines))) for difference in differences(cells)
    ]
    return View(
        f"Tower of Hanoi, n = {span(ns)}", list(report.methods), rows, shown_faults, shown_differences,
        disagreements, [visible(item) for item in report.missing], verdict, report.passed,
    )


def by_port(found: list[Fault]) -> list[tuple[str, list[Fault]]]:
    """The faults under their port, in the order found: how the reports list the problems."""
    grouped: dict[str, list[Fault]] = {}
    for fault in found:
        grouped.setdefault(fault.port, []).append(fault)
    return list(grouped.items())


def more(count: int, what: str, shown: int = SHOWN_IN_SUMMARY) -> list[str]:
    """The line that counts what a summary leaves out, if it leaves out anything."""
    return ["", f"… and {count - shown} more {what}; the JSON report holds them all"] if count > shown else []


