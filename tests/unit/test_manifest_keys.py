"""The manifest's keys for programs written for no harness: where the moves are written, names of
discs, a fixed n and n's other forms; each fault named with its line, as ``harness check`` says it."""

from __future__ import annotations

import pytest

from harness.discover import load_port
from harness.errors import Unreadable, Violation
from harness.model import METHODS, Move
from harness.output import Output
from harness.readers import READERS
from harness.readers.states import DiscNames, _tower
from harness.verify import Board

BASE = """\
methods = ["recursive"]
command = ["prog", "{n}"]
[output]
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
pegs = ["0", "1", "2"]
"""


def port_from(tmp_path, text: str):
    folder = tmp_path / "lang"
    folder.mkdir(exist_ok=True)
    (folder / "language.toml").write_text(text)
    return load_port(folder / "language.toml")


def error_of(tmp_path, text: str) -> str:
    port = port_from(tmp_path, text)
    assert port.manifest_error is not None
    return port.manifest_error.removeprefix(str(tmp_path / "lang" / "language.toml"))


@pytest.mark.parametrize("stream", ["stdout", "stderr", "both"])
def test_the_moves_may_be_read_from_either_stream_or_both(tmp_path, stream):
    port = port_from(tmp_path, BASE + f'stream = "{stream}"\n')
    assert port.manifest_error is None
    assert port.program("recursive").output.stream == stream


def test_the_moves_are_read_from_standard_output_by_default(tmp_path):
    assert port_from(tmp_path, BASE).program("recursive").output.stream == "stdout"


def test_a_stream_the_harness_does_not_know_is_named_with_its_line(tmp_path):
    assert error_of(tmp_path, BASE + 'stream = "stdin"\n') == ":6: 'output.stream' is where the moves are written: one of stdout, stderr, both"


def test_a_query_reads_no_stream(tmp_path):
    (tmp_path / "lang").mkdir()
    (tmp_path / "lang" / "hanoi.sql").write_text("")
    text = BASE.replace('command = ["prog", "{n}"]', '[postgresql]\nload = ["hanoi.sql"]\nquery = "SELECT {method}({n})"') + 'stream = "stderr"\n'
    assert "'output.stream' is for a program's streams" in error_of(tmp_path, text)


@pytest.mark.parametrize(
    "argument, n, given",
    [
        ("{n}", 3, "3"),
        ("{n:unary}", 3, "111"),
        ("{n:unary:+}", 3, "+++"),
        ("-n={n:unary:ab}", 2, "-n=abab"),
        ("{n:unary}", 0, ""),
        ("{n:discs}", 4, "1 2 3 4"),
        ("[{n:discs:, }]", 3, "[1, 2, 3]"),
        ("({n:discs:)(})", 2, "(1)(2)"),
        ("{n:discs}", 0, ""),
        ("{n}/{n:unary}", 2, "2/11"),
    ],
)
def test_n_is_written_in_the_form_the_command_names(tmp_path, argument, n, given):
    port = port_from(tmp_path, BASE.replace('"{n}"', f'"{argument}"'))
    assert port.manifest_error is None, port.manifest_error
    assert port.program("recursive").argv("recursive", n) == ["prog", given]


def test_n_given_as_text_is_written_as_it_is_in_a_form_it_cannot_count(tmp_path):
    """harness smoke spells n otherwise (+3, 0x3): a form that counts writes what it cannot count as it is."""
    port = port_from(tmp_path, BASE.replace('"{n}"', '"{n:unary}"'))
    assert port.program("recursive").argv("recursive", "+3") == ["prog", "+3"]
    assert port.program("recursive").argv("recursive", "3") == ["prog", "111"]


def test_a_program_of_one_fixed_n_needs_no_n(tmp_path):
    port = port_from(tmp_path, BASE.replace(', "{n}"', "").replace("[output]", "min_n = 4\nmax_n = 4\n[output]"))
    assert port.manifest_error is None, port.manifest_error
    assert port.program("recursive").argv("recursive", 4) == ["prog"]
    assert not port.program("recursive").takes_n


def test_a_program_of_several_n_must_be_given_n(tmp_path):
    problem = error_of(tmp_path, BASE.replace(', "{n}"', "").replace("[output]", "min_n = 3\nmax_n = 4\n[output]"))
    assert problem.startswith(": 'command', 'build' or 'stdin' must use {n}, the number of discs, unless min_n = max_n"), problem


@pytest.mark.parametrize("placeholder", ["{n:roman}", "{n:unary:}", "{n:discs:{}", "{n:}", "{n:Unary}"])
def test_a_form_of_n_the_harness_does_not_know_is_named_with_its_line(tmp_path, placeholder):
    problem = error_of(tmp_path, BASE.replace('command = ["prog", "{n}"]', f'command = [\n  "prog",\n  "{{n}}",\n  "-x{placeholder}",\n]'))
    assert problem.startswith(":5: 'command' uses {"), problem
    assert "which the harness does not fill in; it fills in {method}, {n}, {n:unary}, {n:unary:TEXT}, {n:discs}, {n:discs:SEP}" in problem


RINGS = BASE.replace("(?P<disk>\\d+)", "(?P<disk>\\S+)") + 'discs = ["°", "o", "O"]\n'


def test_discs_named_by_the_map_are_read_as_their_numbers_and_bound_max_n(tmp_path):
    port = port_from(tmp_path, RINGS)
    assert port.manifest_error is None, port.manifest_error
    program = port.program("recursive")
    assert (program.output.discs, program.max_n) == (("°", "o", "O"), 3)
    reader = READERS["lines"].open(program.output, 3)
    assert reader.read("O 0 2") == [Move(3, 0, 2)]
    with pytest.raises(Unreadable, match="disc '3' is not one of the port's discs '°', 'o', 'O'"):
        reader.read("3 0 2")


@pytest.mark.parametrize(
    "text, shown",
    [("O o °", (1, 2, 3)), ("°,o", (1, 2)), ("[( ), O]", (3, 4)), ("", ())],
)
def test_a_tower_of_named_discs_is_read_by_their_names_with_separators_between(text, shown):
    output = Output("states", ("0", "1", "2"), discs=("°", "o", "O", "( )"))
    assert _tower(text, DiscNames(output.discs))[0] == shown


def test_a_tower_with_text_that_names_no_disc_is_unreadable():
    with pytest.raises(Unreadable, match="' x ' in the tower 'O x °' is none of the port's discs"):
        _tower("O x °", DiscNames(("°", "o", "O")))


@pytest.mark.parametrize(
    "discs, problem",
    [
        ("[]", ":6: 'output.discs' names the discs 1, 2, 3…: at least one name"),
        ('["a", "a"]', ":6: 'output.discs' gives distinct names, for discs 1, 2, 3… and at most 64"),
        ('["a", " b"]', ":6: 'output.discs' names ' b': a disc's name is printable, with no space around it"),
        ('["a", "b"]\nmax_n = 3', ":3: 'max_n' is the largest number of discs the program takes, from min_n to 2, the discs 'output.discs' names"),
    ],
)
def test_a_disc_map_that_cannot_be_read_is_named_with_its_line(tmp_path, discs, problem):
    text = RINGS.replace('discs = ["°", "o", "O"]', f"discs = {discs}")
    if "max_n" in discs:
        text = text.replace("\nmax_n = 3", "").replace('command = ["prog", "{n}"]', 'command = ["prog", "{n}"]\nmax_n = 3')
    assert error_of(tmp_path, text) == problem


def test_a_drawings_disc_name_holds_no_hyphen(tmp_path):
    text = BASE.replace("patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']\n", 'format = "drawings"\n') + 'discs = ["-o-"]\n'
    assert "in drawings a disc's name holds no '-' or '|'" in error_of(tmp_path, text)


def test_the_board_names_each_peg_as_the_port_does_with_its_number_beside():
    board = Board(2, METHODS["recursive"], ("left", "middle", "right"))
    with pytest.raises(Violation, match=r"^move 1 \(disc 1 from peg middle \(1\) to peg right \(2\)\): peg middle \(1\) is empty$"):
        board.play(Move(1, 1, 2))
    board = Board(2, METHODS["recursive"], ("left", "middle", "right"))
    with pytest.raises(Violation, match=r"the top of peg left \(0\) is disc 1, not disc 2$"):
        board.play(Move(2, 0, 2))


def test_the_cyclic_rule_says_which_way_the_ports_pegs_go():
    board = Board(2, METHODS["cyclic"], ("A", "B", "C"))
    with pytest.raises(Violation, match=r"a disc may only go from peg p to peg \(p \+ 1\) mod 3: A → B, B → C, C → A$"):
        board.play(Move(1, 0, 2))


def test_pegs_named_0_1_2_need_no_number_beside():
    board = Board(1, METHODS["recursive"])
    with pytest.raises(Violation, match=r"^move 1 \(disc 1 from peg 1 to peg 2\): peg 1 is empty$"):
        board.play(Move(1, 1, 2))
