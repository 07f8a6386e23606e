"""The gallery: a static site that opens on an index of the languages (one row a port: its summary,
and for each method its verdict over the report's n, its time at the largest n and its lines of
code) and shows any method's code in the languages a reader picks, side by side, by an address that
can be shared (``#compare/recursive/python,c,haskell``). Each port's code for a method is only that
code, as the manifest's [code] names it, highlighted by Pygments when the site is built, with its
document, its verdict and what it prints for a small n beside the moves the harness reads from it.
A catalogue of many ports is never one long page: each (port, method) card waits in a template
until it is picked. The report page (report/html.py) is written beside it, and the gallery reuses
its board, script and style: any cell opens on the same board, in the gallery or on the page.

Like the page, the site needs nothing but a browser: every part of it is inline, a
Content-Security-Policy lets only its own script and style run, and no request leaves it, so it
works from a file and from any static host. Everything from a port (names, code, what it prints,
its sources) reaches the markup escaped, and its code is read from its own folder, bounded
(regions.py)."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass, field

import pygments
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.token import Token
from pygments.util import ClassNotFound

from harness.evaluate import evaluate
from harness.gate import Gate
from harness.model import METHODS, Cell, Move, Outcome, span, utf8_safe, visible
from harness.port import Port
from harness.regions import Code
from harness.report import Report
from harness.report.html import MARK, address, cited, data, policy, report_text, text, web
from harness.report.summary import offered
from harness.settings import Settings

SAMPLE_LINES = 120
"""The most lines of a sample shown: n = 3 prints a few dozen, a drawing port a few more."""
SAMPLE_WIDTH = 200
"""The most characters of a sample's line shown."""
STYLE = "default"
"""Pygments' style for the code: its colours keep WCAG AA contrast on its own background."""
INDEX = "index.html"
REPORT_PAGE = "report.html"
PUZZLES = {
    "binary": "The bitwise formula: move i takes disc 1 + (the trailing zero bits of i) from peg (i & i − 1) mod 3 to peg ((i | i − 1) + 1) mod 3.",
    "recursive": "The recursion: n − 1 discs out of the way, the largest to its place, the n − 1 back on top of it.",
    "iterative": "The loop: every other move is the smallest disc's, always the same way round; the move between is the only other legal one.",
    "cyclic": "The cyclic puzzle: n discs from peg 0 to peg 1, every move one peg on (0 → 1 → 2 → 0).",
}


@dataclass
class Sample:
    """What a port printed for one cell, and the moves the harness read from it; or why there is none."""

    n: int
    printed: list[str] = field(default_factory=list)
    moves: list[str] = field(default_factory=list)
    cut: bool = False
    """Whether the port printed more lines than are kept."""
    why: str = ""


Samples = dict[tuple[str, str], Sample]


def samples(ports: list[Port], settings: Settings, gate: Gate, sample_n: int) -> Samples:
    """Through the run's gate, one sample cell of each port and method at ``sample_n``."""
    return {
        (port.name, method): sample(port, method, sample_n, settings, gate)
        for port in ports for method in (port.methods if port.manifest_error is None else ())
    }


def sample(port: Port, method: str, n: int, settings: Settings, gate: Gate) -> Sample:
    """One cell at ``n``, its printed lines and its moves kept, bounded."""
    kept = Sample(n)

    def line(said: str) -> None:
        if len(kept.printed) < SAMPLE_LINES:
            kept.printed.append(visible(said)[:SAMPLE_WIDTH])
        else:
            kept.cut = True

    def move(made: Move) -> None:
        if len(kept.moves) < SAMPLE_LINES:
            kept.moves.append(made.canonical())

    cell = evaluate(port, method, n, settings, gate, on_line=line, on_move=move)
    if cell.outcome is not Outcome.PASS:
        kept.why = f"{cell.outcome.value}: {visible(cell.detail)}"
    return kept


def site(report: Report, ports: list[Port], samples: Samples) -> dict[str, str]:
    """The site's pages by file name: the report page, and the gallery (INDEX, its entry), last."""
    return {REPORT_PAGE: report_text(report), INDEX: gallery(report, ports, samples)}


@dataclass(frozen=True)
class Verdict:
    """A port's method over the report's n: in a sign and its worst outcome (``short``, for the
    index), the same with the n of each outcome (``said``, for its card), and the outcome's class."""

    short: str
    said: str
    outcome: str


@dataclass(frozen=True)
class Shown:
    """What the gallery shows of the ports: their names, the methods, each port's manifest where it is
    here, and each port's cells of a method in order of n, grouped once for every row and card."""

    names: list[str]
    methods: list[str]
    ports: dict[str, Port]
    cells: dict[tuple[str, str], list[Cell]]


def gallery(report: Report, ports: list[Port], samples: Samples) -> str:
    """The gallery page, every part of it inline."""
    formatter = HtmlFormatter(style=STYLE, cssclass="highlight", linenos="inline", wrapcode=True)
    style = "\n".join([web("page.css"), web("gallery.css"), formatter.get_style_defs(".highlight")])
    scripts = [web("page.js"), web("gallery.js")]
    shown = _shown(report, ports)
    parts = {
        "csp": policy(scripts, [style]),
        "style": style,
        "scripts": "".join(f"<script>{script}</script>\n" for script in scripts),
        "viewer": web("viewer.html"),
        "data": data(report),
        "header": _header(report, shown.methods),
        "languages": _languages(report, shown),
        "compare": _compare(shown),
        "cards": "\n".join(_card(method, name, shown, samples.get((name, method))) for method in shown.methods for name in shown.names),
    }
    template = web("gallery.html")
    return re.sub(r"\{\{(\w+)\}\}", lambda found: parts[found.group(1)], template)


def _shown(report: Report, ports: list[Port]) -> Shown:
    by_name = {port.name: port for port in ports}
    names = sorted({*by_name, *(info.name for info in report.ports)})
    methods = [method for method in METHODS if method in report.methods or any(method in port.methods for port in ports)]
    cells: dict[tuple[str, str], list[Cell]] = {}
    for cell in sorted(report.cells, key=lambda cell: cell.n):
        cells.setdefault((cell.port, cell.method), []).append(cell)
    return Shown(names, methods, by_name, cells)


def _compare_address(method: str, names: list[str]) -> str:
    """The compare view of these ports' code for one method, as its script writes it: each name
    encoded, so that a comma or a slash in one cannot split it."""
    return f"#compare/{method}/" + ",".join(urllib.parse.quote(utf8_safe(name), safe="") for name in names)


def _header(report: Report, methods: list[str]) -> str:
    ns = sorted({cell.n for cell in report.cells})
    ran = f"n = {span(ns)}" if ns else "no cells"
    links = "".join(f'<li><a href="#compare/{method}/" data-method-link="{method}">{method}</a></li>' for method in methods)
    return "\n".join([
        "<header>",
        '<a class="skip" href="#views">Skip to the content</a>',
        "<h1>The Tower of Hanoi, port by port</h1>",
        "<p>Every method's code in every port, only the code that implements it, beside its verdict, its time, and what it prints."
        f" Verified over {text(ran)} by <code>harness {text(report.command)}</code>, finished {text(report.finished)},"
        f" at commit {text(report.commit or 'unknown')}."
        f' The full report, every cell on its board: <a href="{REPORT_PAGE}">{REPORT_PAGE}</a>.</p>',
        f'<nav aria-label="Views"><ul><li><a href="#languages">languages</a></li><li class="methods">compare:<ul>{links}</ul></li></ul></nav>',
        "</header>",
    ])


def _languages(report: Report, shown: Shown) -> str:
    """The index: one row a port, its summary, and for each method its verdict, its time at the
    largest n and its lines of code, each a link to that method's code in the compare view."""
    summaries = {info.name: info.summary for info in report.ports}
    ns = sorted({cell.n for cell in report.cells})
    columns = "".join(f'<th scope="col"><a href="#compare/{method}/" data-method-link="{method}">{method}</a></th>' for method in shown.methods)
    rows = []
    for name in shown.names:
        port = shown.ports.get(name)
        summary = port.summary if port is not None else summaries.get(name, "")
        head = f'<th scope="row"><span class="name">{text(name)}</span>' + (f'<span class="summary">{text(summary)}</span>' if summary else "") + "</th>"
        rows.append(f"<tr>{head}" + "".join(_index_cell(method, name, port, shown, ns[-1] if ns else None) for method in shown.methods) + "</tr>")
    return "\n".join([
        '<section id="languages" aria-labelledby="languages-title">',
        '<h2 id="languages-title" tabindex="-1">Languages</h2>',
        f"<p>One row a port. For each method: its verdict over {text(f'n = {span(ns)}' if ns else 'no n')}, its time at the largest n,"
        " and the lines of its code; each opens that code in the compare view, where more languages can be picked beside it.</p>",
        '<div class="scroll" role="region" aria-labelledby="languages-title" tabindex="0"><table id="index">',
        f'<thead><tr><th scope="col">language</th>{columns}</tr></thead>',
        "<tbody>",
        *rows,
        "</tbody></table></div>",
        "</section>",
    ])


def _index_cell(method: str, name: str, port: Port | None, shown: Shown, largest_n: int | None) -> str:
    cells = shown.cells.get((name, method), [])
    verdict = _verdict(cells)
    offers = port is None or (port.manifest_error is None and method in port.methods)
    if not offers and verdict.outcome == "skipped":
        return f'<td class="skipped">{text(verdict.short)}</td>'
    said = [text(verdict.short)]
    largest = cells[-1] if cells else None
    if largest is not None and largest.outcome in (Outcome.PASS, Outcome.FAIL):
        said.append(f"{largest.seconds:.3f} s" + (f" at n = {largest.n}" if largest.n != largest_n else ""))
    code = port.code.get(method) if port is not None else None
    said.append(f"{code.lines} line{'s' * (code.lines != 1)}" if code is not None else "no code here")
    return f'<td class="{verdict.outcome}"><a href="{text(_compare_address(method, [name]))}">' + "".join(f"<span>{part}</span>" for part in said) + "</a></td>"


def _compare(shown: Shown) -> str:
    """The compare view: a method, the languages to show, and the chosen ports' cards side by side,
    which its script takes from their templates."""
    methods = "".join(
        f'<label><input type="radio" name="method" value="{method}"{" checked" * (index == 0)}> {method}</label>'
        for index, method in enumerate(shown.methods)
    )
    ports = "".join(f'<li><label><input type="checkbox" name="port" value="{text(name)}"> {text(name)}</label></li>' for name in shown.names)
    puzzles = "".join(
        f'<p class="puzzle" data-method="{method}"{" hidden" * (index > 0)}>{text(PUZZLES[method])}</p>' for index, method in enumerate(shown.methods)
    )
    return "\n".join([
        '<section id="compare" aria-labelledby="compare-title">',
        '<h2 id="compare-title" tabindex="-1">Compare</h2>',
        "<p>One method's code in the languages picked here, side by side. The address names them, "
        "<code>#compare/recursive/python,c,haskell</code>, so it can be shared.</p>",
        '<form id="compare-form">',
        f'<fieldset class="method-choice"><legend>Method</legend>{methods}</fieldset>',
        '<details id="picker" open><summary>Languages: <span id="picked">none chosen</span></summary>',
        f'<fieldset class="port-choice"><legend>Languages to show side by side</legend><ul>{ports}</ul>'
        '<button type="button" id="compare-clear">clear</button></fieldset>',
        "</details>",
        "</form>",
        puzzles,
        '<p id="compare-status" role="status"></p>',
        '<div id="compare-view" class="entries"></div>',
        "</section>",
    ])


def _card(method: str, name: str, shown: Shown, kept: Sample | None) -> str:
    """One port's card for one method, in a template until it is picked: its facts, its code, the
    documents it follows, and what it printed. The facts above the code are a few short lines in
    every card, so that the code of the cards side by side starts at about the same height."""
    port = shown.ports.get(name)
    cells = shown.cells.get((name, method), [])
    verdict = _verdict(cells)
    facts = [("verdict", f'<span class="{verdict.outcome}">{text(verdict.said)}</span>')]
    largest = cells[-1] if cells else None
    if largest is not None:
        timed = f"{largest.seconds:.3f} s" if largest.outcome in (Outcome.PASS, Outcome.FAIL) else f"{largest.outcome.value}: {largest.detail}"
        facts.append((f"time at n = {largest.n}", text(timed)))
    code = port.code.get(method) if port is not None else None
    if code is not None:
        where = ", ".join(f"{first}–{last}" if first != last else str(first) for first, last in ((s.first, s.last) for s in code.spans))
        facts.append(("code", f"{code.lines} lines: {text(str(code.path))}, line{'s' * (code.lines > 1)} {text(where)}"))
    followed = [source for source in (port.sources if port else ()) if method in source.methods]
    follows = '<dl class="facts"><dt>follows</dt><dd>' + "<br>".join(cited(source) for source in followed) + "</dd></dl>" if followed else ""
    links = []
    if largest is not None:
        links.append(f'<a href="{REPORT_PAGE}{text(address(largest))}">its cells on the report page</a>')
        replayed = max((cell for cell in cells if cell.outcome is Outcome.PASS and cell.n <= 5), key=lambda cell: cell.n, default=largest)
        links.append(f'<a href="{text(address(replayed, 0))}" data-replay>replay n = {replayed.n} here</a>')
    return "\n".join([
        f'<template data-port="{text(name)}" data-method="{method}">'
        f'<article class="entry" data-port="{text(name)}" data-method="{method}" aria-label="{text(name)}, {method}">',
        f"<h3>{text(name)}</h3>",
        '<dl class="facts">' + "".join(f"<dt>{term}</dt><dd>{said}</dd>" for term, said in facts) + "</dl>",
        f'<p class="links">{" · ".join(links)}</p>' if links else "",
        _code(name, method, port, code),
        follows,
        _sample(method, port, kept),
        "</article></template>",
    ])


def _verdict(cells: list[Cell]) -> Verdict:
    """The outcome of a port's method over the report's n, in a sign and words, and its class."""
    if not cells:
        return Verdict("– not run", "– not in the report", "skipped")
    if not any(offered(cell) for cell in cells):
        return Verdict("– not offered", "– not offered", "skipped")
    counts = {outcome: [cell.n for cell in cells if cell.outcome is outcome] for outcome in Outcome}
    worst = next((outcome for outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.PASS) if counts[outcome]), Outcome.SKIPPED)
    short = f"{MARK[worst]} {worst.value}"
    said = [f"{outcome.value} for n = {span(counts[outcome])}" for outcome in Outcome if counts[outcome]]
    cells_said = f" ({len(cells)} cell{'s' * (len(cells) != 1)})"
    if len(said) == 1:
        return Verdict(short, f"{MARK[worst]} {said[0]}{cells_said}", worst.value)
    return Verdict(short, f"{short}: " + "; ".join(said) + cells_said, worst.value)


def _lexer(port: Port, code: Code) -> Lexer:
    """The lexer for a file: by its name and text; a .sql file of a port that runs in PostgreSQL is PL/pgSQL."""
    if port.query is not None and code.path.suffix == ".sql":
        return get_lexer_by_name("plpgsql")
    try:
        return get_lexer_for_filename(code.path.name, code.text)
    except ClassNotFound:
        return get_lexer_by_name("text")


def _code(name: str, method: str, port: Port | None, code: Code | None) -> str:
    if port is None:
        return '<p class="nocode">No port of this name here: the report comes from elsewhere.</p>'
    if port.manifest_error is not None:
        return f'<p class="nocode">The manifest cannot be used: <code>{text(port.manifest_error)}</code></p>'
    if method not in port.methods:
        return '<p class="nocode">The port does not offer this method.</p>'
    if code is None:
        return '<p class="nocode">The manifest names no code for this method ([code] in language.toml).</p>'
    lexer = _lexer(port, code)
    parts = []
    for part in code.spans:
        formatter = HtmlFormatter(style=STYLE, cssclass="highlight", linenos="inline", linenostart=part.first, wrapcode=True)
        parts.append(_highlighted("\n".join(part.lines) + "\n", lexer, formatter))
    label = f"{name}'s {method} code, {lexer.name}"
    gap = '<p class="gap" aria-hidden="true">⋮</p>'
    return f'<div class="code" role="region" tabindex="0" aria-label="{text(label)}">{gap.join(parts)}</div>'


def _highlighted(source: str, lexer: Lexer, formatter: HtmlFormatter) -> str:
    """The code as Pygments' HTML, with its spaces bare: a span around each run of them, which shows
    nothing, was a fifth of the gallery's weight."""
    tokens = ((Token.Text if kind in Token.Text.Whitespace or kind in Token.Whitespace else kind, value) for kind, value in pygments.lex(source, lexer))
    return str(pygments.format(tokens, formatter))


def _sample(method: str, port: Port | None, kept: Sample | None) -> str:
    if port is None or method not in port.methods or kept is None:
        return ""
    summary = f"What it prints for n = {kept.n}, and the moves the harness reads"
    if not kept.printed and kept.why:
        return f'<details class="sample"><summary>{text(summary)}</summary><p>Not run here: {text(kept.why)}</p></details>'
    printed = "\n".join(kept.printed) + ("\n…" if kept.cut else "")
    moves = "\n".join(kept.moves)
    return "\n".join([
        f'<details class="sample"><summary>{text(summary)}</summary>',
        *([f"<p>{text(kept.why)}</p>"] if kept.why else []),
        '<div class="sample-sides">',
        f'<figure><figcaption>printed</figcaption><pre tabindex="0">{text(printed)}</pre></figure>',
        f'<figure><figcaption>moves read: DISK SRC DST</figcaption><pre tabindex="0">{text(moves)}</pre></figure>',
        "</div></details>",
    ])
