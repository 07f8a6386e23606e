"""The board: legal streams pass, every kind of illegal move is caught at the move that breaks the rule."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from harness.errors import Violation
from harness.model import CLASSIC, CYCLIC, PEGS, Move
from harness.verify import Board

N = 6  # 63 optimal moves: room for random walks that are legal but not yet over the count


def textbook(n: int, src: int = 0, dst: int = 2, spare: int = 1):
    """The recursive definition, independent of the harness's reference."""
    if n:
        yield from textbook(n - 1, src, spare, dst)
        yield Move(n, src, dst)
        yield from textbook(n - 1, spare, dst, src)


def legal_moves(pegs: list[list[int]]) -> list[Move]:
    return [
        Move(pegs[src][-1], src, dst)
        for src in range(PEGS)
        for dst in range(PEGS)
        if src != dst and pegs[src] and (not pegs[dst] or pegs[dst][-1] > pegs[src][-1])
    ]


@st.composite
def legal_walks(draw, max_length: int = 40) -> list[Move]:
    """A random sequence of legal moves from the start, as a port that wanders might print."""
    pegs = [list(range(N, 0, -1)), [], []]
    walk = []
    for _ in range(draw(st.integers(0, max_length))):
        move = draw(st.sampled_from(legal_moves(pegs)))
        pegs[move.dst].append(pegs[move.src].pop())
        walk.append(move)
    return walk


@pytest.mark.parametrize("n", range(13))
def test_reference_is_the_textbook_sequence_and_solves(n):
    assert list(CLASSIC.reference(n)) == list(textbook(n))
    board = Board(n, CLASSIC)
    for move in CLASSIC.reference(n):
        board.play(move._replace(disk=None))
    board.finish()
    assert board.count == 2**n - 1


@given(legal_walks(), st.booleans())
def test_legal_moves_are_accepted_and_their_discs_named(walk, name_discs):
    board = Board(N, CLASSIC)
    for move in walk:
        assert board.play(move if name_discs else move._replace(disk=None)) == move
    assert board.count == len(walk)
    assert sorted(disk for peg in board.pegs for disk in peg) == list(range(1, N + 1))


@given(legal_walks(), st.data())
def test_a_move_onto_a_smaller_disc_is_caught(walk, data):
    board = Board(N, CLASSIC)
    for move in walk:
        board.play(move)
    pegs = board.pegs
    bad = [(s, d) for s in range(PEGS) for d in range(PEGS) if s != d and pegs[s] and pegs[d] and pegs[d][-1] < pegs[s][-1]]
    assume(bad)
    src, dst = data.draw(st.sampled_from(bad))
    with pytest.raises(Violation, match=rf"^move {len(walk) + 1} \(a disc from peg {src} to peg {dst}\): "
                       rf"puts disc {pegs[src][-1]} on smaller disc {pegs[dst][-1]}$"):
        board.play(Move(None, src, dst))


@given(legal_walks(), st.integers(0, PEGS - 1), st.integers(0, PEGS - 1))
def test_a_move_from_an_empty_peg_or_to_the_same_peg_is_caught(walk, src, dst):
    board = Board(N, CLASSIC)
    for move in walk:
        board.play(move)
    assume(src == dst or not board.pegs[src])
    rule = "source and target are the same peg" if src == dst else f"peg {src} is empty"
    with pytest.raises(Violation, match=rf"^move {len(walk) + 1} \(a disc from peg {src} to peg {dst}\): {rule}$"):
        board.play(Move(None, src, dst))


@given(legal_walks().filter(bool), st.integers(1, N + 3))
def test_a_wrong_disc_number_is_caught(walk, claimed):
    *before, last = walk
    board = Board(N, CLASSIC)
    for move in before:
        board.play(move)
    if claimed == last.disk:
        assert board.play(last._replace(disk=claimed)) == last
    else:
        with pytest.raises(Violation, match=rf"the top of peg {last.src} is disc {last.disk}, not disc {claimed}$"):
            board.play(last._replace(disk=claimed))


@given(legal_walks(max_length=30))
def test_an_unfinished_run_is_caught_at_the_end(walk):
    board = Board(N, CLASSIC)
    for move in walk:
        board.play(move)
    with pytest.raises(Violation, match=rf"^after {len(walk)} moves the discs are not all on peg 2: peg 0: "):
        board.finish()


def test_a_move_past_the_optimal_count_is_caught_when_it_is_made():
    board = Board(2, CLASSIC)
    for move in [Move(1, 0, 1), Move(1, 1, 0), Move(1, 0, 1)]:
        board.play(move)
    with pytest.raises(Violation, match=r"^move 4 \(disc 2 from peg 0 to peg 2\): more moves than the optimal 3 \(2\^n - 1\)$"):
        board.play(Move(2, 0, 2))


ARTICLE_TABLE = [1, 5, 15, 43, 119, 327, 895, 2447, 6687, 18271, 49919, 136383, 372607, 1017983, 2781183, 7598335]


def test_cyclic_count_is_the_articles_formula_and_table():
    """The article's table: ((1 + √3)^(n+1) − (1 − √3)^(n+1)) / (2√3) − 1 for n = 1..16."""
    root = 3**0.5
    for n, expected in enumerate(ARTICLE_TABLE, 1):
        assert CYCLIC.optimal_count(n) == expected == round(((1 + root) ** (n + 1) - (1 - root) ** (n + 1)) / (2 * root) - 1)
    assert CYCLIC.optimal_count(0) == 0


@pytest.mark.parametrize("n", range(11))
def test_cyclic_reference_moves_one_peg_on_and_solves_onto_peg_1(n):
    board = Board(n, CYCLIC)
    for move in CYCLIC.reference(n):
        assert move.dst == (move.src + 1) % PEGS
        board.play(move._replace(disk=None))
    board.finish()
    assert board.count == CYCLIC.optimal_count(n)
    assert board.pegs[1] == list(range(n, 0, -1))


@pytest.mark.parametrize("src, dst", [(0, 2), (1, 0), (2, 1)])
def test_a_cyclic_move_backwards_breaks_the_one_way_rule(src, dst):
    board = Board(3, CYCLIC)
    for move in list(CYCLIC.reference(3))[:3]:  # 1 0 1, 1 1 2, 2 0 1: a disc on every peg
        board.play(move)
    assert all(board.pegs)
    with pytest.raises(Violation, match=r"a disc may only go from peg p to peg \(p \+ 1\) mod 3$"):
        board.play(Move(None, src, dst))


def test_classic_moves_solve_the_classic_puzzle_but_not_the_cyclic_one():
    board = Board(2, CYCLIC)
    with pytest.raises(Violation, match=r"^move 1 \(disc 1 from peg 0 to peg 2\): a disc may only go"):
        board.play(Move(1, 0, 2))
