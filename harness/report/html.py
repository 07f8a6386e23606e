"""The report as one HTML page that needs nothing but a browser, opened from a file or kept as a CI
artifact: the cells in a matrix of ports and methods by n, the problems grouped as the plain report
groups them, and any cell replayed move by move on a drawn board. The page's data is the report's
JSON form; its script unfolds the reference from n and the method, so the page grows with the
failures, not with n. A Content-Security-Policy lets only the page's own script and style run, so no
request can leave it. The page is a Jinja2 template (harness/web/page.html) that escapes every value
it is given (autoescape) and writes the data as JSON by ``tojson``; only the page's own style and
script, and the gallery's highlighted code, reach it as markup."""

from __future__ import annotations

import base64
import functools
import hashlib
import urllib.parse
from pathlib import Path
from typing import Any

import jinja2

from harness.model import Cell, Outcome, utf8_safe
from harness.report import Report
from harness.report.json import json_text, to_json
from harness.report.summary import Difference, by_port, offered, one_line, summarise

WEB = Path(__file__).parent.parent / "web"
MARK = {Outcome.PASS: "✓", Outcome.FAIL: "✗", Outcome.ERROR: "⚠", Outcome.SKIPPED: "–"}
"""Each outcome has a sign and a word besides its colour."""
DIFF_CLASSES = {"-": "diff-del", "+": "diff-add", "@": "diff-hunk"}


def report_text(report: Report) -> str:
    """The whole page, every part of it inline."""
    style = web("page.css")
    script = web("page.js")
    shown = summarise(report)
    return render(
        "page.html", csp=policy([script], [style]), style=style, script=script, shown=shown, facts=_facts(report), report=report,
        ns=sorted({cell.n for cell in report.cells}), cells={(cell.port, cell.method, cell.n): cell for cell in report.cells},
        data=to_json(report),
    )


@functools.cache
def templates() -> jinja2.Environment:
    """The pages' templates (harness/web): every value escaped unless the template says it is markup
    (``|safe``: the pages' own style and script, highlighted code), undefined names an error, and
    ``tojson`` writing JSON as the JSON report does, made safe inside a script element."""
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(WEB), autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
    )
    environment.policies["json.dumps_function"] = json_text
    environment.policies["json.dumps_kwargs"] = {}
    environment.filters.update(address=address, one_line=one_line)
    environment.globals.update(mark=MARK, offered=offered, by_port=by_port, diff_lines=diff_lines)
    return environment


def render(name: str, **given: Any) -> str:
    """A page from its template: a byte of a name that was not UTF-8 is written out, ``\\xff``, as
    every form of the report writes it (model.utf8_safe), so that the page's script finds each cell
    by the id its JSON gives."""
    return utf8_safe(templates().get_template(name).render(**given))


def web(name: str) -> str:
    """One of the page's own files (harness/web): its style, its script. The gallery (gallery.py)
    builds on the same ones."""
    return (WEB / name).read_text(encoding="utf-8")


def policy(scripts: list[str], styles: list[str]) -> str:
    """The Content-Security-Policy that lets exactly these inline scripts and styles run, and nothing
    else: no request leaves the page."""
    run = " ".join(f"'{_digest(script)}'" for script in scripts)
    look = " ".join(f"'{_digest(style)}'" for style in styles)
    return f"default-src 'none'; script-src {run}; style-src {look}; base-uri 'none'; form-action 'none'"


def _digest(source: str) -> str:
    """The CSP source that allows exactly this inline script or style."""
    return "sha256-" + base64.b64encode(hashlib.sha256(source.encode()).digest()).decode()


def address(cell: Cell, move: int | None = None) -> str:
    """A cell's address in the page, ``#python/recursive/5``, and a position in it, ``…@12``."""
    return "#" + urllib.parse.quote(utf8_safe(cell.id), safe="/") + ("" if move is None else f"@{move}")


def diff_lines(difference: Difference) -> list[tuple[str, str]]:
    """A difference as a unified diff's lines, each with the class that colours it."""
    lines = ["--- reference", f"+++ {', '.join(difference.labels)}", *difference.lines]
    return [(DIFF_CLASSES.get(line[:1], ""), line) for line in lines]


def _machine(machine: dict[str, object]) -> str:
    return ", ".join(f"{key} {value}" for key, value in machine.items() if value is not None)


def _facts(report: Report) -> list[tuple[str, str]]:
    """What the page's header says of the run: its command, times, commit, harness and machines."""
    facts = [
        ("command", f"harness {report.command}"),
        ("started", report.started),
        ("finished", report.finished),
        ("commit", report.commit or "unknown"),
        ("harness", report.harness),
        ("machine", _machine(report.machine)),
    ]
    return facts + [(f"from {source.get('path')}", _machine(dict(source.get("machine", {})))) for source in report.sources]
