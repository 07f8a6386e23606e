"""Digests and the walk beside the reference: flat in memory, exact about where two sequences part."""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from harness.compare import CONTEXT, Divergence, StreamDigest, agreements
from harness.discover import load_port
from harness.model import CLASSIC, Cell, Finish, Move, Outcome
from harness.reading import CellReading

moves = st.lists(st.builds(Move, st.integers(1, 9), st.integers(0, 2), st.integers(0, 2)), max_size=9000)


@given(moves)
def test_digest_is_sha256_of_the_canonical_lines(sequence):
    digest = StreamDigest()
    for move in sequence:
        digest.update(move)
    text = "".join(f"{m.disk} {m.src} {m.dst}\n" for m in sequence)
    assert digest.hexdigest() == hashlib.sha256(text.encode()).hexdigest()


def walk(actual: list[Move], n: int = 4) -> Divergence:
    divergence, reference = Divergence(), CLASSIC.reference(n)
    for move in actual:
        if not divergence.feed(move, next(reference, None)):
            break
    else:
        divergence.finish(reference)
    return divergence


def test_the_same_moves_show_no_difference():
    divergence = walk(list(CLASSIC.reference(4)))
    assert divergence.at is None
    assert divergence.unified("a", "b") == []


@given(st.integers(0, 14), st.integers(0, 2), st.integers(0, 2))
def test_the_first_difference_is_found_with_context(index, src, dst):
    expected = list(CLASSIC.reference(4))
    changed = Move(None, src, dst)
    assume((changed.src, changed.dst) != (expected[index].src, expected[index].dst))
    actual = expected[:index] + [changed] + expected[index + 1 :]
    divergence = walk(actual)
    assert divergence.at == index + 1
    lines = divergence.unified("reference", "port")
    before = expected[max(0, index - CONTEXT) : index]
    after = expected[index : index + CONTEXT + 1]
    assert lines[:3] == ["--- reference", "+++ port", f"@@ -{index + 1 - len(before)},{len(before) + len(after)} "
                         f"+{index + 1 - len(before)},{len(before) + len(actual[index : index + CONTEXT + 1])} @@"]
    assert lines[3 : 3 + len(before)] == [f"  {m.canonical()}" for m in before]
    assert f"- {expected[index].canonical()}" in lines
    assert f"+ ? {src} {dst}" in lines


def test_a_port_that_stops_early_differs_where_it_stopped():
    expected = list(CLASSIC.reference(4))
    divergence = walk(expected[:5])
    assert divergence.at == 6
    assert divergence.unified("r", "p")[2:] == ["@@ -3,7 +3,3 @@"] + [f"  {m.canonical()}" for m in expected[2:5]] + [
        f"- {m.canonical()}" for m in expected[5:9]
    ]


def test_a_port_that_goes_on_differs_after_the_last_reference_move():
    expected = list(CLASSIC.reference(2))
    divergence = walk(expected + [Move(1, 2, 0)], n=2)
    assert divergence.at == 4
    assert divergence.unified("r", "p")[-1] == "+ 1 2 0"


def test_cells_agree_by_digest_per_n():
    cells = [
        Cell("a", "binary", 3, Outcome.PASS, digest="x"),
        Cell("b", "iterative", 3, Outcome.PASS, digest="x"),
        Cell("c", "recursive", 3, Outcome.FAIL, digest="y"),
        Cell("d", "recursive", 3, Outcome.ERROR),
        Cell("a", "binary", 4, Outcome.PASS, digest="z"),
    ]
    three, four = agreements(cells)
    assert (three.n, three.agrees, three.by_digest) == (3, False, {"x": ["a/binary", "b/iterative"], "y": ["c/recursive"]})
    assert (four.n, four.agrees) == (4, True)


REFERENCE_3 = ["1 0 2", "2 0 1", "1 2 1", "3 0 2", "1 1 0", "2 1 2", "1 0 2"]
LABELS = ["--- reference", "+++ port/recursive n={n}"]


def read_cell(tmp_path: Path, n: int, printed: list[str], fast: bool) -> Cell:
    """The cell a port printing ``printed`` gets, read as the harness reads it; the slow path (every
    line read) is forced by watching the moves."""
    folder = tmp_path / "port"
    folder.mkdir(exist_ok=True)
    (folder / "language.toml").write_text(
        'methods = ["recursive"]\ncommand = ["true", "{n}"]\n[output]\n'
        "patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']\npegs = [\"0\", \"1\", \"2\"]\n"
    )
    port = load_port(folder / "language.toml")
    cell = Cell(port.name, "recursive", n)
    reading = CellReading(cell, port.program("recursive"), None, None if fast else (lambda move: None), None)
    reading.read(iter(["".join(line + "\n" for line in printed).encode()]), lambda: False)
    reading.judge(Finish(failure=None, timed_out=False, stopped=False, evidence=""), timeout=0)
    return cell


def as_difflib(diff: list[str]) -> list[str]:
    """The harness writes a space after each line's mark, for legibility; difflib does not."""
    return diff[:3] + [line[0] + line[2:] for line in diff[3:]]


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize(
    ("n", "printed", "hunk"),
    [
        (1, [], ["@@ -1 +0,0 @@", "- 1 0 2"]),
        (1, ["1 0 1"], ["@@ -1 +1 @@", "- 1 0 2", "+ 1 0 1"]),
        (1, ["1 0 2", "1 2 0"], ["@@ -1 +1,2 @@", "  1 0 2", "+ 1 2 0"]),
        (3, [], ["@@ -1,4 +0,0 @@", *(f"- {move}" for move in REFERENCE_3[:4])]),
        (3, REFERENCE_3[1:], ["@@ -1,4 +1,4 @@", *(f"- {move}" for move in REFERENCE_3[:4]),
                              *(f"+ {move}" for move in REFERENCE_3[1:5])]),
        (3, REFERENCE_3[:5], ["@@ -3,5 +3,3 @@", *(f"  {move}" for move in REFERENCE_3[2:5]),
                              *(f"- {move}" for move in REFERENCE_3[5:])]),
        (3, [*REFERENCE_3, "1 2 1"], ["@@ -5,3 +5,4 @@", *(f"  {move}" for move in REFERENCE_3[4:]), "+ 1 2 1"]),
    ],
    ids=["n1-empty", "n1-wrong", "n1-extra", "n3-empty", "n3-missing-first", "n3-stops-early", "n3-extra"],
)
def test_failing_cell_diff_is_exact(tmp_path, fast, n, printed, hunk):
    cell = read_cell(tmp_path, n, printed, fast)
    assert cell.outcome is Outcome.FAIL
    assert cell.diff == [line.format(n=n) for line in LABELS] + hunk
    reference = REFERENCE_3 if n == 3 else ["1 0 2"]
    whole = list(difflib.unified_diff(reference, printed, "reference", f"port/recursive n={n}", n=CONTEXT, lineterm=""))
    if len(whole[3:]) == len(hunk) - 1:  # where the window holds the whole difference, it is difflib's own diff
        assert as_difflib(cell.diff) == whole
