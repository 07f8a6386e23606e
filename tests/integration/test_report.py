"""The report in each of its forms: plain for logs (whole lines, no box drawing, within 80 columns),
Markdown, JSON on standard output with the table on standard error, JUnit XML read back by a JUnit
reader, and the Problems list grouped by port and reason with each distinct diff once."""

from __future__ import annotations

import json
import re

import pytest
from junitparser import Error, Failure, JUnitXml, Skipped

from conftest import HEADLINE, harness_here, suite, valid_report
from harness.model import METHODS, Cell, Outcome, Reason
from harness.report import WRITERS
from harness.report.summary import SHOWN_IN_SUMMARY, differences, faults
from integration.conftest import OFFERED, offered, reference_digest

BOX_DRAWING = re.compile("[\u2500-\u257f]")


def test_plain_output_reads_cleanly_in_80_columns_through_a_pipe():
    done = harness_here("compare", "--n", "5", "--lang", ",".join(HEADLINE), env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Tower of Hanoi, n = 5"
    assert not BOX_DRAWING.search(done.stdout)
    assert max(map(len, lines)) <= 80, max(lines, key=len)
    assert all(line == line.rstrip() for line in lines)
    assert re.search(r"^python +pass · 31 moves +pass · 31 moves +pass · 31 moves +pass · 119 moves$", done.stdout, re.M)
    assert re.search(r"^  bash: GNU bash \d", done.stdout, re.M)
    ran = sum(len(offered(method, 5, HEADLINE)) for method in METHODS)
    skipped = sum(port in HEADLINE for port, _ in OFFERED) - ran  # a port's interpreter missing here
    tally = f"{ran} pass" + f", {skipped} skipped" * bool(skipped)
    assert lines[-1] == f"All {ran} cells that ran pass and agree: one sequence a puzzle and n ({tally})."


def test_problems_are_grouped_by_port_and_reason_each_on_one_line_and_each_diff_shown_once(tmp_path):
    root = suite(tmp_path, "seed-b_toh", "crash", "missing-interpreter", real=("python",))
    done = harness_here("--root", str(root), "compare", "--n", "2-4", "--format", "plain")
    assert done.returncode == 1
    listed = done.stdout.split("\nProblems\n")[1].split("\n\n")[0].splitlines()
    problems = [line for line in listed if not line.startswith("    ")]
    assert [line.split(":")[0] for line in listed[1:] if line.startswith("    ")][:2] == ["    rerun", "    program"]  # under each fault
    ports = [line.split(":")[0].strip() for line in problems]
    assert ports == sorted(ports) and set(ports) == {"crash", "missing-interpreter", "seed-b_toh"}
    assert "  seed-b_toh: fail (violation) binary n=2: after 3 moves the discs are not all on peg 2: peg 0: []; peg 1: [2, 1]; peg 2: []" in problems
    assert any(line.startswith("  missing-interpreter: skipped (missing-interpreter) binary,recursive,iterative n=2-4: ") for line in problems)
    assert any(line.startswith("  crash: error (crash) ") for line in problems)
    assert not any("does not offer" in line for line in problems)  # not offered is no problem
    assert re.search(r"^seed-b_toh +fail n=2,4, pass ×1 · 7 moves +— +— +—$", done.stdout, re.M), done.stdout
    plus = [line for line in done.stdout.splitlines() if line.startswith("  +++ ")]
    assert len(plus) == len(set(plus))  # each distinct difference once


def test_json_on_stdout_puts_the_table_on_stderr():
    done = harness_here("compare", "--n", "3", "--lang", "python", "--method", "binary,cyclic", "--format", "json")
    assert done.returncode == 0
    report = valid_report(json.loads(done.stdout))
    assert [cell["id"] for cell in report["cells"]] == ["python/binary/3", "python/cyclic/3"]
    assert "Tower of Hanoi, n = 3" in done.stderr
    dash = harness_here("compare", "--n", "3", "--lang", "python", "--method", "binary", "--json", "-")
    assert valid_report(json.loads(dash.stdout))["cells"][0]["digest"] == reference_digest(3)
    assert "Tower of Hanoi, n = 3" in dash.stderr


@pytest.mark.parametrize("form", list(WRITERS))
def test_format_names_any_writer_and_prints_what_its_file_holds(tmp_path, form):
    """--format and the file writers are one axis: --format NAME prints, byte for byte, what --NAME
    FILE writes of the same run, and sends the table to standard error."""
    written = tmp_path / f"report.{form}"
    done = harness_here("compare", "--n", "2", "--lang", "python", "--method", "binary", "--format", form, f"--{form}", str(written))
    assert done.returncode == 0, done.stderr
    assert done.stdout == written.read_text() and "python" in done.stdout and "binary" in done.stdout
    assert "Tower of Hanoi, n = 2" in done.stderr


def test_junit_markdown_and_json_files_are_written_and_valid(tmp_path):
    j, m, r = tmp_path / "j.xml", tmp_path / "m.md", tmp_path / "r.json"
    root = suite(tmp_path, "seed-b_toh")
    done = harness_here("--root", str(root), "compare", "--n", "0-5", "--junit", str(j), "--markdown", str(m), "--json", str(r))
    assert done.returncode == 1, done.stdout + done.stderr  # seed-b_toh ends on the wrong peg for even n
    report = valid_report(json.loads(r.read_text()))
    assert len(report["cells"]) == 6 * (len(HEADLINE) + 1) * len(METHODS)

    xml = JUnitXml.fromfile(str(j))
    suites = {suite.name: suite for suite in xml}
    assert set(suites) == {*HEADLINE, "seed-b_toh", "agreement"}
    for port in HEADLINE:
        skipped = sum(port not in offered(method, n, HEADLINE) for method in METHODS for n in range(6))
        assert (suites[port].tests, suites[port].failures, suites[port].errors, suites[port].skipped) == (24, 0, 0, skipped)
    fake = {case.name: case for case in suites["seed-b_toh"]}
    assert len(fake) == 24
    [failure] = fake["binary/2"].result
    assert isinstance(failure, Failure) and failure.type == "violation"
    assert "the discs are not all on peg 2" in failure.message and "+++ seed-b_toh/binary n=2" in failure.text
    assert fake["binary/3"].is_passed
    [skipped] = fake["cyclic/3"].result
    assert isinstance(skipped, Skipped) and skipped.type == "not-offered"
    disagreements = [case for case in suites["agreement"] if case.result]
    assert {case.name for case in disagreements} == {"classic/2", "classic/4"}
    assert not any(isinstance(result, Error) for suite in xml for case in suite for result in case.result)

    text = m.read_text()
    assert text.startswith("### ❌ Tower of Hanoi, n = 0-5\n")
    assert "| port | version | binary | recursive | iterative | cyclic |" in text
    assert re.search(r"^\| seed-b_toh \| .* \| ❌ fail n=2,4<br>✅ pass ×4 · 39 moves \| — \| — \| — \|$", text, re.M), text
    assert "```diff" in text and "**Not all ports pass and agree" in text


def test_the_same_difference_in_several_cells_is_shown_once_naming_them_all():
    diff = ["@@ -1,2 +1,2 @@", "- 1 0 2", "+ 1 0 1"]
    cells = [
        Cell(port, "binary", 1, Outcome.FAIL, digest="d", reason=Reason.VIOLATION, detail="wrong", diff=["--- reference", f"+++ {port}/binary n=1", *diff])
        for port in ("a", "b")
    ] + [Cell("c", "binary", 1, Outcome.FAIL, reason=Reason.VIOLATION, detail="other", diff=["--- reference", "+++ c/binary n=1", "@@ -1 +1 @@"])]
    found = differences(cells)
    assert [(d.labels, d.lines) for d in found] == [
        (("a/binary n=1", "b/binary n=1"), tuple(diff)), (("c/binary n=1",), ("@@ -1 +1 @@",))
    ]
    assert [(f.port, f.detail) for f in faults(cells)] == [("a", "wrong"), ("b", "wrong"), ("c", "other")]


def test_the_markdown_summary_of_a_big_run_lists_a_few_problems_and_counts_the_rest(tmp_path):
    root = suite(tmp_path, "detour", real=("python",))
    summary, whole = tmp_path / "summary.md", tmp_path / "report.json"
    done = harness_here("--root", str(root), "compare", "--n", "1-14", "--method", "binary", "--markdown", str(summary), "--json", str(whole))
    assert done.returncode == 1, done.stdout + done.stderr
    text = summary.read_text()
    problems = [line for line in text.splitlines() if line.startswith("  - fail (violation) binary n=")]
    assert text.count("- **detour**\n") == 1 and len(problems) == SHOWN_IN_SUMMARY and "\n… and 4 more problems; the JSON report holds them all\n" in text
    assert len({cell["detail"] for cell in json.loads(whole.read_text())["cells"] if cell["port"] == "detour"}) == 14
