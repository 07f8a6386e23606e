"""The fast path (comparing a port's bytes with its own wording of the reference) must reach exactly
the verdicts, details, diffs and digests of reading every line, whatever the output: it is checked
here against the slow path, which the on_move callback forces, on outputs corrupted anywhere."""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from harness.discover import load_port
from harness.evaluate import _Reading
from harness.expect import STRETCH_MOVES, reference_digest
from harness.model import CLASSIC, CYCLIC, Cell, Finish, Move, Outcome
from harness.runners.process import PortProcess

N = 14  # 16383 moves: several stretches, so most of the output is taken by the fast path
MANIFEST = """
methods = ["recursive", "cyclic"]
command = ["true", "{method}", "{n}"]
[output]
patterns = ['{pattern}']
pegs = ["A", "B", "C"]
"""
WITH_DISC = r"(?P<disk>\d+) (?P<src>[ABC]) (?P<dst>[ABC])"
WITHOUT_DISC = r"move (?P<src>[ABC]) to (?P<dst>[ABC])"


def port(tmp_path: Path, pattern: str):
    folder = tmp_path / "port"
    folder.mkdir(exist_ok=True)
    (folder / "language.toml").write_text(MANIFEST.replace("{pattern}", pattern))
    loaded = load_port(folder / "language.toml")
    assert loaded.manifest_error is None, loaded.manifest_error
    return loaded


def write(move: Move, with_disc: bool) -> bytes:
    src, dst = "ABC"[move.src], "ABC"[move.dst]
    return (f"{move.disk} {src} {dst}" if with_disc else f"move {src} to {dst}").encode()


def judge(loaded, method: str, lines: list[bytes], fast: bool) -> Cell:
    cell = Cell(loaded.name, method, N)
    reading = _Reading(cell, loaded.program(method), None, None if fast else (lambda move: None), None)
    text = b"".join(line + b"\n" for line in lines)
    reading.read(iter([text[i:i + 65536] for i in range(0, len(text), 65536)]), lambda: False)
    reading.judge(Finish(failure=None, timed_out=False, stopped=False, evidence=""), timeout=0)
    return cell


def verdict(cell: Cell) -> tuple:
    return cell.outcome, cell.detail, cell.diff, cell.digest, cell.moves


corruption = st.sampled_from(["replace", "delete", "insert", "duplicate", "truncate", "garbage"])


@settings(max_examples=25, deadline=None)
@given(
    index=st.integers(0, (1 << N) - 2), kind=corruption, with_disc=st.booleans(),
    method=st.sampled_from(["recursive", "cyclic"]), spare=st.integers(0, 5),
)
def test_the_fast_path_reaches_the_slow_paths_verdict(tmp_path_factory, index, kind, with_disc, method, spare):
    loaded = port(tmp_path_factory.mktemp("fast"), WITH_DISC if with_disc else WITHOUT_DISC)
    rules = CYCLIC if method == "cyclic" else CLASSIC
    reference = list(rules.reference(N))
    index %= len(reference)
    lines = [write(move, with_disc) for move in reference]
    other = Move(reference[index].disk, *[(a, b) for a in range(3) for b in range(3) if a != b][spare])
    if kind == "replace":
        lines[index] = write(other, with_disc)
    elif kind == "delete":
        del lines[index]
    elif kind == "insert":
        lines.insert(index, write(other, with_disc))
    elif kind == "duplicate":
        lines.insert(index, lines[index])
    elif kind == "truncate":
        del lines[index:]
    elif kind == "garbage":
        lines.insert(index, b"the quick brown fox")
    fast, slow = judge(loaded, method, lines, fast=True), judge(loaded, method, lines, fast=False)
    assert verdict(fast) == verdict(slow)


def test_a_correct_output_passes_by_the_fast_path_with_the_reference_digest(tmp_path):
    loaded = port(tmp_path, WITH_DISC)
    lines = [write(move, True) for move in CLASSIC.reference(N)]
    fast, slow = judge(loaded, "recursive", lines, fast=True), judge(loaded, "recursive", lines, fast=False)
    assert fast.outcome is Outcome.PASS
    assert verdict(fast) == verdict(slow)


def test_a_late_difference_is_named_by_move_number_inside_a_fast_stretch(tmp_path):
    loaded = port(tmp_path, WITH_DISC)
    reference = list(CLASSIC.reference(N))
    at = 13000  # far past the first stretches, which teach the wording
    assert at > 3 * STRETCH_MOVES
    lines = [write(move, True) for move in reference]
    while reference[at].disk == 1:  # a larger disc, so that the wrong move is itself illegal
        at += 1
    wrong = reference[at]
    lines[at] = write(Move(wrong.disk, wrong.src, 3 - wrong.src - wrong.dst), True)
    cell = judge(loaded, "recursive", lines, fast=True)
    assert cell.outcome is Outcome.FAIL
    assert cell.detail.startswith(f"line {at + 1}: move {at + 1} (disc {wrong.disk} from peg {wrong.src} to peg ")
    assert cell.diff[2].startswith(f"@@ -{at + 1 - 3},")
    assert cell.diff[6] == f"- {wrong.canonical()}"


def test_moves_written_two_ways_still_pass(tmp_path):
    """A port may write the same move differently at different times: the bytes then differ from the
    wording learnt first, and the lines are read one by one instead."""
    loaded = port(tmp_path, r"(?P<disk>\d+) +(?P<src>[ABC]) (?P<dst>[ABC])")
    lines = [write(move, True) for move in CLASSIC.reference(N)]
    for index in range(0, len(lines), 97):
        lines[index] = lines[index].replace(b" ", b"   ", 1)
    fast = judge(loaded, "recursive", lines, fast=True)
    assert fast.outcome is Outcome.PASS
    assert verdict(fast) == verdict(judge(loaded, "recursive", lines, fast=False))


def test_the_reference_digest_is_sha256_of_the_reference_moves():
    for rules in (CLASSIC, CYCLIC):
        for n in (0, 1, 5, 13):
            text = "".join(f"{move.canonical()}\n" for move in rules.reference(n))
            assert reference_digest(rules, n) == hashlib.sha256(text.encode()).hexdigest()


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
