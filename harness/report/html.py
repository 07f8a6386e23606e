"""The report as one HTML page that needs nothing but a browser, opened from a file or kept as a CI
artifact: the cells in a matrix of ports and methods by n, the problems grouped as the plain report
groups them, and any cell replayed move by move on a drawn board. The page's data is the report's
JSON form; its script unfolds the reference from n and the method, so the page grows with the
failures, not with n. A Content-Security-Policy lets only the page's own script and style run, so no
request can leave it."""

from __future__ import annotations

import base64
import hashlib
import re
import urllib.parse
from html import escape
from pathlib import Path

from harness.model import Cell, Outcome, Rerun, utf8_safe
from harness.port import Source
from harness.report import Report
from harness.report.json import json_text, to_json
from harness.report.summary import View, by_port, offered, one_line, summarise

WEB = Path(__file__).parent.parent / "web"
MARK = {Outcome.PASS: "✓", Outcome.FAIL: "✗", Outcome.ERROR: "⚠", Outcome.SKIPPED: "–"}
"""Each outcome has a sign and a word besides its colour."""


def report_text(report: Report) -> str:
    """The whole page, every part of it inline."""
    style = web("page.css")
    script = web("page.js")
    shown = summarise(report)
    parts = {
        "csp": policy([script], [style]),
        "title": text(shown.title),
        "style": style,
        "script": script,
        "viewer": web("viewer.html"),
        "data": data(report),
        "header": _header(report, shown),
        "matrix": _matrix(report),
        "problems": _problems(shown),
        "sources": _sources(report),
    }
    template = web("page.html")
    return re.sub(r"\{\{(\w+)\}\}", lambda found: parts[found.group(1)], template)


def web(name: str) -> str:
    """One of the page's own files (harness/web): its style, its script, the board's markup. The
    gallery (gallery.py) builds on the same ones."""
    return (WEB / name).read_text(encoding="utf-8")


def data(report: Report) -> str:
    """The report's JSON as the page's script reads it, inside a script element that no text in it can close."""
    return json_text(to_json(report)).replace("<", "\\u003c")


def policy(scripts: list[str], styles: list[str]) -> str:
    """The Content-Security-Policy that lets exactly these inline scripts and styles run, and nothing
    else: no request leaves the page."""
    run = " ".join(f"'{_digest(script)}'" for script in scripts)
    look = " ".join(f"'{_digest(style)}'" for style in styles)
    return f"default-src 'none'; script-src {run}; style-src {look}; base-uri 'none'; form-action 'none'"


def _digest(source: str) -> str:
    """The CSP source that allows exactly this inline script or style."""
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


def text(said: str) -> str:
    """Text, from ports or not, as HTML text or an attribute's value (the gallery's too); a name as the
    JSON report holds it (model.utf8_safe), so that the page's script finds each cell by its id."""
    return escape(utf8_safe(said), quote=True)


def cited(source: Source) -> str:
    """A document as HTML: its citation, and a link to it where the manifest gives its address."""
    link = f' <a href="{text(source.url)}" rel="noreferrer">{text(source.url)}</a>' if source.url else ""
    return text(source.reference) + link


def address(cell: Cell, move: int | None = None) -> str:
    """A cell's address in the page, ``#python/recursive/5``, and a position in it, ``…@12``."""
    return "#" + urllib.parse.quote(utf8_safe(cell.id), safe="/") + ("" if move is None else f"@{move}")


def _machine(machine: dict[str, object]) -> str:
    return ", ".join(f"{key} {value}" for key, value in machine.items() if value is not None)


def _header(report: Report, shown: View) -> str:
    facts = [
        ("command", f"harness {report.command}"),
        ("started", report.started),
        ("finished", report.finished),
        ("commit", report.commit or "unknown"),
        ("harness", report.harness),
        ("machine", _machine(report.machine)),
    ]
    facts += [(f"from {source.get('path')}", _machine(dict(source.get("machine", {})))) for source in report.sources]
    verdict = f"{'✓' if shown.passed else '✗'} {shown.verdict}"
    return "\n".join([
        "<header>",
        f"<h1>{text(shown.title)}</h1>",
        f'<p class="verdict {"pass" if shown.passed else "fail"}">{text(verdict)}</p>',
        *(f"<p class=\"fail\">{text(headline)}</p>" for headline, _ in shown.disagreements),
        '<dl class="run">',
        *(f"<dt>{text(term)}</dt><dd>{text(said)}</dd>" for term, said in facts),
        "</dl>",
        "</header>",
    ])


def _matrix(report: Report) -> str:
    """Ports and their methods down, n across; each cell's outcome in a sign and a word, its reason,
    time and detail, and a link that opens it on the board."""
    ns = sorted({cell.n for cell in report.cells})
    by_key = {(cell.port, cell.method, cell.n): cell for cell in report.cells}
    rows = [
        "<section id=\"cells\" aria-labelledby=\"cells-title\">",
        '<h2 id="cells-title">Cells</h2>',
        "<p>Each cell opens on the board: the moves replayed, and where a port parts from the reference, where.</p>",
        '<div class="scroll"><table>',
        "<thead><tr><th scope=\"col\">port</th><th scope=\"col\">method</th>"
        + "".join(f'<th scope="col">n={n}</th>' for n in ns) + "</tr></thead>",
    ]
    for port in report.ports:
        rows.append("<tbody>")
        versions = ", ".join(version for version in port.versions.values() if version)
        for index, method in enumerate(report.methods):
            head = ""
            if index == 0:
                head = (f'<th scope="rowgroup" rowspan="{len(report.methods)}">{text(port.name)}'
                        + (f'<span class="versions">{text(versions)}</span>' if versions else "") + "</th>")
            row = "".join(_cell(by_key.get((port.name, method, n))) for n in ns)
            rows.append(f'<tr>{head}<th scope="row">{text(method)}</th>{row}</tr>')
        rows.append("</tbody>")
    rows += ["</table></div>", "</section>"]
    return "\n".join(rows)


def _sources(report: Report) -> str:
    """What each port follows: the documents its manifest names, and for which methods."""
    if not any(port.sources for port in report.ports):
        return ""
    parts = ['<section id="sources" aria-labelledby="sources-title">', '<h2 id="sources-title">What the ports follow</h2>', "<dl>"]
    for port in report.ports:
        items = [f"<li>{cited(source)}; for {text(', '.join(source.methods))}</li>" for source in port.sources]
        parts.append(f"<dt>{text(port.name)}</dt><dd>" + (f"<ul>{''.join(items)}</ul>" if items else "no source named") + "</dd>")
    parts += ["</dl>", "</section>"]
    return "\n".join(parts)


def _cell(cell: Cell | None) -> str:
    if cell is None:
        return "<td></td>"
    if not offered(cell):
        return f'<td><a href="{text(address(cell))}" data-cell="{text(cell.id)}" title="{text(cell.detail)}">— not offered</a></td>'
    outcome = cell.outcome.value
    reason = f'<span class="reason">{text(cell.reason.value)}</span>' if cell.reason else ""
    return (
        f'<td class="{outcome}"><a href="{text(address(cell))}" data-cell="{text(cell.id)}" title="{text(one_line(cell.detail))}">'
        f"{MARK[cell.outcome]} {outcome}</a>{reason}<span class=\"time\">{cell.seconds:.3f} s</span></td>"
    )


def _rerun(rerun: Rerun | None, name: str) -> str:
    """A fault's rerun line with a button that copies it, and the port's program and build commands, as text."""
    if rerun is None:
        return ""
    ran = "".join(f"<dt>{label}</dt><dd><code>{text(said)}</code></dd>" for label, said in rerun.parts()[1:])
    return (
        f'<div class="rerun"><p>To run it again: <button type="button" class="copy" data-copies="{name}">copy</button> '
        f'<span class="copied" role="status"></span></p><pre><code id="{name}">{text(rerun.command)}</code></pre>'
        + (f"<dl>{ran}</dl>" if ran else "") + "</div>"
    )


def _problems(shown: View) -> str:
    """The problems under their port and the distinct differences, as the plain report lists them."""
    if not shown.faults and not shown.differences:
        return ""
    parts = ['<section id="problems" aria-labelledby="problems-title">', '<h2 id="problems-title">Problems</h2>']
    for number, (port, faults) in enumerate(by_port(shown.faults)):
        parts.append(f"<h3>{text(port)}</h3><ul>")
        parts += [
            f'<li><span class="{fault.outcome.value}">{MARK[fault.outcome]} {text(fault.kind)}</span> '
            f"{text(fault.where)}: <code>{text(one_line(fault.detail))}</code>{_rerun(fault.rerun, f'rerun-{number}-{index}')}</li>"
            for index, fault in enumerate(faults)
        ]
        parts.append("</ul>")
    if shown.differences:
        parts.append("<h3>Where the moves part from the reference</h3><p>Canonical moves, one a line: DISK SRC DST.</p>")
        for difference in shown.differences:
            lines = ["--- reference", f"+++ {', '.join(difference.labels)}", *difference.lines]
            classes = {"-": "diff-del", "+": "diff-add", "@": "diff-hunk"}
            # A diff scrolls sideways where its lines are long: it takes the keyboard's focus to scroll.
            shown_lines = "".join(f'<span class="{classes.get(line[:1], "")}">{text(line)}\n</span>' for line in lines)
            parts.append(f'<pre tabindex="0" aria-label="the difference of {text(", ".join(difference.labels))}">{shown_lines}</pre>')
    parts.append("</section>")
    return "\n".join(parts)
