"""The three things contributors add most, each one new module and one line in its registry, with no
other change to the harness: a report format (``harness.report.WRITERS``), a mode of isolation
(``harness.settings.MODES``, its module in ``harness.runners.modes``) and a way of reading output
(``harness.readers.READERS``). Each throwaway addition below is one file, and the one line that
registers it is in the ``sitecustomize`` the harness's Python runs first; the harness then offers it
as it offers its own: an option, an ``--isolation`` choice, an ``[output] format``."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, suite
from harness.readers import READERS
from integration.conftest import harness

WRITER = '''
def report_text(report):
    """The report as lines of port,method,n,outcome."""
    return "".join(f"{cell.port},{cell.method},{cell.n},{cell.outcome.value}\\n" for cell in report.cells)
'''

MODE = '''
import os

from harness.runners.modes.subprocess import SubprocessWalls


class TracedWalls(SubprocessWalls):
    """A plain subprocess that writes down each program it starts."""

    mode = "traced"

    def start(self, job):
        with open(os.environ["TRACE_FILE"], "a") as trace:
            trace.write(" ".join(job.argv) + "\\n")
        return super().start(job)


WALLS = TracedWalls
'''

READER = '''
from harness.readers.lines import LineCounter, LineReader


class ArrowReader(LineReader):
    """Moves written SRC->DST, one a line, read by the manifest's patterns as lines are."""


def wording(output, plan):
    """No bytes known in advance: every line is read."""
    return None


def counter(output):
    """Each line is one move: counting lines counts them."""
    return LineCounter()
'''

ARROW_PORT = """\
summary = "moves written with arrows"
methods = ["recursive"]
command = ["bash", "arrows.sh", "{n}"]

[output]
format = "arrows"
patterns = ['(?P<src>[0-2])->(?P<dst>[0-2])']
pegs = ["0", "1", "2"]
"""

ARROWS = """\
hanoi() { (( $1 == 0 )) && return; hanoi $(( $1 - 1 )) $2 $4 $3; echo "$2->$3"; hanoi $(( $1 - 1 )) $4 $3 $2; }
hanoi "$1" 0 2 1
"""


def added(tmp_path: Path, module: str, source: str, registration: str) -> dict[str, str]:
    """The environment of a harness whose Python finds the new module and runs its one registry line first."""
    folder = tmp_path / "added"
    (folder / Path(module).parent).mkdir(parents=True, exist_ok=True)
    (folder / module).write_text(source)
    (folder / "sitecustomize.py").write_text(registration + "\n")
    return {"PYTHONPATH": str(folder)}


def test_a_new_writer_is_one_module_and_one_line_and_gets_its_option(tmp_path):
    env = added(
        tmp_path, "tally.py", WRITER,
        "import harness.report as r; r.WRITERS['tally'] = r.Writer('tally', 'tally', 'tally', 'Write port,method,n,outcome lines to FILE.')",
    )
    assert "--tally FILE" in harness("compare", "--help", env=env).stdout
    out = tmp_path / "cells.csv"
    done = harness("compare", "--n", "2", "-l", "bash", "--tally", str(out), "--format", "plain", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.read_text().splitlines() == [f"bash,{method},2,pass" for method in ("binary", "recursive", "iterative", "cyclic")]
    piped = harness("compare", "--n", "1", "-l", "bash", "-m", "binary", "--tally", "-", env=env)
    assert piped.stdout == "bash,binary,1,pass\n" and "pass" in piped.stderr  # the form on stdout, the table on stderr


def test_a_new_mode_is_one_module_and_one_line_and_runs_every_cell_through_its_walls(tmp_path):
    env = added(
        tmp_path, "modes/traced.py", MODE,
        "import harness.settings as s, harness.runners.modes as m; m.__path__.append(__import__('os').path.dirname(__file__) + '/modes');"
        " s.MODES = (*s.MODES, 'traced')",
    )
    trace = tmp_path / "trace"
    env["TRACE_FILE"] = str(trace)
    report = tmp_path / "report.json"
    done = harness("compare", "--n", "3", "-l", "bash", "--isolation", "traced", "--json", str(report), env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(report.read_text())["options"]["isolation"] == "traced"
    started = trace.read_text().splitlines()
    assert sum("hanoi.sh" in line for line in started) == 4, started  # each cell's program, through the new walls
    assert "bash -c echo \"GNU bash $BASH_VERSION\"" in started  # and the version command too


def test_a_new_output_format_is_one_module_and_one_line_and_its_port_is_read_and_verified(tmp_path):
    env = added(
        tmp_path, "arrows.py", READER,
        "import harness.readers as r; r.READERS['arrows'] = r.Reading('arrows', 'arrows', 'ArrowReader', ('src', 'dst'), (), patterns=True)",
    )
    root = suite(tmp_path, real=("bash",))
    port = root / "arrows"
    port.mkdir()
    (port / "language.toml").write_text(ARROW_PORT)
    (port / "arrows.sh").write_text(ARROWS)
    done = harness("--root", str(root), "compare", "--n", "0-5", "-m", "recursive", "--format", "plain", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "arrows" in done.stdout and "12 cells that ran pass and agree" in done.stdout, done.stdout
    without = harness("--root", str(root), "check")
    assert without.returncode == 1 and f"'output.format' must be one of {', '.join(READERS)}, not 'arrows'" in without.stdout, without.stdout
    assert ROOT.joinpath("harness", "readers", "arrows.py").exists() is False
