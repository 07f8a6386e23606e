"""Reading ports' lines: any move in a port's words reads back as that move; anything else is refused
with the line and what was expected."""

from __future__ import annotations

import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import ROOT
from harness.discover import load_port
from harness.errors import Unreadable, Violation
from harness.model import CLASSIC, CYCLIC, Move
from harness.normalise import MAX_LINE_BYTES, OutputStream
from harness.output import Output
from harness.readers.drawings import DrawingReader
from harness.readers.lines import LineReader
from harness.readers.states import StateReader

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
    assert port.manifest_error is None, port.manifest_error
    return LineReader(port.program("recursive").output)


def real_reader(name: str, method: str = "recursive") -> LineReader:
    port = load_port(ROOT / name / "language.toml")
    return LineReader(port.program(method).output)


@given(moves)
def test_python_port_words_read_back(move):
    reader = real_reader("python")
    line = f"Move disk of size {move.disk} from position {move.src} to position {move.dst}"
    assert reader.read(line) == [move]
    assert reader.read(f"Move smallest disk from position {move.src} to position {move.dst}") == [move._replace(disk=None)]


@given(moves)
def test_bash_port_words_read_back(move):
    assert real_reader("bash").read(f"{move.disk} from {move.src} to {move.dst}") == [move]


@given(moves)
def test_peg_names_map_to_numbers(reader, move):
    names = ["left", "middle", "right"]
    assert reader.read(f"{names[move.src]} to {names[move.dst]}") == [move._replace(disk=None)]


@given(st.text(max_size=40).filter(lambda text: " from " not in text and text.strip()))
def test_garbage_is_refused_with_the_line_and_the_patterns(text):
    with pytest.raises(Unreadable) as refused:
        real_reader("bash").read(text)
    assert str(refused.value) == f"{text!r} matches none of the port's patterns; expected (?P<disk>\\d+) from (?P<src>\\d) to (?P<dst>\\d)"


def test_a_peg_the_port_does_not_have_is_refused(reader):
    with pytest.raises(Unreadable, match=r"^peg 'north' is not one of 'left', 'middle', 'right'$"):
        reader.read("disc 1: north -> left")


@pytest.mark.parametrize("disc", ["big", "\u0661", "\uff11", "1\u0660"])
def test_a_disc_that_is_not_a_number_in_ascii_digits_is_refused(reader, disc):
    with pytest.raises(Unreadable, match=r"is not a whole number in the digits 0-9$"):
        reader.read(f"disc {disc}: left -> right")


def test_a_disc_number_too_long_to_be_a_disc_is_refused_unread(reader):
    with pytest.raises(Unreadable, match=r"^disk 1{20}\.\.\. has 5000 digits"):
        reader.read(f"disc {'1' * 5000}: left -> right")


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
    moves = [move for line in lines for move in reader.read(line)]
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
    assert reader._row(row, 0) == (2, 7, 11, 14, 15, 16)


START = drawing([[1, 2], [], []], 2)


def test_a_drawing_whose_disc_is_not_right_aligned_in_its_slot_is_refused():
    n = 10  # slots of three characters: '--1' is disc 1, '-1-' is none
    good = drawing([list(range(1, n + 1)), [], []], n)
    assert read_drawings(good, n) == []
    shifted = [good[0].replace("--1-", "-1--", 1), *good[1:]]
    with pytest.raises(Unreadable, match="right-aligned"):
        read_drawings(shifted, n)


@pytest.mark.parametrize(
    "lines, error, message",
    [
        (START[:2], Unreadable, "ends in the middle of a drawing, after 2 of its 3 rows"),
        ([], Unreadable, "has no drawing"),
        (["-1-2|B"], Unreadable, "'-1-2|B' should be the row of peg A, ending in |A"),
        (["-1-2"], Unreadable, "should be the row of peg A"),
        (["-1-x|A"], Unreadable, "a row draws 2 slots of 2 characters before the |, each hyphens or a disc's number right-aligned"),
        (["1--2|A"], Unreadable, "a row draws 2 slots of 2 characters before the |"),  # disc 1 not right-aligned in its slot
        (["-1-2-|A"], Unreadable, "a row draws 2 slots"),
        (START[:3] + ["oops"], Unreadable, "'oops' should be the blank line after a drawing's 3 rows"),
        (drawing([[2], [1], []], 2), Violation, "the first drawing shows A: [2]; B: [1]; C: [], not all 2 discs on A"),
        (START + drawing([[], [1, 2], []], 2), Violation, "drawing 2 is not one move on from the drawing before"),
        (START + drawing([[2], [], [3]], 2), Violation, "drawing 2 is not one move on"),
        (START + drawing([[], [], []], 2), Violation, "drawing 2 is not one move on"),
    ],
)
def test_a_drawing_that_is_malformed_or_no_single_move_is_refused(lines, error, message):
    with pytest.raises(error, match=re.escape(message)):
        read_drawings(lines, 2)


def load_output(text: str) -> Output:
    """The [output] table of a manifest whose [output] says ``text``, as discovery reads it."""
    with tempfile.TemporaryDirectory() as folder:
        port_folder = Path(folder) / "port"
        port_folder.mkdir()
        (port_folder / "language.toml").write_text('command = ["x", "{n}"]\nmethods = ["recursive"]\n[output]\n' + text)
        port = load_port(port_folder / "language.toml")
    assert port.manifest_error is None, port.manifest_error
    return port.program("recursive").output


def test_blank_lines_and_ignored_lines_are_skipped_and_nothing_else():
    reader = LineReader(load_output(
        "patterns = ['Move (?P<src>[ABC]) to (?P<dst>[ABC])']\npegs = ['A', 'B', 'C']\n"
        "ignore = ['Towers of Hanoi, \\d+ discs', 'Total moves = \\d+']\n"
    ))
    assert [reader.read(line) for line in ["Towers of Hanoi, 2 discs", "", "   ", "Move A to B", "Total moves = 1"]] == [
        [], [], [], [Move(None, 0, 1)], []
    ]
    with pytest.raises(Unreadable, match="Total moves = 1 and counting"):
        reader.read("Total moves = 1 and counting")


def test_several_moves_on_one_line_read_in_order():
    reader = LineReader(load_output("patterns = ['(?P<disk>\\d+):(?P<src>[123])→(?P<dst>[123])']\npegs = ['1', '2', '3']\nseparator = ' +'\n"))
    assert reader.read("1:1→3 2:1→2  1:3→2 ") == [Move(1, 0, 2), Move(2, 0, 1), Move(1, 2, 1)]


def test_a_pattern_that_matches_only_part_of_a_line_says_patterns_match_whole_lines():
    reader = LineReader(load_output("patterns = ['(?P<src>\\d) to (?P<dst>\\d)']\npegs = ['0', '1', '2']\n"))
    with pytest.raises(Unreadable, match="matches part of it: patterns must match the whole line"):
        reader.read("Move 1 from 0 to 2")


ROD_STATES = "format = 'states'\npatterns = ['(?P<peg>[012]): ?(?P<discs>[0-9 ]*)']\npegs = ['0', '1', '2']\n"


def rods(towers: list[list[int]]) -> list[str]:
    """A board as seed 003's i_toh echoes it: each rod's discs from the bottom, then a blank line."""
    return [f"{peg}: {' '.join(map(str, reversed(tower)))}" for peg, tower in enumerate(towers)] + [""]


@pytest.mark.parametrize("with_start", [True, False])
@pytest.mark.parametrize("n", [0, 1, 4, 7])
def test_states_after_each_move_read_back_as_those_moves(n, with_start):
    towers = [list(range(1, n + 1)), [], []]
    lines = rods(towers) if with_start else []
    for move in CLASSIC.reference(n):
        towers[move.dst].insert(0, towers[move.src].pop(0))
        lines += rods(towers)
    reader = StateReader(load_output(ROD_STATES), n)
    assert [move for line in lines for move in reader.read(line)] == list(CLASSIC.reference(n))
    reader.finish()


@pytest.mark.parametrize("kept", [0, 3, 1 << 17])
def test_a_towers_text_read_once_reads_the_same_each_time_it_comes_back(kept, monkeypatch):
    """Towers' texts are kept read, up to a bound: however many are kept, a long solution reads the
    same, and a text refused is refused again each time it comes."""
    monkeypatch.setattr("harness.readers.states.KEPT_TOWERS", kept)
    towers, lines = [list(range(1, 11)), [], []], []
    for move in CLASSIC.reference(10):
        towers[move.dst].insert(0, towers[move.src].pop(0))
        lines += rods(towers)
    reader = StateReader(load_output(ROD_STATES), 10)
    assert [move for line in lines for move in reader.read(line)] == list(CLASSIC.reference(10))
    for _ in range(2):
        with pytest.raises(Violation, match="has a disc on a smaller one"):
            reader.read("0: 2 3 1")


def test_a_board_printed_twice_in_a_row_is_no_move():
    """A program that prints the board again (after a move, or before the first twice) has made no move."""
    reader = StateReader(load_output(ROD_STATES), 2)
    lines = rods([[1, 2], [], []]) * 2 + rods([[2], [1], []]) * 3 + rods([[], [1], [2]]) + rods([[], [], [1, 2]]) * 2
    assert [move for line in lines for move in reader.read(line)] == [Move(1, 0, 1), Move(2, 0, 2), Move(1, 1, 2)]
    reader.finish()
    assert read_drawings(START + START + drawing([[2], [1], []], 2) * 2, 2) == [Move(1, 0, 1)]


def test_a_state_program_that_lists_from_the_top_is_quoted_from_the_top():
    top_first = "format = 'states'\npatterns = ['(?P<peg>[012]): ?(?P<discs>[0-9 ]*)']\npegs = ['0', '1', '2']\n"
    reader = StateReader(load_output(top_first), 2)
    with pytest.raises(Violation, match=re.escape("then 0: []; 1: [1, 2]; 2: []")):
        for line in ["0: 1 2", "1:", "2:", "0:", "1: 1 2", "2:"]:
            reader.read(line)


def test_states_several_towers_a_line_in_peg_order_top_or_bottom_first():
    reader = StateReader(load_output("format = 'states'\npatterns = ['\\[*(?P<discs>[0-9, ]*)\\]*']\npegs = ['a', 'b', 'c']\nseparator = '\\], \\['\n"), 2)
    assert reader.read("[[2, 1], [], []]") == []
    assert reader.read("[[2], [1], []]") == [Move(1, 0, 1)]
    assert reader.read("[[], [1], [2]]") == [Move(2, 0, 2)]
    with pytest.raises(Violation, match=re.escape("the tower '1, 2]]' has a disc on a smaller one, read bottom first as the program lists its towers")):
        reader.read("[[], [], [1, 2]]")  # listed the other way: disc 2 on disc 1


@pytest.mark.parametrize(
    "lines, error, message",
    [
        (["0: 2 1", "1:"], Unreadable, "ends in the middle of a state, after 2 of its 3 towers"),
        (["0: 2 1", "0: 2 1"], Unreadable, "'0: 2 1' shows peg 0 a second time in one state"),
        (["0: 2 3 1", "1:", "2:"], Violation, "the tower '2 3 1' has a disc on a smaller one"),
        # the discs listed as the program lists them, bottom first
        (["0:", "1: 2 1", "2:"], Violation, "state 1 is not one move on from the state before: 0: [2, 1]; 1: []; 2: [], then 0: []; 1: [2, 1]; 2: []"),
        (["0: 2", "1:", "2: 1", "0:", "1:", "2:"], Violation, "state 2 is not one move on"),
        (["0: 2 x", "1:", "2:"], Unreadable, "matches none of the port's patterns"),
    ],
)
def test_a_state_that_is_malformed_or_no_single_move_is_refused(lines, error, message):
    reader = StateReader(load_output(ROD_STATES), 2)
    with pytest.raises(error, match=re.escape(message)):
        for line in lines:
            reader.read(line)
        reader.finish()


def test_a_long_line_with_a_separator_is_read_in_pieces_each_within_the_bound():
    """Every move on one line, far longer than a line may be: it comes in pieces cut at separators,
    all counted as line 1, and the next line is line 2."""
    separator = load_output("patterns = ['(?P<src>\\\\d)(?P<dst>\\\\d)']\npegs = ['0', '1', '2']\nseparator = ', '\n").separator
    moves = ", ".join(["02", "01", "21"] * 20_000)
    blocks = iter([(moves + "\nlast\n").encode()[i:i + 5000] for i in range(0, len(moves) + 6, 5000)])
    stream = OutputStream(blocks, separator)
    pieces = []
    while (piece := stream.line()) is not None and piece != b"last":
        assert len(piece) <= MAX_LINE_BYTES and stream.lines == 1
        pieces.append(piece.decode())
    assert ", ".join(pieces) == moves
    assert (piece, stream.lines) == (b"last", 2)


def test_a_long_line_with_no_separator_in_reach_is_refused_and_counted_whole():
    separator = load_output("patterns = ['(?P<src>\\\\d)(?P<dst>\\\\d)']\npegs = ['0', '1', '2']\nseparator = ', '\n").separator
    stream = OutputStream(iter([b"02\n", "é".encode() * 10_000]), separator)
    assert stream.line() == b"02"
    with pytest.raises(Unreadable, match=re.escape("line 2 has more than 8,192 bytes between separators")) as raised:
        stream.line()
    assert "(at least 4,036 more characters)" in str(raised.value)
