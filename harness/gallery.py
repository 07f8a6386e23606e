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
works from a file and from any static host. The page is a Jinja2 template (harness/web/gallery.html)
that escapes every value it is given (autoescape): everything from a port (names, what it prints,
its sources) reaches the markup as text, and its code as Pygments' markup of it, read from its own
folder, bounded (regions.py)."""

from __future__ import annotations

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
from harness.port import Port, Source
from harness.regions import Code
from harness.report import Report
from harness.report.html import MARK, address, policy, render, report_text, web
from harness.report.json import to_json
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
    ns = sorted({cell.n for cell in report.cells})
    return render(
        "gallery.html", csp=policy(scripts, [style]), style=style, scripts=scripts, report=report, report_page=REPORT_PAGE,
        shown=shown, ns=ns, ran=f"n = {span(ns)}" if ns else "no cells", rows=_rows(report, shown, ns), puzzles=PUZZLES,
        cards=[_card(method, name, shown, samples.get((name, method))) for method in shown.methods for name in shown.names],
        data=to_json(report), address=address,
    )


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


@dataclass(frozen=True)
class IndexCell:
    """A port's method in the index: its outcome's class, what it says (its verdict, its time at the
    largest n, its lines of code), and the link to its code in the compare view (None: not offered)."""

    outcome: str
    said: list[str]
    link: str | None


@dataclass(frozen=True)
class Row:
    """A port's row in the index."""

    name: str
    summary: str
    cells: list[IndexCell]


def _rows(report: Report, shown: Shown, ns: list[int]) -> list[Row]:
    """The index: one row a port, its summary, and for each method what its cell says."""
    summaries = {info.name: info.summary for info in report.ports}
    rows = []
    for name in shown.names:
        port = shown.ports.get(name)
        summary = port.summary if port is not None else summaries.get(name, "")
        rows.append(Row(name, summary, [_index_cell(method, name, port, shown, ns[-1] if ns else None) for method in shown.methods]))
    return rows


def _index_cell(method: str, name: str, port: Port | None, shown: Shown, largest_n: int | None) -> IndexCell:
    cells = shown.cells.get((name, method), [])
    verdict = _verdict(cells)
    offers = port is None or (port.manifest_error is None and method in port.methods)
    if not offers and verdict.outcome == "skipped":
        return IndexCell("skipped", [verdict.short], None)
    said = [verdict.short]
    largest = cells[-1] if cells else None
    if largest is not None and largest.outcome in (Outcome.PASS, Outcome.FAIL):
        said.append(f"{largest.seconds:.3f} s" + (f" at n = {largest.n}" if largest.n != largest_n else ""))
    code = port.code.get(method) if port is not None else None
    said.append(f"{code.lines} line{'s' * (code.lines != 1)}" if code is not None else "no code here")
    return IndexCell(verdict.outcome, said, _compare_address(method, [name]))


@dataclass(frozen=True)
class Card:
    """One port's card for one method: its verdict and facts, the documents it follows, the cells it
    links to, its code (Pygments' markup, a part a region) or why there is none, and its sample."""

    name: str
    method: str
    verdict: Verdict
    facts: list[tuple[str, str]]
    followed: list[Source]
    largest: Cell | None
    replayed: Cell | None
    highlighted: list[str]
    language: str
    broken: str | None
    nocode: str
    sample: Sample | None


def _card(method: str, name: str, shown: Shown, kept: Sample | None) -> Card:
    """One port's card for one method, in a template until it is picked."""
    port = shown.ports.get(name)
    cells = shown.cells.get((name, method), [])
    facts = []
    largest = cells[-1] if cells else None
    if largest is not None:
        timed = f"{largest.seconds:.3f} s" if largest.outcome in (Outcome.PASS, Outcome.FAIL) else f"{largest.outcome.value}: {largest.detail}"
        facts.append((f"time at n = {largest.n}", timed))
    code = port.code.get(method) if port is not None else None
    if code is not None:
        where = ", ".join(f"{first}–{last}" if first != last else str(first) for first, last in ((s.first, s.last) for s in code.spans))
        facts.append(("code", f"{code.lines} lines: {code.path}, line{'s' * (code.lines > 1)} {where}"))
    replayed = max((cell for cell in cells if cell.outcome is Outcome.PASS and cell.n <= 5), key=lambda cell: cell.n, default=largest)
    offers = port is not None and method in port.methods
    highlighted, language = _code(port, code) if offers and port is not None and port.manifest_error is None else ([], "")
    return Card(
        name, method, _verdict(cells), facts, [source for source in (port.sources if port else ()) if method in source.methods],
        largest, replayed, highlighted, language, port.manifest_error if port is not None else None, _nocode(port, method),
        kept if offers else None,
    )


def _nocode(port: Port | None, method: str) -> str:
    """Why a card shows no code, where it shows none."""
    if port is None:
        return "No port of this name here: the report comes from elsewhere."
    if method not in port.methods:
        return "The port does not offer this method."
    return "The manifest names no code for this method ([code] in language.toml)."


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


def _code(port: Port, code: Code | None) -> tuple[list[str], str]:
    """A method's code as Pygments' markup, a part a region of it, and the name of its language; none where the manifest names none."""
    if code is None:
        return [], ""
    lexer = _lexer(port, code)
    parts = []
    for part in code.spans:
        formatter = HtmlFormatter(style=STYLE, cssclass="highlight", linenos="inline", linenostart=part.first, wrapcode=True)
        parts.append(_highlighted("\n".join(part.lines) + "\n", lexer, formatter))
    return parts, lexer.name


def _highlighted(source: str, lexer: Lexer, formatter: HtmlFormatter) -> str:
    """The code as Pygments' HTML, with its spaces bare: a span around each run of them, which shows
    nothing, was a fifth of the gallery's weight."""
    tokens = ((Token.Text if kind in Token.Text.Whitespace or kind in Token.Whitespace else kind, value) for kind, value in pygments.lex(source, lexer))
    return str(pygments.format(tokens, formatter))
