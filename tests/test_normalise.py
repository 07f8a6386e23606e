"""Reading ports' lines: any move in a port's words reads back as that move; anything else is refused
with the line and what was expected."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.discover import Output, load_port
from harness.model import CYCLIC, Move, Violation
from harness.normalise import DrawingReader, LineReader, Unreadable

PROLOG_LIKE = """\
command = ["swipl", "hanoi.pl", "{method}", "{n}"]
methods = ["recursive"]
[output]
patterns = ['(?P<src>left|middle|right) to (?P<dst>left|middle|right)', 'disc (?P<disk>\\w+): (?P<src>\\w+) -> (?P<dst>\\w+)']
pegs = ["left", "middle", "right"]
"""

moves = st.builds(Move, st.integers(1, 64), st.integers(0, 2), st.integers(0, 2))


@pytest.fixture(scope="module")
def reader(tmp_path_factory) -> LineReader:
    folder = tmp_path_factory.mktemp("port") / "named"
    folder.mkdir()
    (folder / "language.toml").write_text(PROLOG_LIKE)
    port = load_port(folder / "language.toml")
    assert port.problem is None, port.problem
    return LineReader(port.program("recursive").output)


def real_reader(name: str, method: str = "recursive") -> LineReader:
    port = load_port(Path(__file__).resolve().parent.parent / name / "language.toml")
    return LineReader(port.program(method).output)


@given(moves)
def test_python_port_words_read_back(move):
    reader = real_reader("python")
    line = f"Move disk of size {move.disk} from position {move.src} to position {move.dst}"
    assert reader.read(line) == move
    assert reader.read(f"Move smallest disk from position {move.src} to position {move.dst}") == move._replace(disk=None)


@given(moves)
def test_bash_port_words_read_back(move):
    assert real_reader("bash").read(f"{move.disk} from {move.src} to {move.dst}") == move


@given(moves)
def test_peg_names_map_to_numbers(reader, move):
    names = ["left", "middle", "right"]
    assert reader.read(f"{names[move.src]} to {names[move.dst]}") == move._replace(disk=None)


@given(st.text(max_size=40).filter(lambda text: " from " not in text))
def test_garbage_is_refused_with_the_line_and_the_patterns(text):
    with pytest.raises(Unreadable) as refused:
        real_reader("bash").read(text)
    assert str(refused.value) == f"{text!r} matches none of the port's patterns; expected (?P<disk>\\d+) from (?P<src>\\d) to (?P<dst>\\d)"


def test_a_peg_the_port_does_not_have_is_refused(reader):
    with pytest.raises(Unreadable, match=r"^peg 'north' is not one of 'left', 'middle', 'right'$"):
        reader.read("disc 1: north -> left")


def test_a_disc_that_is_not_a_number_is_refused(reader):
    with pytest.raises(Unreadable, match=r"^disk 'big' is not a whole number$"):
        reader.read("disc big: left -> right")


def test_the_whole_line_must_match(reader):
    with pytest.raises(Unreadable):
        reader.read("left to right, then more")


def drawing(towers: list[list[int]], n: int) -> list[str]:
    """The towers as the cyclic article's print_tower() draws them: top disc at the left."""
    width = len(str(n))
    rows = [
        "".join(["-" * (width + 1)] * (n - len(tower)) + ["-" + str(disc).rjust(width, "-") for disc in tower]) + "|" + name
        for name, tower in zip("ABC", towers)
    ]
    return rows + [""]


DRAWINGS = Output("drawings", ("A", "B", "C"))


def read_drawings(lines: list[str], n: int) -> list[Move]:
    reader = DrawingReader(DRAWINGS, n)
    moves = [move for line in lines if (move := reader.read(line)) is not None]
    reader.finish()
    return moves


@pytest.mark.parametrize("n", [0, 1, 3, 10, 11])
def test_drawings_of_the_cyclic_moves_read_back_as_those_moves(n):
    towers = [list(range(1, n + 1)), [], []]
    lines = drawing(towers, n)
    for move in CYCLIC.reference(n):
        towers[move.dst].insert(0, towers[move.src].pop(0))
        lines += drawing(towers, n)
    assert read_drawings(lines, n) == list(CYCLIC.reference(n))


def test_the_articles_own_example_row_reads_as_its_discs():
    reader = DrawingReader(DRAWINGS, 16)
    row = "--------------------------------2--7-11-14-15-16|A"
    assert reader._discs(reader._row(row, 0)) == (2, 7, 11, 14, 15, 16)


START = drawing([[1, 2], [], []], 2)


@pytest.mark.parametrize(
    "lines, error, message",
    [
        (START[:2], Unreadable, "ends in the middle of a drawing, after 2 of its 3 rows"),
        ([], Unreadable, "has no drawing"),
        (["-1-2|B"], Unreadable, "'-1-2|B' should be the row of peg A, ending in |A"),
        (["-1-2"], Unreadable, "should be the row of peg A"),
        (["-1-x|A"], Unreadable, "a row draws 2 slots of 2 characters, hyphens and digits, before the |"),
        (["-1-2-|A"], Unreadable, "a row draws 2 slots"),
        (START[:3] + ["oops"], Unreadable, "'oops' should be the blank line after a drawing's 3 rows"),
        (drawing([[2], [1], []], 2), Violation, "the first drawing shows A: [2]; B: [1]; C: [], not all 2 discs on A"),
        (START + drawing([[], [1, 2], []], 2), Violation, "drawing 2 is not one move on from the drawing before"),
        (START + drawing([[2], [], [3]], 2), Violation, "drawing 2 is not one move on"),
        (START + START, Violation, "drawing 2 is not one move on"),
    ],
)
def test_a_drawing_that_is_malformed_or_no_single_move_is_refused(lines, error, message):
    with pytest.raises(error, match=re.escape(message)):
        read_drawings(lines, 2)
