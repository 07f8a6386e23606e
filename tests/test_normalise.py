"""Reading ports' lines: any move in a port's words reads back as that move; anything else is refused
with the line and what was expected."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from harness.discover import load_port
from harness.model import Move
from harness.normalise import LineReader, Unreadable

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
