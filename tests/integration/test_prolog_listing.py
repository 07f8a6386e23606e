"""The book's hanoi/5, kept as printed in prolog/hanoi.pl, and its difference-list twin agree with each
other and with the port's streaming methods."""

from __future__ import annotations

import subprocess

from conftest import ROOT
from harness.model import CLASSIC

PEGS = ("left", "middle", "right")


def query(goal: str) -> str:
    done = subprocess.run(
        ["swipl", "-q", "-l", "hanoi.pl", "-g", goal, "-t", "halt"],
        cwd=ROOT / "prolog", capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_book_predicate_and_difference_list_give_the_reference_moves():
    for n in range(9):
        expected = [f"{PEGS[src]} to {PEGS[dst]}" for _, src, dst in CLASSIC.reference(n)]
        for predicate in ("hanoi", "hanoi_moves"):
            out = query(f"{predicate}({n}, left, middle, right, Moves), forall(member(M, Moves), (print(M), nl))")
            assert out.splitlines() == expected, (predicate, n)
