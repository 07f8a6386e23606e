"""The report as JUnit XML, which CI systems show as tests: a suite a port, a test case a cell."""

from __future__ import annotations

import collections
import xml.etree.ElementTree as ET

from harness.model import Cell, Outcome, visible
from harness.report import Report
from harness.report.summary import one_line, summarise


def report_text(report: Report) -> str:
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
    if report.interrupted:
        stopped = ET.SubElement(suites, "testsuite", name="interrupted", tests="1", failures="0", errors="1", skipped="0")
        ET.SubElement(ET.SubElement(stopped, "testcase", classname="interrupted", name="run"), "error", message=summarise(report).verdict)
    ET.indent(suites)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + visible(ET.tostring(suites, encoding="unicode")) + "\n"
