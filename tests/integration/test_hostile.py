"""Ports that attack the harness rather than the puzzle (tests/fake_ports/hostile.py): each attack is
a named outcome on that port's cells, within the deadline, in bounded memory, with nothing left
running, and the healthy port beside them still passes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

from conftest import ROOT, left_behind, run_folder, suite
from harness.discover import load_port
from harness.errors import OutOfTime, Unreadable
from harness.readers.lines import LineReader

HOSTILE = (
    "endless-line", "long-line", "stderr-flood", "setsid-holder", "background-holder",
    "segfault", "shell-signal", "backtracking",
)
TIMEOUT = 10
N = 3
MEASURE = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[2:])
with open(sys.argv[1], "w") as out:
    out.write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
sys.exit(done.returncode)
"""


@pytest.fixture(scope="module")
def attacked(tmp_path_factory):
    """One compare over every hostile port and the Python port; its process, cells and peak memory
    (the largest resident set of the harness and anything it ran, in MB)."""
    tmp_path = tmp_path_factory.mktemp("hostile")
    root = suite(tmp_path, *HOSTILE, real=("python",))
    report, peak = tmp_path / "report.json", tmp_path / "peak"
    tmpdir = run_folder()
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, str(peak), sys.executable, "-m", "harness", "--root", str(root),
         "compare", "--n", str(N), "--timeout", str(TIMEOUT), "--jobs", "2", "--json", str(report)],
        capture_output=True, text=True, timeout=300, cwd=ROOT, env={**os.environ, "COLUMNS": "200", "TMPDIR": str(tmpdir)},
    )
    assert left_behind(tmpdir) is None
    cells = {cell["port"]: cell for cell in json.loads(report.read_text())["cells"] if cell["method"] == "binary"}
    return done, cells, int(peak.read_text()) / 1024


def test_the_run_survives_and_the_healthy_port_passes(attacked):
    done, cells, _ = attacked
    assert done.returncode == 1
    assert "Traceback" not in done.stdout + done.stderr
    assert cells["python"]["outcome"] == "pass"
    assert set(cells) == {"python", *HOSTILE}


def test_the_harness_stays_under_100_mb_whatever_a_port_prints(attacked):
    assert attacked[2] < 100


def test_no_cell_outlives_its_deadline_by_more_than_a_few_seconds(attacked):
    for name, cell in attacked[1].items():
        assert cell["seconds"] < TIMEOUT + 10, (name, cell)


def test_details_stay_short(attacked):
    for name, cell in attacked[1].items():
        assert len(cell["detail"]) < 3000, (name, len(cell["detail"]))


def test_a_line_with_no_end_is_an_error_naming_the_line(attacked):
    for name in ("endless-line", "long-line"):
        cell = attacked[1][name]
        assert cell["outcome"] == "error"
        assert cell["detail"].startswith("line 2 is longer than 8,192 bytes, the most a move's line may be; it starts 'xxxx"), cell


def test_stderr_keeps_its_head_and_tail_each_line_cut_short(attacked):
    cell = attacked[1]["stderr-flood"]
    assert cell["outcome"] == "error"
    assert cell["detail"].startswith("exited with code 1 after 7 moves; stderr:\nxxxx")
    assert "more bytes)" in cell["detail"]
    assert cell["detail"].endswith("hostile: the last line says what went wrong")


def test_a_setsid_grandchild_holding_the_pipes_does_not_stretch_the_deadline(attacked):
    cell = attacked[1]["setsid-holder"]
    assert cell["outcome"] == "error"
    assert cell["detail"] == f"timed out after {TIMEOUT} s, having printed 7 moves"


def test_a_port_that_exited_is_judged_on_its_exit_not_on_a_child_holding_its_stdout(attacked):
    cell = attacked[1]["background-holder"]
    assert cell["outcome"] == "pass", cell
    assert cell["seconds"] < TIMEOUT


def test_a_signal_is_named(attacked):
    cell = attacked[1]["segfault"]
    assert cell["detail"].startswith("killed by SIGSEGV (signal 11) after 7 moves"), cell
    shell = attacked[1]["shell-signal"]
    assert shell["detail"].startswith(
        "exited with code 139 (from a shell, that usually means killed by SIGSEGV, signal 11) after 7 moves"
    ), shell


def test_a_pattern_that_backtracks_without_end_is_the_cells_error_naming_it(attacked):
    cell = attacked[1]["backtracking"]
    assert cell["outcome"] == "error"
    assert cell["detail"].startswith("line 1: the pattern '(?:(?:a|aa)+)+b (?P<src>\\\\d) (?P<dst>\\\\d)' was still matching 'aaaa"), cell


def test_a_pattern_still_matching_when_the_cells_time_runs_out_is_a_timeout_not_a_bad_line(tmp_path):
    """Past the deadline, a slow match is the clock's doing: the cell is judged as timed out."""
    folder = suite(tmp_path, "backtracking", real=()) / "backtracking"
    program = load_port(folder / "language.toml").program("binary")
    late = LineReader(program.output, deadline=time.monotonic() - 1)
    with pytest.raises(OutOfTime):
        late.read("a" * 5000)
    with pytest.raises(Unreadable, match="was still matching"):
        LineReader(program.output, deadline=time.monotonic() + 60).read("a" * 5000)
