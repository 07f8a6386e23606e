"""Say what happened, for people and for CI: a table of ports by methods, the problems grouped by port
and reason, each distinct difference from the reference once, and whether the ports agree. One
report, four forms for standard output (pretty on a terminal, plain for logs, Markdown, JSON), and
JUnit XML and Markdown files for CI systems."""

from __future__ import annotations

import collections
import html
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness.discover import Port
from harness.model import Cell, Outcome, Reason, Rerun, span, visible
from harness.serialize import PortInfo, Report, Versions

STYLE = {Outcome.PASS: "green", Outcome.FAIL: "red", Outcome.ERROR: "magenta", Outcome.SKIPPED: "yellow"}
NOT_OFFERED = "—"
SHOWN_DIFFS = 5
SHOWN_IN_SUMMARY = 10
"""The most problems or disagreements a Markdown summary lists; the rest are counted."""



def one_line(text: str) -> str:
    """A detail as one line, visible: what a port printed over several is joined by `` | ``."""
    return " | ".join(part.strip() for part in visible(text).split("\n") if part.strip())


def literal(text: str) -> str:
    """Text from a port for rich markup: visible, and shown as typed, its own brackets no markup."""
    return escape(visible(text))


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
        if single_n:
            text = f"{outcome.value} · {moves:,} moves" if outcome is not Outcome.SKIPPED else outcome.value
        elif outcome is Outcome.PASS:
            text = f"pass ×{len(group)} · {moves:,} moves"
        else:
            text = f"{outcome.value} n={span(cell.n for cell in group)}"
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
    if report.missing:
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


def render(report: Report, form: str, console: Console) -> None:
    """The report on ``console`` as a table: pretty, plain or markdown (JSON is written, not rendered)."""
    if form == "markdown":
        console.out(markdown(report), highlight=False)
    elif form == "plain":
        console.out(plain(report), highlight=False)
    else:
        _pretty(summarise(report), console)


def diff_markup(diff: Sequence[str]) -> list[str]:
    """A unified diff's lines in rich markup, each coloured as diff colours it."""
    colours = {"-": "red", "+": "green", "@": "cyan"}
    return [f"[{colours.get(line[:1], 'default')}]{literal(line)}[/]" for line in diff]


def _pretty(view: View, console: Console) -> None:
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


def by_port(found: list[Fault]) -> list[tuple[str, list[Fault]]]:
    """The faults under their port, in the order found: how the reports list the problems."""
    grouped: dict[str, list[Fault]] = {}
    for fault in found:
        grouped.setdefault(fault.port, []).append(fault)
    return list(grouped.items())


def plain(report: Report) -> str:
    """For logs and pipes: no box drawing, no wrapping, one line a problem, every line whole."""
    view = summarise(report)
    header = ["port", *view.methods]
    rows = [[port, *(", ".join(text for _, text in column) for column in columns)] for port, _, columns in view.rows]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    lines = [view.title, ""]
    lines += ["  ".join(text.ljust(width) for text, width in zip(row, widths)).rstrip() for row in [header, *rows]]
    versions = [(port, found) for port, found, _ in view.rows if found]
    if versions:
        lines += ["", "Versions"] + [f"  {port}: {found}" for port, found in versions]
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


def _md(text: str) -> str:
    """Text safe inside a Markdown table cell or list: visible, on the row's one line, and its HTML
    shown as typed (GitHub's Markdown would otherwise take ``<img …>`` in a port's name for HTML)."""
    return html.escape(visible(text), quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def _md_fenced(text: str) -> str:
    """Text inside a fenced block of code: visible, and no backtick, which could end the block."""
    return visible(text).replace("`", "'")


def _md_code(text: str) -> str:
    """Text as code inside a Markdown table cell: GitHub ends the cell at a pipe even in code unless it
    is escaped, and reads no other escape there."""
    return "`" + visible(text).replace("`", "'").replace("|", "\\|").replace("\n", "\\n") + "`"


def _md_span(text: str) -> str:
    """Text as inline code, exactly as it is: fenced by more backticks than any run of them it holds,
    with a space inside each end, which Markdown takes away. Markdown shows HTML in code as typed."""
    shown = visible(text).replace("\n", " ")
    fence = "`" * (max(map(len, re.findall("`+", shown)), default=0) + 1)
    return f"{fence} {shown} {fence}"


def markdown(report: Report) -> str:
    """GitHub-flavoured Markdown, for a CI step summary: the table of ports by methods, then at most
    SHOWN_IN_SUMMARY of each kind of problem, so that a big run's summary stays short."""
    view = summarise(report)
    mark = {Outcome.PASS: "✅", Outcome.FAIL: "❌", Outcome.ERROR: "⚠️", Outcome.SKIPPED: "⏭️"}
    lines = [f"### {'✅' if view.passed else '❌'} {view.title}", ""]
    lines.append("| port | version | " + " | ".join(view.methods) + " |")
    lines.append("| --- | --- |" + " --- |" * len(view.methods))
    for port, versions, columns in view.rows:
        texts = ["<br>".join(_md(f"{mark[outcome]} {text}" if outcome else text) for outcome, text in column) for column in columns]
        lines.append(f"| {_md(port)} | {_md(versions)} | " + " | ".join(texts) + " |")
    if view.missing:
        lines += ["", "#### Missing", ""] + [f"- {_md(item)}" for item in view.missing]
    if view.faults:
        lines += ["", "#### Problems", ""]
        for port, group in by_port(view.faults[:SHOWN_IN_SUMMARY]):
            lines.append(f"- **{_md(port)}**")
            for p in group:
                lines.append(f"  - {p.kind} {p.where}: `{one_line(p.detail).replace('`', chr(39))}`")
                lines += [f"    - {label}: {_md_span(text)}" for label, text in (p.rerun.parts() if p.rerun else [])]
        lines += _more(len(view.faults), "problems")
    if view.differences:
        lines += ["", "#### Where the moves part from the reference", ""]
        for difference in view.differences[:SHOWN_DIFFS]:
            lines += ["```diff", "--- reference", f"+++ {_md_fenced(', '.join(difference.labels))}", *difference.lines, "```"]
        lines += _more(len(view.differences), "differences", SHOWN_DIFFS)
    for headline, digests in view.disagreements[:SHOWN_IN_SUMMARY]:
        lines += ["", f"**{headline}**", ""] + [f"- `{digest}` {_md(', '.join(labels))}" for digest, labels in digests]
    lines += _more(len(view.disagreements), "disagreements")
    lines += ["", f"**{view.verdict}**", ""]
    return "\n".join(lines)


def _more(count: int, what: str, shown: int = SHOWN_IN_SUMMARY) -> list[str]:
    """The line that counts what a summary leaves out, if it leaves out anything."""
    return ["", f"… and {count - shown} more {what}; the JSON report holds them all"] if count > shown else []


def junit(report: Report) -> str:
    """JUnit XML: a test suite a port, a test case a cell, and one suite for the agreement of the ports.
    What ports sent is made visible in the document as a whole, so no character XML refuses is written
    whichever attribute or text holds it."""
    suites = ET.Element("testsuites", name="hanoi-polyglot")
    by_port: dict[str, list[Cell]] = {}
    for cell in report.cells:
        by_port.setdefault(cell.port, []).append(cell)
    for port, cells in by_port.items():
        suite = ET.SubElement(suites, "testsuite", name=port)
        counts = collections.Counter(cell.outcome for cell in cells)
        suite.set("tests", str(len(cells)))
        suite.set("failures", str(counts[Outcome.FAIL]))
        suite.set("errors", str(counts[Outcome.ERROR]))
        suite.set("skipped", str(counts[Outcome.SKIPPED]))
        suite.set("time", f"{sum(cell.seconds for cell in cells):.3f}")
        for cell in cells:
            case = ET.SubElement(suite, "testcase", classname=port, name=f"{cell.method}/{cell.n}", time=f"{cell.seconds:.3f}")
            if cell.outcome is Outcome.PASS:
                continue
            tag = {Outcome.FAIL: "failure", Outcome.ERROR: "error", Outcome.SKIPPED: "skipped"}[cell.outcome]
            element = ET.SubElement(case, tag, message=one_line(cell.detail))
            if cell.reason:
                element.set("type", cell.reason.value)
            if cell.diff or cell.rerun or "\n" in cell.detail:
                element.text = "\n".join([cell.detail, *(f"{label}: {text}" for label, text in (cell.rerun.parts() if cell.rerun else [])), *cell.diff])
    agreement = ET.SubElement(suites, "testsuite", name="agreement", tests=str(len(report.agreement)))
    agreement.set("failures", str(sum(not group.agrees for group in report.agreement)))
    agreement.set("errors", "0")
    agreement.set("skipped", "0")
    for group in report.agreement:
        case = ET.SubElement(agreement, "testcase", classname="agreement", name=f"{group.rules}/{group.n}")
        if not group.agrees:
            failure = ET.SubElement(case, "failure", message=f"the ports print {len(group.by_digest)} different sequences")
            failure.text = "\n".join(f"{digest}  {', '.join(labels)}" for digest, labels in group.by_digest.items())
    if report.missing:
        absent = ET.SubElement(suites, "testsuite", name="missing", tests=str(len(report.missing)), failures=str(len(report.missing)))
        absent.set("errors", "0")
        absent.set("skipped", "0")
        for item in report.missing:
            ET.SubElement(ET.SubElement(absent, "testcase", classname="missing", name=item.partition(":")[0]), "failure", message=item)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + visible(ET.tostring(suites, encoding="unicode")) + "\n"


def list_to_json(ports: Sequence[Port], versions: Versions, missing: dict[str, str]) -> dict[str, Any]:
    """The ports as data, for CI: what each needs installed (``debian``: the packages its manifest's
    [[requires]] name), whether it runs in PostgreSQL."""
    return {
        "ports": [
            {
                "name": port.name,
                "summary": port.summary,
                "methods": list(port.methods),
                "postgresql": port.query is not None,
                "requires": [
                    {"executable": req.executable, "install": req.advice, "version": versions.get(port.name, {}).get(req.executable)}
                    for req in port.requires
                ],
                "debian": [package for req in port.requires for package in req.debian.split()],
                "missing": missing.get(port.name),
                "problem": port.manifest_error,
            }
            for port in ports
        ]
    }


def render_list(console: Console, form: str, ports: Sequence[Port], versions: Versions, missing: dict[str, str]) -> None:
    """The ports, with their methods and what they need, in one of FORMATS."""
    if form == "json":
        console.out(json.dumps(list_to_json(ports, versions, missing), indent=2), highlight=False)
        return

    def found(port: Port) -> str:
        if port.manifest_error:
            return f"manifest problem: {port.manifest_error}"
        if port.name in missing:
            return f"missing: {missing[port.name]}"
        return "found " + ", ".join(v or f"{k} (version unknown)" for k, v in versions[port.name].items())

    if form == "plain":
        for port in ports:
            console.out(f"{visible(port.name)}: {', '.join(port.methods)}; {one_line(found(port))}", highlight=False)
    elif form == "markdown":
        console.out(ports_markdown(ports), highlight=False)
    else:
        table = Table(title="Ports", title_justify="left")
        for column in ("port", "methods", "interpreter"):
            table.add_column(column)
        for port in ports:
            style = "magenta" if port.manifest_error else "yellow" if port.name in missing else "green"
            table.add_row(f"{literal(port.name)}\n[dim]{literal(port.summary)}[/]", ", ".join(port.methods), f"[{style}]{literal(found(port))}[/]")
        console.print(table)


def ports_markdown(ports: Sequence[Port]) -> str:
    """The table of ports from their manifests alone, nothing of this machine's: README.md shows it."""
    lines = ["| port | methods | summary | needs |", "| --- | --- | --- | --- |"]
    for port in ports:
        needs = [req.executable for req in port.requires] + ["PostgreSQL"] * (port.query is not None)
        summary = f"manifest problem: {port.manifest_error}" if port.manifest_error else port.summary
        lines.append(f"| {_md_code(port.name + '/')} | {', '.join(port.methods)} | {_md(summary)} | {_md(', '.join(needs))} |")
    return "\n".join(lines)


def port_info(port: Port, versions: Versions) -> PortInfo:
    """What the report records of a port: its summary, methods, versions, manifest error and sources."""
    return PortInfo(port.name, port.summary, tuple(port.methods), dict(versions.get(port.name, {})), port.manifest_error, port.sources)
