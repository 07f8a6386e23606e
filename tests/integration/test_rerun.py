"""The rerun line: every cell that did not pass carries, in every form of the report, the command
that runs it again, and the port's program and build commands as the run gave them. The command,
pasted into bash, does what the run did: the same outcome and exit code, the same first bad move,
whatever the port's name holds."""

from __future__ import annotations

import html
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

from junitparser import JUnitXml

from conftest import FAKE_PORTS, harness_here, suite, valid_report
from harness.discover import load_port
from harness.limits import Limits
from harness.model import Cell, Outcome, Reason
from harness.report.json import from_json, to_json
from harness.report.rerun import rerun
from harness.settings import Settings

HOSTILE = "it's $(touch pwned) \"x\" `touch pwned` <b>\udcffnext"
"""A port's name that a shell would run, a Markdown reader or a page would take for markup, holding a
byte that is not UTF-8 (a line break in a folder's name is the port's manifest error, never a cell).
A report shows that byte written out; the rerun line gives it back as the byte."""
SHOWN = HOSTILE.replace("\udcff", "\\xff")


def bash(line: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``line`` pasted into bash, with the harness's command on PATH and a table wide enough not to wrap."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(["bash", "-c", line], cwd=cwd, capture_output=True, text=True, timeout=300, env={**os.environ, "PATH": path, "COLUMNS": "1000"})


def test_a_failing_cell_carries_its_rerun_line_in_every_report_and_the_line_reproduces_it(tmp_path):
    root = suite(tmp_path, "illegal", "crash", real=("python",))
    (root / HOSTILE).symlink_to(FAKE_PORTS / "illegal")
    files = {kind: tmp_path / f"report.{kind}" for kind in ("json", "xml", "md", "html")}
    done = harness_here(
        "--root", str(root), "compare", "--n", "3", "--method", "binary,recursive", "--timeout", "30", "--format", "plain",
        "--json", str(files["json"]), "--junit", str(files["xml"]), "--markdown", str(files["md"]), "--html", str(files["html"]),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    report = valid_report(json.loads(files["json"].read_text()))
    cells = {cell["id"]: cell for cell in report["cells"]}
    assert all(cell["rerun"] is None for cell in cells.values() if cell["outcome"] == "pass")
    assert "run python" not in done.stdout  # a passing cell has no rerun line
    failing = {cell_id: cell for cell_id, cell in cells.items() if cell["outcome"] != "pass"}
    assert {cell["port"] for cell in failing.values()} == {"illegal", "crash", SHOWN}
    for cell in failing.values():
        fault = "crash" if cell["port"] == "crash" else "illegal"  # the hostile name is a link to the illegal port
        assert cell["rerun"]["program"] == f"python3 ../fake.py {fault} {cell['method']} 3"
        assert cell["rerun"]["build"] == []
    problems = done.stdout.split("\nProblems\n")[1].split("\n\n")[0]
    markdown, page = files["md"].read_text(), files["html"].read_text()
    junit = {(case.classname, case.name): case for suite_ in JUnitXml.fromfile(str(files["xml"])) for case in suite_}
    for port in ("illegal", "crash", SHOWN):
        first = failing[f"{port}/binary/3"]["rerun"]
        assert f"    rerun: {first['command']}\n    program: {first['program']}" in problems
        assert f"    - rerun: `` {first['command']} ``" in markdown if "`" in first["command"] else f"    - rerun: ` {first['command']} `" in markdown
        assert first["command"] in html.unescape(page)  # written as the page escapes it: "<b>" never appears below
        for method in ("binary", "recursive"):
            [result] = junit[(port, f"{method}/3")].result
            assert f"rerun: {failing[f'{port}/{method}/3']['rerun']['command']}\n" in result.text
    listed = markdown.split("#### Problems")[1].split("####")[0]  # the name as text, the command as code
    assert "<b>" not in listed.replace(f"`` {failing[f'{SHOWN}/binary/3']['rerun']['command']} ``", "") and "&lt;b&gt;" in listed
    assert "<b>" not in page.split('<script type="application/json"')[0]

    hostile = failing[f"{SHOWN}/recursive/3"]["rerun"]["command"]
    assert "\n" not in hostile and hostile.isprintable()
    assert "run $'it\\'s $(touch pwned) \"x\" `touch pwned` <b>\\xffnext' recursive -n 3 --raw --timeout 30" in hostile
    for cell in failing.values():
        again = bash(cell["rerun"]["command"], tmp_path)
        assert again.returncode == 1, (cell["id"], again.stderr)
        label = f"{cell['port']}/{cell['method']} n=3"
        assert f"{label}: {cell['outcome']}: {cell['detail']}" in again.stderr, again.stderr
        if cell["diff"]:
            assert again.stderr.rstrip("\n").endswith("\n".join(cell["diff"]))  # the same first bad move, the same diff
        assert again.stdout.startswith("1 0 2\n")  # --raw: the port's own lines
    assert not (tmp_path / "pwned").exists()


def test_a_cell_skipped_over_max_moves_is_skipped_again_by_its_rerun_line(tmp_path):
    root = suite(tmp_path, real=("python",))
    report = tmp_path / "r.json"
    done = harness_here("--root", str(root), "compare", "--n", "4", "--port", "python", "--method", "cyclic", "--max-moves", "10", "--json", str(report))
    assert done.returncode == 0, done.stdout + done.stderr
    [cell] = json.loads(report.read_text())["cells"]
    assert cell["reason"] == "too-many-moves"
    assert cell["rerun"]["command"] == f"harness --root {root} run python cyclic -n 4 --raw --max-moves 10"
    again = bash(cell["rerun"]["command"], tmp_path)
    assert again.returncode == 0 and again.stdout == ""
    assert f"python/cyclic n=4: skipped: {cell['detail']}" in again.stderr


def test_the_rerun_line_gives_the_options_that_shape_the_cell_and_the_build_as_the_manifest_names_it():
    port = load_port(FAKE_PORTS / "seed-cyclic" / "language.toml")
    cell = Cell(port.name, "cyclic", 4, Outcome.ERROR, reason=Reason.BUILD)
    settings = Settings(
        timeout=7.5, build_timeout=300, strict=True, max_moves=100, isolation="sandbox", limits=Limits(1 << 30, 64), jobs=2, fail_fast=True,
    )
    again = rerun(cell, port, settings, "ports")
    assert shlex.split(again.command) == [
        "harness", "--root", "ports", "run", "seed-cyclic", "cyclic", "-n", "4", "--raw", "--isolation", "sandbox", "--timeout", "7.5",
        "--build-timeout", "300", "--strict", "--max-moves", "100", "--memory", str(1 << 30), "--processes", "64",
    ]
    assert again.program == "{binary} 4"
    assert again.build == ("c++ -std=c++20 -o {binary} cyclic.cpp",)
    assert rerun(cell, port, Settings(), "ports").command == "harness --root ports run seed-cyclic cyclic -n 4 --raw"
    odd = Cell("--help", "cyclic", 4, Outcome.ERROR)
    assert shlex.split(rerun(odd, port, Settings(), "-x").command) == ["harness", "--root", "./-x", "run", "-n", "4", "--raw", "--", "--help", "cyclic"]


def test_a_merge_keeps_the_rerun_line_and_an_older_report_without_one_still_loads(tmp_path):
    root = suite(tmp_path, "illegal", real=())
    first, merged = tmp_path / "r.json", tmp_path / "m.json"
    harness_here("--root", str(root), "compare", "--n", "2", "--method", "binary", "--json", str(first))
    done = harness_here("--root", str(root), "merge", str(first), "--json", str(merged))
    assert done.returncode == 1, done.stdout + done.stderr
    written, read_back = json.loads(first.read_text()), valid_report(json.loads(merged.read_text()))
    assert [cell["rerun"] for cell in read_back["cells"]] == [cell["rerun"] for cell in written["cells"]]
    assert written["cells"][0]["rerun"]["command"] == f"harness --root {root} run illegal binary -n 2 --raw"
    for cell in written["cells"]:
        del cell["rerun"]
    assert [cell.rerun for cell in from_json(written, "old.json").cells] == [None]
    assert "rerun" in to_json(from_json(written, "old.json"))["cells"][0]
