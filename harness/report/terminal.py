"""The report on a terminal or in a log: a table of ports by methods, then the problems grouped by
port and reason, each distinct difference from the reference once, and the verdict."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.model import Outcome, Rerun, visible
from harness.report import Report
from harness.report.summary import SHOWN_DIFFS, View, by_port, one_line, summarise

if TYPE_CHECKING:
    from rich.console import Console


STYLE = {Outcome.PASS: "green", Outcome.FAIL: "red", Outcome.ERROR: "magenta", Outcome.SKIPPED: "yellow"}




def literal(text: str) -> str:
    """Text from a port for rich markup: visible, and shown as typed, its own brackets no markup."""
    from rich.markup import escape

    return escape(visible(text))


def pretty(report: Report, console: Console) -> None:
    """The report on ``console`` as the pretty table (the plain one is text, :func:`plain`; the
    writers' forms are written, not drawn). rich is loaded here, not with the module: the plain table
    needs none (the ``pretty`` extra)."""
    _pretty(summarise(report), console)


def diff_markup(diff: Sequence[str]) -> list[str]:
    """A unified diff's lines in rich markup, each coloured as diff colours it."""
    colours = {"-": "red", "+": "green", "@": "cyan"}
    return [f"[{colours.get(line[:1], 'default')}]{literal(line)}[/]" for line in diff]


def _pretty(view: View, console: Console) -> None:
    from rich.markup import escape
    from rich.table import Table

    console.print(view.title, style="bold", highlight=False)
    table = Table()
    table.add_column("port")
    for method in view.methods:
        table.add_column(method)
    for port, versions, columns in view.rows:
        label = f"{escape(port)}\n[dim]{escape(versions)}[/]" if versions else escape(port)
        table.add_row(label, *(
            "\n".join(f"[{STYLE[outcome]}]{escape(text)}[/]" if outcome else f"[dim]{text}[/]" for outcome, text in column)
            for column in columns
        ))
    console.print(table)
    if view.faults:
        console.print("\n[bold]Problems[/]")
        for port, group in by_port(view.faults):
            console.print(f"  [bold]{escape(port)}[/]")
            for fault in group:
                console.print(
                    f"    [{STYLE[fault.outcome]}]{escape(fault.kind)}[/] {escape(fault.where)}: {escape(fault.detail)}",
                    highlight=False,
                )
                for line in rerun_lines(fault.rerun):  # never wrapped: a command copied from the terminal stays whole
                    console.print(f"      [dim]{escape(line)}[/]", highlight=False, soft_wrap=True)
    if view.differences:
        console.print("\n[bold]Where the moves part from the reference[/] (canonical moves: DISK SRC DST)")
        for difference in view.differences[:SHOWN_DIFFS]:
            for line in diff_markup(["--- reference", f"+++ {', '.join(difference.labels)}", *difference.lines]):
                console.print(f"  {line}", highlight=False)
            console.print()
        if len(view.differences) > SHOWN_DIFFS:
            console.print(f"  … and {len(view.differences) - SHOWN_DIFFS} more; --json FILE keeps them all")
    if view.missing:
        console.print("\n[bold]Missing[/]")
        for item in view.missing:
            console.print(f"  [red]{escape(item)}[/]", highlight=False)
    console.print()
    for headline, digests in view.disagreements:
        console.print(f"[red]{escape(headline)}[/]")
        for digest, labels in digests:
            console.print(f"  {escape(digest)}  {escape(', '.join(labels))}", highlight=False)
    console.print(f"[{'green' if view.passed else 'red'}]{escape(view.verdict)}[/]", highlight=False)


def rerun_lines(rerun: Rerun | None) -> list[str]:
    """A fault's rerun line, then the port's program and build commands, labelled, as data."""
    return [f"{label}: {visible(text)}" for label, text in (rerun.parts() if rerun else [])]


PLAIN_WIDTH = 80
"""What a log's versions are cut to: a tool's version line can be long (Mono's names its build date)."""


def _fitted(line: str) -> str:
    """A versions line cut to PLAIN_WIDTH, where it is longer, marked by an ellipsis: the JSON report keeps it whole."""
    return line if len(line) <= PLAIN_WIDTH else line[: PLAIN_WIDTH - 1].rstrip() + "…"


def plain(report: Report) -> str:
    """For logs and pipes: no box drawing, no wrapping, one line a problem, every line whole but the
    versions, which are cut to 80 columns."""
    view = summarise(report)
    header = ["port", *view.methods]
    rows = [[port, *(", ".join(text for _, text in column) for column in columns)] for port, _, columns in view.rows]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [view.title, ""]
    lines += ["  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    versions = [(port, found) for port, found, _ in view.rows if found]
    if versions:
        lines += ["", "Versions"] + [_fitted(f"  {port}: {found}") for port, found in versions]
    if view.faults:
        lines += ["", "Problems"]
        for p in view.faults:
            lines += [f"  {p.port}: {p.kind} {p.where}: {one_line(p.detail)}", *(f"    {line}" for line in rerun_lines(p.rerun))]
    if view.differences:
        lines += ["", "Where the moves part from the reference (canonical moves: DISK SRC DST)"]
        for difference in view.differences[:SHOWN_DIFFS]:
            lines += [f"  {line}" for line in ("--- reference", f"+++ {', '.join(difference.labels)}", *difference.lines)]
        if len(view.differences) > SHOWN_DIFFS:
            lines.append(f"  … and {len(view.differences) - SHOWN_DIFFS} more; --json FILE keeps them all")
    if view.missing:
        lines += ["", "Missing"] + [f"  {item}" for item in view.missing]
    lines.append("")
    for headline, digests in view.disagreements:
        lines.append(headline)
        lines += [f"  {digest}  {', '.join(labels)}" for digest, labels in digests]
    lines.append(view.verdict)
    return "\n".join(lines)
