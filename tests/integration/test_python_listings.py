"""The documents' own Python functions, kept in python/hanoi.py under their names, still print what
the documents show; and the port's --show draws as COMP9021's display_towers does."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from conftest import ROOT

# COMP9021's notes, cell [1]: recursive_towers(4, 0, 2, 1)
RECURSIVE_TOWERS_4 = """\
Move disk of size 1 from position 0 to position 1
Move disk of size 2 from position 0 to position 2
Move disk of size 1 from position 1 to position 2
Move disk of size 3 from position 0 to position 1
Move disk of size 1 from position 2 to position 0
Move disk of size 2 from position 2 to position 1
Move disk of size 1 from position 0 to position 1
Move disk of size 4 from position 0 to position 2
Move disk of size 1 from position 1 to position 2
Move disk of size 2 from position 1 to position 0
Move disk of size 1 from position 2 to position 0
Move disk of size 3 from position 1 to position 2
Move disk of size 1 from position 0 to position 1
Move disk of size 2 from position 0 to position 2
Move disk of size 1 from position 1 to position 2
"""

# COMP9021's notes, cell [11]: iterative_towers(4, 0, 2, 1)
ITERATIVE_TOWERS_4 = """\
Move smallest disk from position 0 to position 1
Move disk of size 2 from position 0 to position 2
Move smallest disk from position 1 to position 2
Move disk of size 3 from position 0 to position 1
Move smallest disk from position 2 to position 0
Move disk of size 2 from position 2 to position 1
Move smallest disk from position 0 to position 1
Move disk of size 4 from position 0 to position 2
Move smallest disk from position 1 to position 2
Move disk of size 2 from position 1 to position 0
Move smallest disk from position 2 to position 0
Move disk of size 3 from position 1 to position 2
Move smallest disk from position 0 to position 1
Move disk of size 2 from position 0 to position 2
Move smallest disk from position 1 to position 2
"""


@pytest.fixture
def hanoi():
    spec = importlib.util.spec_from_file_location("hanoi", ROOT / "python" / "hanoi.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_recursive_towers_prints_the_notes_moves(hanoi, capsys):
    hanoi.recursive_towers(4, 0, 2, 1)
    assert capsys.readouterr().out == RECURSIVE_TOWERS_4


def test_iterative_towers_prints_the_notes_moves(hanoi, capsys):
    hanoi.iterative_towers(4, 0, 2, 1)
    assert capsys.readouterr().out == ITERATIVE_TOWERS_4


def test_port_iterative_method_prints_the_notes_words():
    done = subprocess.run([sys.executable, "hanoi.py", "iterative", "4"], cwd=ROOT / "python", capture_output=True, text=True)
    assert done.stdout == ITERATIVE_TOWERS_4


def test_b_toh_keeps_the_formula_that_ends_on_rod_1_for_even_n(hanoi, capsys):
    hanoi.b_toh(4)
    out = capsys.readouterr().out.splitlines()
    assert out[:4] == ["Move 1 0b0001", "0 [4, 3, 2]", "1 []", "2 [1]"]
    assert out[-4:] == ["Move 15 0b1111", "0 []", "1 [4, 3, 2, 1]", "2 []"]
    hanoi.b_toh(3)
    assert capsys.readouterr().out.splitlines()[-3:] == ["0 []", "1 []", "2 [3, 2, 1]"]


def test_b_toh_state_after_move_5_is_the_notes_example(hanoi, capsys):
    hanoi.b_toh(4)
    out = capsys.readouterr().out.splitlines()
    after_5 = out[out.index("Move 5 0b0101") + 1 :][:3]
    after_6 = out[out.index("Move 6 0b0110") + 1 :][:3]
    assert after_5 == ["0 [4, 1]", "1 [2]", "2 [3]"]
    assert after_6 == ["0 [4, 1]", "1 []", "2 [3, 2]"]


def test_r_toh_and_i_toh_print_moves_and_rods(hanoi, capsys):
    hanoi.r_toh(3, 0, 2, 1)
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if " from " in line] == [
        "1 from 0 to 2", "2 from 0 to 1", "1 from 2 to 1", "3 from 0 to 2", "1 from 1 to 0", "2 from 1 to 2", "1 from 0 to 2",
    ]
    assert lines[-3:] == ["0 []", "1 []", "2 [3, 2, 1]"]
    hanoi.i_toh(4)
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ["0 1", "0 [4, 3, 2]", "1 [1]", "2 []"]
    assert lines[-3:] == ["0 []", "1 []", "2 [4, 3, 2, 1]"]
    assert len(lines) == 15 * 4


def test_show_draws_what_display_towers_draws(hanoi, capsys):
    hanoi.recursive_towers_display_solution(3)
    drawings = capsys.readouterr().out
    done = subprocess.run([sys.executable, "hanoi.py", "recursive", "3", "--show"], cwd=ROOT / "python", capture_output=True, text=True)
    shown = "".join(line + "\n" for line in done.stdout.splitlines() if not line.startswith("Move "))
    assert shown == drawings
    assert drawings.startswith("\n  -              \n ---             \n-----            \n\n")
    assert drawings.count("\n\n\n") == 7  # one drawing before the moves and one after each
