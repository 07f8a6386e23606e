"""Discs drawn as rings, the smallest first: °, o, O, ( ); pegs named left, middle and right.

    python3 hanoi.py METHOD N

recursive prints the board after each move, a tower a line (bottom first) and a blank line;
iterative prints each move, "move o from left to middle"; cyclic draws the cyclic article's rows,
each slot a ring right-aligned in hyphens. binary moves the discs to the middle peg, as a listing
that mixes up its pegs does: its diagnosis names the pegs as this program does.
"""

import sys

RINGS = ["°", "o", "O", "( )"]
PEGS = ["left", "middle", "right"]


def optimal(n, src=0, dst=2, spare=1):
    if n:
        yield from optimal(n - 1, src, spare, dst)
        yield n, src, dst
        yield from optimal(n - 1, spare, dst, src)


def cyclic(n, src, dst):
    """The cyclic article's moves: every one a peg on, 0 -> 1 -> 2 -> 0."""
    if not n:
        return
    if dst == (src + 1) % 3:
        yield from cyclic(n - 1, src, (dst + 1) % 3)
        yield n, src, dst
        yield from cyclic(n - 1, (dst + 1) % 3, dst)
    else:
        yield from cyclic(n - 1, src, dst)
        yield n, src, (src + 1) % 3
        yield from cyclic(n - 1, dst, src)
        yield n, (src + 1) % 3, dst
        yield from cyclic(n - 1, src, dst)


def draw(pegs, width):
    for name, tower in zip("ABC", pegs):
        slots = [RINGS[disc - 1].rjust(width, "-") for disc in reversed(tower)]
        print("".join(slots).rjust(width * sum(map(len, pegs)), "-") + "|" + name)
    print()


def main():
    method, n = sys.argv[1], sys.argv[2]
    if method not in ("binary", "recursive", "iterative", "cyclic") or not n.isascii() or not n.isdigit() or int(n) > len(RINGS):
        print("usage: python3 hanoi.py binary|recursive|iterative|cyclic N (N at most 4)", file=sys.stderr)
        sys.exit(2)
    n = int(n)
    pegs = [list(range(n, 0, -1)), [], []]
    width = max((len(RINGS[disc - 1]) for disc in range(1, n + 1)), default=1) + 1
    if method == "cyclic":
        draw(pegs, width)
    moves = cyclic(n, 0, 1) if method == "cyclic" else optimal(n, 0, 1, 2) if method == "binary" else optimal(n)
    for disc, src, dst in moves:
        pegs[dst].append(pegs[src].pop())
        if method == "iterative":
            print(f"move {RINGS[disc - 1]} from {PEGS[src]} to {PEGS[dst]}")
        elif method == "cyclic":
            draw(pegs, width)
        else:
            for name, tower in zip(PEGS, pegs):
                print(f"{name}: " + " ".join(RINGS[disc - 1] for disc in tower))
            print()


main()
