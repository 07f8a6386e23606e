"""The report as Markdown, for a CI step summary or a pull request's comment: the table, the
problems and the disagreements, at most SHOWN_IN_SUMMARY of each, every text from a port escaped."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from harness.model import Outcome, visible
from harness.report import Listing, Report
from harness.report.figures import SUMMARY_COLUMNS, by_method, catalogue, not_timed, provenance, summary_row, versions_line
from harness.report.summary import SHOWN_DIFFS, SHOWN_IN_SUMMARY, by_port, more, one_line, summarise

if TYPE_CHECKING:
    from harness.port import Port


def md_text(text: str) -> str:
    """Text safe inside a Markdown table cell or list: visible, on the row's one line, and its HTML
    shown as typed (GitHub's Markdown would otherwise take ``<img …>`` in a port's name for HTML)."""
    return html.escape(visible(text), quote=False).replace("\\", "\\\\").replace("|", "\\|").replace("\n", "<br>")


def _fenced(text: str) -> str:
    """Text inside a fenced block of code: visible, and no backtick, which could end the block."""
    return visible(text).replace("`", "'")


def md_code(text: str) -> str:
    """Text as code inside a Markdown table cell: GitHub ends the cell at a pipe even in code unless it
    is escaped, and reads no other escape there."""
    return "`" + visible(text).replace("`", "'").replace("|", "\\|").replace("\n", "\\n") + "`"


def _code_span(text: str) -> str:
    """Text as inline code, exactly as it is: fenced by more backticks than any run of them it holds,
    with a space inside each end, which Markdown takes away. Markdown shows HTML in code as typed."""
    shown = visible(text).replace("\n", " ")
    fence = "`" * (max(map(len, re.findall("`+", shown)), default=0) + 1)
    return f"{fence} {shown} {fence}"


def report_text(report: Report) -> str:
    """GitHub-flavoured Markdown, for a CI step summary: the table of ports by methods, then at most
    SHOWN_IN_SUMMARY of each kind of problem, so that a big run's summary stays short."""
    view = summarise(report)
    mark = {Outcome.PASS: "✅", Outcome.FAIL: "❌", Outcome.ERROR: "⚠️", Outcome.SKIPPED: "⏭️"}
    lines = [f"### {'✅' if view.passed else '❌'} {view.title}", ""]
    lines.append("| port | version | " + " | ".join(view.methods) + " |")
    lines.append("| --- | --- |" + " --- |" * len(view.methods))
    for port, versions, columns in view.rows:
        texts = ["<br>".join(md_text(f"{mark[outcome]} {text}" if outcome else text) for outcome, text in column) for column in columns]
        lines.append(f"| {md_text(port)} | {md_text(versions)} | " + " | ".join(texts) + " |")
    if view.missing:
        lines += ["", "#### Missing", ""] + [f"- {md_text(item)}" for item in view.missing]
    if view.faults:
        lines += ["", "#### Problems", ""]
        for port, group in by_port(view.faults[:SHOWN_IN_SUMMARY]):
            lines.append(f"- **{md_text(port)}**")
            for p in group:
                lines.append(f"  - {p.kind} {p.where}: `{one_line(p.detail).replace('`', chr(39))}`")
                lines += [f"    - {label}: {_code_span(text)}" for label, text in (p.rerun.parts() if p.rerun else [])]
        lines += more(len(view.faults), "problems")
    if view.differences:
        lines += ["", "#### Where the moves part from the reference", ""]
        for difference in view.differences[:SHOWN_DIFFS]:
            lines += ["```diff", "--- reference", f"+++ {_fenced(', '.join(difference.labels))}", *difference.lines, "```"]
        lines += more(len(view.differences), "differences", SHOWN_DIFFS)
    for headline, digests in view.disagreements[:SHOWN_IN_SUMMARY]:
        lines += ["", f"**{headline}**", ""] + [f"- `{digest}` {md_text(', '.join(labels))}" for digest, labels in digests]
    lines += more(len(view.disagreements), "disagreements")
    lines += ["", f"**{view.verdict}**", ""]
    return "\n".join(lines)


def ports_markdown(ports: Sequence[Port]) -> str:
    """The table of ports from their manifests alone, nothing of this machine's: README.md shows it."""
    lines = ["| port | methods | summary | needs |", "| --- | --- | --- | --- |"]
    for port in ports:
        needs = [req.executable for req in port.requires] + ["PostgreSQL"] * (port.query is not None)
        summary = f"manifest problem: {port.manifest_error}" if port.manifest_error else port.summary
        lines.append(f"| {md_code(port.name + '/')} | {', '.join(port.methods)} | {md_text(summary)} | {md_text(', '.join(needs))} |")
    return "\n".join(lines)


def listing_text(listing: Listing) -> str:
    """``harness list --format markdown``: the table of ports, as README.md shows it."""
    return ports_markdown(listing.ports) + "\n"


def figures_text(figures: dict[str, Any]) -> str:
    """``harness bench``'s summary as Markdown, for docs/ and the README: a table a method, its ports
    fastest first, why each port not timed was not, where the figures come from and the ports'
    versions; every text from a port escaped."""
    lines = [
        "# The ports' speed", "",
        f"{md_text(' '.join(provenance(figures)))} *port s*: the port alone at the largest n timed, its output read through a pipe, "
        "wall seconds; *CPU s*: the port's own CPU seconds in the same runs; *start-up s*: the port's wall seconds at n = 0; "
        "*reading s*: the harness reading and verifying the same output, captured; *reading / port*: that over the port's own time, "
        "the harness's share.",
    ]
    entries = catalogue(figures)
    for title, group in by_method(entries):
        lines += ["", f"## {md_text(title)}", "", "| " + " | ".join(SUMMARY_COLUMNS) + " |", "| --- |" + " ---: |" * (len(SUMMARY_COLUMNS) - 1)]
        lines += ["| " + " | ".join(md_text(text) for text in summary_row(entry, markup=False)) + " |" for entry in group]
    untimed = not_timed(entries)
    if untimed:
        lines += ["", "## Not timed", ""]
        lines += [f"- **{md_text(port)}** ({md_text(', '.join(methods))}): {md_text(reason)}" for port, methods, _, reason in untimed]
    if figures.get("missing"):
        lines += ["", "## No figures", "", "No bench's figures hold these ports: " + md_text(", ".join(figures["missing"])) + "."]
    lines += ["", "## Versions", ""] + [f"- **{md_text(port)}**: {md_text(versions_line(found))}" for port, found in figures["versions"].items()]
    return "\n".join(lines) + "\n"
