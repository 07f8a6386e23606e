"""harness show: one cell's moves drawn as stacks of discs, run as a real process; piped, each position
once as plain text; on a terminal (a pty), animated in place."""

import os
import re
import sys

import pexpect

from conftest import ROOT, harness_here, suite
from harness.model import METHODS
from harness.verify import describe


def test_piped_it_prints_each_position_once_as_plain_text():
    done = harness_here("show", "python", "recursive", "-n", "3")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout
    heading, *states = done.stdout.split("\n\n")
    assert heading.startswith("python/recursive n=3: 7 moves\n")
    states = [heading.split("\n", 1)[1], *states]
    assert len(states) == 8
    moves = list(METHODS["recursive"].reference(3))
    lines = [state.strip("\n").split("\n")[-1] for state in states]
    assert lines == ["move 0 of 7: the start, 3 discs on peg 0"] + [f"move {k} of 7: {describe(move)}" for k, move in enumerate(moves, 1)]
    assert states[0].split("\n")[:4] == ["   |        |        |", "  =1=       |        |", " ==2==      |        |", "===3===     |        |"]
    assert states[-1].split("\n")[:4] == ["   |        |        |", "   |        |       =1=", "   |        |      ==2==", "   |        |     ===3==="]


def test_on_a_terminal_it_animates_in_place_and_says_which_way_the_cyclic_discs_go():
    child = pexpect.spawn(
        sys.executable, ["-m", "harness", "show", "python", "cyclic", "-n", "2", "--delay", "0"],
        cwd=str(ROOT), env={**os.environ, "TERM": "xterm"}, encoding="utf-8", timeout=60,
    )
    output = child.read()
    child.close()
    assert child.exitstatus == 0, output
    assert "python/cyclic n=2: 5 moves; every move goes one peg on, 0 → 1 → 2 → 0" in output
    assert output.count("\x1b[6F") == 5  # each move redraws the 6 lines (3 rows, base, names, move line) over the last
    assert re.findall(r"move (\d) of 5", output) == [str(k) for k in range(6)]


def test_a_port_that_breaks_a_rule_is_drawn_up_to_it_and_the_fault_is_said(tmp_path):
    root = suite(tmp_path, "illegal", real=())
    done = harness_here("--root", str(root), "show", "illegal", "recursive", "-n", "3")
    assert done.returncode == 1
    assert re.findall(r"move \d of \d", done.stdout) == ["move 0 of 1", "move 1 of 1"]
    assert "illegal/recursive n=3: fail: line 2: move 2 (disc 2 from peg 0 to peg 2): puts disc 2 on smaller disc 1" in done.stderr
