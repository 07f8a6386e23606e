"""Every form of the report, made in-process from reports built here: each writer of the registry
(harness.report.WRITERS, so a new one is tested by default) names every port and every problem,
shows what a port sent as text, never as markup, and the JSON form reads back as it was written."""

from __future__ import annotations

import hashlib
import re
import xml.etree.ElementTree as ET

import pytest

from harness.model import Cell, Outcome, Reason, Rerun
from harness.report import WRITERS, PortInfo, Report
from harness.report.json import from_json, to_json
from harness.report.terminal import plain
from harness.settings import RunPlan

HOSTILE = '<img src=x onerror=alert(1)> [bold]*x* | `tick`'
"""A port's name (a folder's: no slash) and detail that HTML, Markdown, rich and a table would each take as markup."""


def report_of(*cells: Cell, ports: tuple[str, ...] = ("good", HOSTILE)) -> Report:
    """A compare report of these cells, as a run with these ports would write it."""
    methods = sorted({cell.method for cell in cells})
    plan = RunPlan(ports, tuple(methods), tuple(sorted({cell.n for cell in cells})))
    infos = [PortInfo(name, f"{name}'s summary", tuple(methods), {"interp": "1.0"}) for name in ports]
    return Report("compare", "2026-01-01T00:00:00+00:00", "2026-01-01T00:00:01+00:00", "abc1234", plan, {"jobs": 1}, {"cores": 1}, infos, methods, list(cells))


def passing(port: str, n: int = 2) -> Cell:
    digest = hashlib.sha256(b"1 0 1\n2 0 2\n1 1 2\n").hexdigest()
    return Cell(port, "recursive", n, Outcome.PASS, moves=3, digest=digest, seconds=0.01)


def failing(port: str) -> Cell:
    return Cell(
        port, "recursive", 2, Outcome.FAIL, moves=2, seconds=0.02, reason=Reason.VIOLATION,
        detail=f"line 2: {HOSTILE} puts disc 2 on smaller disc 1",
        diff=["--- reference", f"+++ {port}/recursive n=2", "@@ -1,2 +1,2 @@", "  1 0 1", "- 2 0 2", "+ 2 0 1"],
        rerun=Rerun(f"harness --root . run '{port}' recursive -n 2 --raw", "python3 hanoi.py recursive 2"),
    )


@pytest.fixture
def mixed() -> Report:
    return report_of(passing("good"), failing(HOSTILE))


@pytest.mark.parametrize("name", list(WRITERS))
def test_every_writer_names_every_port_and_the_problem(name, mixed):
    text = WRITERS[name].text(mixed)
    assert "good" in text and "puts disc 2 on smaller disc 1" in text
    assert WRITERS[name].text(mixed) == text  # made from the report alone: the same twice


@pytest.mark.parametrize("name", ["markdown", "html", "junit"])
def test_what_a_port_sent_is_text_in_every_markup(name, mixed):
    text = WRITERS[name].text(mixed)
    if name == "markdown":  # code blocks and spans show what they hold as typed: only the rest could be markup
        text = re.sub(r"(`+).*?\1", "", re.sub(r"^(```+).*?^\1", "", text, flags=re.DOTALL | re.MULTILINE))
    assert "<img src=x" not in text, f"{name} passes a port's markup through"


def test_the_json_form_reads_back_as_written(mixed):
    again = from_json(to_json(mixed), "test")
    assert to_json(again) == to_json(mixed)
    assert again.cells[1].rerun == mixed.cells[1].rerun and not again.passed


def test_junit_counts_each_ports_failures(mixed):
    suites = ET.fromstring(WRITERS["junit"].text(mixed))
    by_port = {suite.get("name"): suite for suite in suites.iter("testsuite")}
    assert by_port["good"].get("failures") == "0" and by_port[HOSTILE].get("failures") == "1"


def test_the_plain_table_shows_brackets_as_typed_and_says_the_verdict(mixed):
    shown = plain(mixed)
    assert "[bold]*x*" in shown and "Not all ports pass and agree" in shown
    assert "rerun: harness --root . run" in shown


def test_a_report_of_passing_cells_that_agree_passes():
    report = report_of(passing("good"), passing("other"), ports=("good", "other"))
    assert report.passed
    assert "All 2 cells that ran pass and agree" in WRITERS["markdown"].text(report)


def test_the_page_and_the_json_cite_each_source_and_link_its_address():
    """A port's documents: cited on the page with a link where the manifest gives an address (as text
    where it holds markup), and kept by the JSON report."""
    from harness.port import Source

    followed = (
        Source("Simply Logical", "Peter Flach", "Wiley, 1994", "unknown", ("recursive",), "https://book.simply-logical.space/"),
        Source(HOSTILE, "unknown", "unknown", "unknown", ("recursive",)),
    )
    report = report_of(passing("good"))
    report.ports = [PortInfo("good", "summary", ("recursive",), {}, None, followed)]
    page = WRITERS["html"].text(report)
    assert '<a href="https://book.simply-logical.space/" rel="noreferrer">https://book.simply-logical.space/</a>' in page
    assert HOSTILE not in page
    assert from_json(to_json(report), "test").ports[0].sources == followed


def test_plain_output_cuts_a_long_versions_line_at_80_columns_and_the_json_keeps_it_whole():
    """Mono names its build date: a version that long is cut in a log, marked so, and kept whole where
    a reader asks for it."""
    long = "Mono C# compiler version 6.8.0.105 (Debian 6.8.0.105+dfsg-3.3 Tue Jan 31 2023) " * 2
    report = report_of(passing("good"), ports=("good",))
    report.ports = [PortInfo("good", "summary", ("recursive",), {"mcs": long})]
    line = next(line for line in plain(report).splitlines() if line.startswith("  good: "))
    assert len(line) == 80 and line.endswith("…") and long.startswith(line[len("  good: "):-1])
    assert from_json(to_json(report), "test").ports[0].versions["mcs"] == long
