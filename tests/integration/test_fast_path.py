"""The fast path (comparing a port's bytes with the bytes it must print for a stretch of the reference)
must reach exactly the verdicts, details, diffs, digests and partings of reading every line, whatever
the output: checked here against the slow path (``fast=False``) in every output form, on outputs
that are right or wrong in each way a port can be wrong, and on every fake port's own output."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import FAKE_PORTS
from harness.discover import load_port
from harness.errors import CellError
from harness.expect import STRETCH_BYTES
from harness.gate import Gate
from harness.model import CLASSIC, CYCLIC, METHODS, Cell, Finish, Move, Outcome
from harness.port import Port
from harness.reading import CellReading
from harness.runners.process import PortProcess
from harness.settings import Settings

HEADER = """
methods = ["recursive", "cyclic"]
command = ["true", "{method}", "{n}"]
[output]
"""
LETTERS = 'pegs = ["A", "B", "C"]\n'

NAMES = "ABC"
Towers = list[list[int]]  # each peg's discs, bottom first


def _line(write: Callable[[Move], str]) -> Callable[[list[Move], int], bytes]:
    return lambda moves, n: b"".join(f"{write(move)}\n".encode() for move in moves)


def _separated(moves: list[Move], n: int) -> bytes:
    """Eight moves a line, as the contributed AWK port prints them."""
    pieces = [f"{move.disk}:{NAMES[move.src]}>{NAMES[move.dst]}" for move in moves]
    return b"".join((" ".join(pieces[at:at + 8]) + "\n").encode() for at in range(0, len(pieces), 8))


def _listed(moves: list[Move], n: int) -> bytes:
    """Every move on one line, as a printed Python list, as the contributed one-line port prints them."""
    return ("[" + ", ".join(f"({move.disk}, {move.src}, {move.dst})" for move in moves) + "]\n").encode()


def _boards(moves: list[Move], n: int) -> list[Towers]:
    """The towers before the first move and after each, moving whatever lies on top (a move from an
    empty peg moves nothing): what a port that draws its board would show."""
    towers: Towers = [list(range(n, 0, -1)), [], []]
    boards = [[list(tower) for tower in towers]]
    for move in moves:
        if towers[move.src]:
            towers[move.dst].append(towers[move.src].pop())
        boards.append([list(tower) for tower in towers])
    return boards


def _states(moves: list[Move], n: int) -> bytes:
    """Each rod's discs from the bottom after each move, then a blank line, as the notes' i_toh prints."""
    return b"".join(
        "".join(f"{peg}: {' '.join(map(str, tower))}\n" for peg, tower in enumerate(board)).encode() + b"\n"
        for board in _boards(moves, n)[1:]
    )


def _c_states(moves: list[Move], n: int) -> bytes:
    """The board before the first move and after each, each rod from the bottom ("0: 3 2", "1:"), a
    blank line after each board, as the C port prints them."""
    return b"".join(
        "".join(f"{peg}:" + "".join(f" {disc}" for disc in tower) + "\n" for peg, tower in enumerate(board)).encode() + b"\n"
        for board in _boards(moves, n)
    )


def _listed_states(moves: list[Move], n: int) -> bytes:
    """After each move only, the pegs in the order B, C, A, each from the top as a list: "Peg B: [1,2]"."""
    return b"".join(
        "".join(f"Peg {NAMES[peg]}: [{','.join(map(str, reversed(board[peg])))}]\n" for peg in (1, 2, 0)).encode()
        for board in _boards(moves, n)[1:]
    )


def _drawings(moves: list[Move], n: int) -> bytes:
    """The cyclic article's drawings, before the first move and after each, as the C++ port prints them."""
    width = len(str(n)) + 1
    return b"".join(
        "".join(
            "-" * width * (n - len(tower)) + "".join(str(disc).rjust(width, "-") for disc in reversed(tower)) + f"|{name}\n"
            for name, tower in zip(NAMES, board)
        ).encode() + b"\n"
        for board in _boards(moves, n)
    )


FORMATS = {  # each form's [output], the n it is tried at (classic, cyclic) and how it is written
    "lines with the disc": (
        LETTERS + "patterns = ['(?P<disk>\\d+) (?P<src>[ABC]) (?P<dst>[ABC])']", (12, 8),
        _line(lambda move: f"{move.disk} {NAMES[move.src]} {NAMES[move.dst]}"),
    ),
    "lines without the disc": (
        LETTERS + "patterns = ['move (?P<src>[ABC]) to (?P<dst>[ABC])']", (12, 8),
        _line(lambda move: f"move {NAMES[move.src]} to {NAMES[move.dst]}"),
    ),
    "several moves a line": (LETTERS + "separator = ' '\npatterns = ['(?P<disk>\\d+):(?P<src>[ABC])>(?P<dst>[ABC])']", (10, 7), _separated),
    "one line, as a list": (
        "separator = '\\), \\('\npatterns = ['\\[?\\(?(?P<disk>\\d+), (?P<src>[012]), (?P<dst>[012])\\)?\\]?']\n"
        'pegs = ["0", "1", "2"]', (13, 10), _listed,
    ),
    "states": (
        'format = "states"\npatterns = [\'(?P<peg>[012]): ?(?P<discs>[0-9 ]*)\']\npegs = ["0", "1", "2"]', (7, 5), _states,
    ),
    "states as the C port prints them": (
        'format = "states"\npatterns = [\'(?P<peg>[012]):(?P<discs>[0-9 ]*)\']\npegs = ["0", "1", "2"]', (8, 6), _c_states,
    ),
    "states from the top, out of order": (
        LETTERS + 'format = "states"\npatterns = [\'Peg (?P<peg>[ABC]): \\[(?P<discs>[0-9,]*)\\]\']', (8, 6), _listed_states,
    ),
    "drawings": (LETTERS + 'format = "drawings"', (7, 7), _drawings),
}
TAKEN_WHOLE = ("lines with the disc", "lines without the disc", "one line, as a list", "states as the C port prints them",
               "states from the top, out of order", "drawings")
"""The forms whose bytes the harness learns, so that most of a right output is compared whole."""


def port(folder: Path, form: str) -> Port:
    folder.mkdir(exist_ok=True)
    (folder / "language.toml").write_text(HEADER + FORMATS[form][0] + "\n")
    loaded = load_port(folder / "language.toml")
    assert loaded.manifest_error is None, loaded.manifest_error
    return loaded


def judged(loaded: Port, method: str, n: int, text: bytes, fast: bool) -> tuple[Cell, CellReading]:
    cell = Cell(loaded.name, method, n)
    reading = CellReading(cell, loaded.program(method), None, None, None, fast=fast)
    reading.read(iter([text[at:at + 65536] for at in range(0, len(text), 65536)]), lambda: False)
    reading.judge(Finish(failure=None, timed_out=False, stopped=False, evidence=""), timeout=0)
    return cell, reading


def verdict(cell: Cell) -> tuple:
    return cell.outcome, cell.reason, cell.detail, cell.diff, cell.digest, cell.moves, cell.parting


def both(loaded: Port, method: str, n: int, text: bytes) -> tuple[Cell, CellReading]:
    """The fast path's cell, once it is shown to be the slow path's to the letter."""
    fast, reading = judged(loaded, method, n, text, fast=True)
    slow, _ = judged(loaded, method, n, text, fast=False)
    assert verdict(fast) == verdict(slow)
    return fast, reading


def where_the_smallest_is(moves: list[Move], n: int, at: int) -> int:
    peg = 0
    for move in moves[:at]:
        if move.disk == 1:
            peg = move.dst
    return peg


def corrupted(moves: list[Move], n: int, method: str, kind: str, index: int, other: int) -> list[Move]:
    """The reference made wrong in one way, at ``index``."""
    moves = list(moves)
    pairs = [(src, dst) for src in range(3) for dst in range(3) if src != dst]
    if kind in ("one move wrong", "the last move wrong"):
        index = index if kind == "one move wrong" else -1
        wrong = [pair for pair in pairs if pair != (moves[index].src, moves[index].dst)]
        moves[index] = Move(moves[index].disk, *wrong[other % len(wrong)])
    elif kind == "a move more after the end":
        peg = where_the_smallest_is(moves, n, len(moves))
        moves.append(Move(1, peg, (peg + 1 + other % 2) % 3))
    elif kind == "legal but longer":  # the smallest disc goes away and comes back, by the rules
        peg = where_the_smallest_is(moves, n, index)
        steps = [1, 1, 1] if METHODS[method].direction else [1 + other % 2, 2 - other % 2]
        for step in steps:
            moves.insert(index, Move(1, peg, (peg + step) % 3))
            index, peg = index + 1, (peg + step) % 3
    elif kind == "cut short":
        del moves[index:]
    elif kind == "a move left out":
        del moves[index]
    elif kind == "a move twice":
        moves.insert(index, moves[index])
    return moves


KINDS = ["right", "one move wrong", "the last move wrong", "a move more after the end", "legal but longer", "cut short",
         "a move left out", "a move twice", "a line no pattern reads"]


@pytest.mark.parametrize("form", FORMATS)
@settings(max_examples=12, deadline=None)
@given(kind=st.sampled_from(KINDS), index=st.integers(0, 1 << 20), other=st.integers(0, 5), method=st.sampled_from(["recursive", "cyclic"]))
def test_the_fast_path_reaches_the_slow_paths_verdict(tmp_path_factory, form, kind, index, other, method):
    _, sizes, write = FORMATS[form]
    n = sizes[method == "cyclic"]
    loaded = port(tmp_path_factory.mktemp("fast") / "port", form)
    reference = list(METHODS[method].reference(n))
    index %= len(reference)
    text = write(corrupted(reference, n, method, kind, index, other), n)
    if kind == "a line no pattern reads":
        lines = text.splitlines(keepends=True)
        lines.insert(index * len(lines) // len(reference), b"the quick brown fox\n")
        text = b"".join(lines)
    cell, _ = both(loaded, method, n, text)
    if kind == "right" or form.startswith("lines"):  # a board drawn twice is no move, so no fault there
        assert (cell.outcome is Outcome.PASS) == (kind == "right")


@pytest.mark.parametrize("form", FORMATS)
@pytest.mark.parametrize("rules", [CLASSIC, CYCLIC], ids=["classic", "cyclic"])
def test_a_right_output_passes_with_the_references_digest(tmp_path, form, rules):
    """And where the bytes can be known (a move a line, drawings), most of it is taken whole."""
    _, sizes, write = FORMATS[form]
    method, n = ("cyclic", sizes[1]) if rules is CYCLIC else ("recursive", sizes[0])
    reference = list(rules.reference(n))
    cell, reading = both(port(tmp_path / "port", form), method, n, write(reference, n))
    assert cell.outcome is Outcome.PASS
    assert cell.digest == hashlib.sha256("".join(f"{move.canonical()}\n" for move in reference).encode()).hexdigest()
    if form in TAKEN_WHOLE:
        assert reading.taken > len(reference) // 4
    elif form == "states":  # ' ?' before the discs: a pattern that may read a line more than one way
        assert reading.taken == 0


def test_a_late_difference_is_named_by_move_number_inside_a_fast_stretch(tmp_path):
    loaded = port(tmp_path / "port", "lines with the disc")
    n = 16
    reference = list(CLASSIC.reference(n))
    at = 60000  # far past the first stretches, which teach the wording
    assert at * 7 > 2 * STRETCH_BYTES
    while reference[at].disk == 1:  # a larger disc, so that the wrong move is itself illegal
        at += 1
    wrong = reference[at]
    moves = [*reference[:at], Move(wrong.disk, wrong.src, 3 - wrong.src - wrong.dst), *reference[at + 1:]]
    cell, reading = both(loaded, "recursive", n, FORMATS["lines with the disc"][2](moves, n))
    assert reading.taken > at // 2
    assert cell.outcome is Outcome.FAIL
    assert cell.detail.startswith(f"line {at + 1}: move {at + 1} (disc {wrong.disk} from peg {NAMES[wrong.src]} ({wrong.src}) to peg ")
    assert cell.diff[2].startswith(f"@@ -{at + 1 - 3},")
    assert cell.diff[6] == f"- {wrong.canonical()}"


def test_a_late_difference_in_drawings_is_named_as_the_slow_path_names_it(tmp_path):
    loaded = port(tmp_path / "port", "drawings")
    n = 9
    reference = list(CYCLIC.reference(n))
    at = len(reference) - 40
    moves = [*reference[:at], *reference[at + 1:]]
    cell, reading = both(loaded, "cyclic", n, _drawings(moves, n))
    assert reading.taken > at // 2
    assert cell.outcome is Outcome.FAIL
    assert cell.parting is not None and cell.parting.at > at


def test_moves_written_two_ways_still_pass(tmp_path):
    """A port may write the same move differently at different times: the bytes then differ from the
    wording learnt first, and the lines are read one by one instead."""
    (tmp_path / "port").mkdir()
    (tmp_path / "port" / "language.toml").write_text(HEADER + LETTERS + "patterns = ['(?P<disk>\\d+) +(?P<src>[ABC]) (?P<dst>[ABC])']\n")
    loaded = load_port(tmp_path / "port" / "language.toml")
    lines = [f"{move.disk} {NAMES[move.src]} {NAMES[move.dst]}".encode() for move in CLASSIC.reference(14)]
    for index in range(0, len(lines), 97):
        lines[index] = lines[index].replace(b" ", b"   ", 1)
    cell, _ = both(loaded, "recursive", 14, b"".join(line + b"\n" for line in lines))
    assert cell.outcome is Outcome.PASS


def test_drawings_whose_first_is_missing_fail_as_the_slow_path_says(tmp_path):
    """The first drawing must show every disc on the first peg: output that starts with the drawing
    after the first move is never taken as the moves that follow it."""
    loaded = port(tmp_path / "port", "drawings")
    reference = list(CYCLIC.reference(7))
    text = _drawings(reference, 7)
    cell, reading = both(loaded, "cyclic", 7, text[text.index(b"\n\n") + 2:])
    assert cell.outcome is Outcome.FAIL and "the first drawing shows" in cell.detail
    assert reading.taken == 0


CAPTURE_BYTES = 1 << 23
LEFT_OUT = {"hang", "setsid-holder", "background-holder", "missing-interpreter", "misspelt-require", "seed-cyclic"}
"""Fakes whose point is the time they hold the harness (their output is their first few moves), and
those that never print: their interpreter is missing, or the listing does not compile."""


def fake_outputs() -> list[tuple[str, str, int]]:
    cells = []
    for folder in sorted(path.parent for path in FAKE_PORTS.glob("*/language.toml")):
        loaded = load_port(folder / "language.toml")
        if loaded.manifest_error or folder.name in LEFT_OUT:
            continue
        cells += [(folder.name, method, n) for method in loaded.methods if loaded.program(method).query is None for n in (4, 9)]
    return cells


@pytest.mark.parametrize(("fake", "method", "n"), fake_outputs())
def test_every_fake_ports_output_gets_the_same_verdict_both_ways(fake, method, n):
    loaded = load_port(FAKE_PORTS / fake / "language.toml")
    if loaded.program(method).missing():
        pytest.skip(f"{loaded.program(method).missing()} is not installed")
    settings = Settings(timeout=30)
    try:
        with Gate(settings) as gate, gate.start(loaded, method, n, settings) as process:
            blocks = []
            for block in process.output():  # a port that prints without end is read for a while
                blocks.append(block)
                if sum(map(len, blocks)) > CAPTURE_BYTES:
                    process.stop()
                    break
            process.finish()
    except CellError as error:  # it does not build, or cannot start: no output to read
        pytest.skip(str(error))
    both(loaded, method, n, b"".join(blocks))


def test_a_port_that_writes_a_line_at_a_time_is_read_in_few_blocks():
    """A port that writes each line by itself would wake the harness once a line (the Prolog and
    Bash ports do): the harness lets the pipe fill and reads it in large blocks, every byte kept."""
    lines = 20000
    writer = f"import os\nfor i in range({lines}): os.write(1, b'%d from 0 to 2\\n' % i)"
    with PortProcess([sys.executable, "-c", writer], Path(__file__).parent, timeout=60) as process:
        blocks = list(process.output())
        assert process.finish().failure is None
    assert b"".join(blocks) == b"".join(b"%d from 0 to 2\n" % i for i in range(lines))
    assert len(blocks) <= 100  # a block a line would be 20000; without the wait, hundreds to thousands



def _cut(text: bytes, ends: bytes) -> list[bytes]:
    """The output as its boards or drawings, each with what ends it."""
    return [part + ends for part in text.split(ends)[:-1]] + ([text.split(ends)[-1]] if not text.endswith(ends) else [])


def _lines_changed(change: Callable[[list[bytes], int], list[bytes]]) -> Callable[[bytes, int], bytes]:
    """A mutation of one board's (or drawing's) lines, those at ``at``; the lines keep their ends."""
    def mutate(part: bytes, at: int) -> bytes:
        lines = part.splitlines(keepends=True)
        return b"".join(change(lines, at))
    return mutate


def _swapped_discs(lines: list[bytes], at: int) -> list[bytes]:
    """Two neighbouring discs of a tower written the other way round (or two slots of a drawing's row)."""
    rows = [index for index, line in enumerate(lines) if len(__import__("re").findall(rb"[0-9]+", line)) > 2]
    if not rows:
        return lines
    index = rows[at % len(rows)]
    numbers = list(__import__("re").finditer(rb"[0-9]+", lines[index]))[-2:]
    (first, second) = numbers
    line = lines[index]
    lines[index] = line[:first.start()] + second[0] + line[first.end():second.start()] + first[0] + line[second.end():]
    return lines


def _swapped_rows(lines: list[bytes], at: int) -> list[bytes]:
    rows = [index for index, line in enumerate(lines) if line.strip()]
    first, second = rows[at % len(rows)], rows[(at + 1) % len(rows)]
    lines[first], lines[second] = lines[second], lines[first]
    return lines


def _spaced(lines: list[bytes], at: int) -> list[bytes]:
    rows = [index for index, line in enumerate(lines) if line.strip()]
    index = rows[at % len(rows)]
    lines[index] = lines[index].replace(b"\n", b" \n") if at % 2 else b" " + lines[index]
    return lines


def _separator_changed(lines: list[bytes], at: int) -> list[bytes]:
    """A tower's discs parted by another text: two spaces, or a comma for a space, or a space for a
    comma or a hyphen."""
    rows = [index for index, line in enumerate(lines) if line.strip()]
    index = rows[at % len(rows)]
    old, new = [(b" ", b"  "), (b" ", b","), (b",", b" "), (b"-", b" "), (b"--", b"-")][at % 5]
    lines[index] = lines[index].replace(old, new, 1)
    return lines


def _disc_renamed(lines: list[bytes], at: int) -> list[bytes]:
    rows = [index for index, line in enumerate(lines) if __import__("re").search(rb"[0-9]", line)]
    index = rows[at % len(rows)]
    digit = __import__("re").search(rb"[0-9]", lines[index])
    assert digit is not None
    lines[index] = lines[index][:digit.start()] + str((int(digit[0]) + 1 + at % 8) % 10).encode() + lines[index][digit.end():]
    return lines


MUTATIONS: dict[str, Callable[[list[bytes], int], bytes] | None] = {
    "two discs swapped": _lines_changed(_swapped_discs),
    "two towers' lines swapped": _lines_changed(_swapped_rows),
    "a space more": _lines_changed(_spaced),
    "another separator": _lines_changed(_separator_changed),
    "a disc's number changed": _lines_changed(_disc_renamed),
    "a board missing": None,
    "a board twice": None,
    "a blank line more": None,
    "a line ending dropped": None,
}


def mutated(parts: list[bytes], kind: str, at: int) -> bytes:
    parts = list(parts)
    change = MUTATIONS[kind]
    if change is not None:
        parts[at] = change(parts[at], at)  # type: ignore[arg-type]
    elif kind == "a board missing":
        del parts[at]
    elif kind == "a board twice":
        parts.insert(at, parts[at])
    elif kind == "a blank line more":
        parts[at] = b"\n" + parts[at]
    elif kind == "a line ending dropped":
        parts[at] = parts[at].replace(b"\n", b"", 1)
    return b"".join(parts)


BOARD_FORMS = ("states as the C port prints them", "states from the top, out of order", "drawings")


@pytest.mark.parametrize("form", BOARD_FORMS)
@pytest.mark.parametrize("kind", MUTATIONS)
@settings(max_examples=6, deadline=None)
@given(where=st.floats(0.5, 1.0), method=st.sampled_from(["recursive", "cyclic"]))
def test_a_board_or_drawing_altered_is_never_passed_by_the_fast_path(tmp_path_factory, form, kind, where, method):
    """A right output, altered in one board or drawing far into it (once the fast path has learnt
    the port's way and takes whole stretches), gets the slow path's verdict to the letter: a false
    pass would be the fast path's alone."""
    _, sizes, write = FORMATS[form]
    n = sizes[method == "cyclic"]
    loaded = port(tmp_path_factory.mktemp("mutant") / "port", form)
    reference = list(METHODS[method].reference(n))
    parts = _cut(write(reference, n), b"\n\n" if form != "states from the top, out of order" else b"]\nPeg B")
    if form == "states from the top, out of order":
        parts = [part.removesuffix(b"Peg B") for part in parts]
        parts = [parts[0]] + [b"Peg B" + part for part in parts[1:]]
    at = min(int(where * len(parts)), len(parts) - 1)
    text = mutated(parts, kind, at)
    cell, reading = both(loaded, method, n, text)
    if kind in ("two discs swapped", "a disc's number changed") and text != write(reference, n):  # no tower reads so
        assert cell.outcome is not Outcome.PASS
    assert reading.taken > 0
