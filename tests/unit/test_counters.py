"""What ``harness bench`` counts a port's moves with, reading nothing: a line a move, or a drawing a
move after the first, however the output is cut into blocks; and nothing where only reading can
tell (a board of several lines a move, a line that holds several)."""

from __future__ import annotations

from harness.output import Output
from harness.readers.drawings import DrawingCounter
from harness.readers.drawings import counter as drawings_counter
from harness.readers.lines import LineCounter
from harness.readers.lines import counter as lines_counter
from harness.readers.states import counter as states_counter

PEGS = ("A", "B", "C")
DRAWINGS = b"".join(b"-1|A\n--|B\n--|C\n\n" for _ in range(4))
"""Four drawings: the towers before any move, then after each of three moves."""


def counted(counter: LineCounter | DrawingCounter, output: bytes, cuts: list[int]) -> int:
    """The moves ``counter`` counts in ``output`` given to it cut at ``cuts``."""
    for start, end in zip([0, *cuts], [*cuts, len(output)]):
        counter.take(output[start:end])
    return counter.moves


def test_drawings_are_counted_wherever_the_blocks_are_cut():
    assert all(counted(DrawingCounter(), DRAWINGS, [cut]) == 3 for cut in range(1, len(DRAWINGS)))
    assert counted(DrawingCounter(), DRAWINGS, list(range(1, len(DRAWINGS)))) == 3  # a byte a block


def test_lines_are_counted_wherever_the_blocks_are_cut():
    output = b"1 0 2\n2 0 1\n1 2 1\n"
    assert all(counted(LineCounter(), output, [cut]) == 3 for cut in range(1, len(output)))


def test_only_output_that_is_nothing_but_moves_is_counted():
    import regex

    plain = Output("lines", PEGS)
    assert isinstance(lines_counter(plain), LineCounter) and isinstance(drawings_counter(Output("drawings", PEGS)), DrawingCounter)
    assert lines_counter(Output("lines", PEGS, ignore=(regex.compile("^#"),))) is None  # a line may be no move
    assert lines_counter(Output("lines", PEGS, separator=regex.compile(","))) is None  # a line may hold several
    assert states_counter(Output("states", PEGS)) is None  # a board takes several lines
