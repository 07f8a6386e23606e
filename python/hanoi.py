#!/usr/bin/env python3
"""The Tower of Hanoi in Python: n discs from position 0 to position 2 by three methods, and
the cyclic Tower of Hanoi: n discs from position 0 to position 1, each move one position on.

    python3 hanoi.py binary|recursive|iterative|cyclic N [--show]

The three classic methods print the same 2^N - 1 moves, one a line, in the words of COMP9021's
notes: "Move disk of size D from position S to position T", and, where the iterative method moves
the smallest disk, "Move smallest disk from position S to position T". cyclic prints the cyclic
puzzle's moves in the same words. --show draws the three stacks after each move, as the notes'
display_towers() does.

The moves stream out as they are made: memory stays O(N) whatever N is.

Below the program, the listings of the source documents keep their own names, signatures
and output, so the documents' examples run unchanged against this module:
b_toh, r_toh, i_toh (Tower of Hanoi notes, Python), recursive_towers, iterative_towers,
recursive_towers_display_solution (COMP9021 notes).
"""

import argparse
import signal
import sys


class Moves:
    """Prints each move as it is made."""

    def __init__(self, out):
        self.write = out.write

    def disk(self, disk, src, dst):
        self.write(f"Move disk of size {disk} from position {src} to position {dst}\n")

    def smallest(self, src, dst):
        self.write(f"Move smallest disk from position {src} to position {dst}\n")


class ShownMoves(Moves):
    """Prints each move, then the three stacks as they stand after it."""

    def __init__(self, n, out):
        super().__init__(out)
        self.stacks = list(range(n, 0, -1)), [], []
        self.width = 2 * n - 1
        self.write(drawing(self.stacks, self.width))

    def disk(self, disk, src, dst):
        super().disk(disk, src, dst)
        self._show(src, dst)

    def smallest(self, src, dst):
        super().smallest(src, dst)
        self._show(src, dst)

    def _show(self, src, dst):
        self.stacks[dst].append(self.stacks[src].pop())
        self.write(drawing(self.stacks, self.width))


def drawing(stacks, w):
    """The stacks side by side, a disk of size d drawn as 2d - 1 hyphens, centred in width w."""
    rows = (
        " ".join(f'{"-" * (stack[i] * 2 - 1) if i < len(stack) else "":^{w}}' for stack in stacks)
        for i in range(max(len(stack) for stack in stacks) - 1, -1, -1)
    )
    return "\n" + "".join(row + "\n" for row in rows) + "\n"


# region binary
def binary(n, moves):
    """The bitwise formula: move i goes from (i & i-1) % 3 to ((i | i-1) + 1) % 3 and moves disk
    1 + (trailing zero bits of i). The formula ends on position 1 when n is even, so for even n
    positions 1 and 2 swap names."""
    relabel = (0, 2, 1) if n % 2 == 0 else (0, 1, 2)
    for i in range(1, 1 << n):
        moves.disk((i & -i).bit_length(), relabel[(i & i - 1) % 3], relabel[((i | i - 1) + 1) % 3])
# endregion binary


# region recursive
def recursive(n, start_pos, end_pos, extra_pos, moves):
    """COMP9021's recursive_towers, each move given to moves as recursive_towers_variant gives it
    to w: move n - 1 disks out of the way, the largest to its place, the n - 1 disks back on top."""
    if n > 0:
        recursive(n - 1, start_pos, extra_pos, end_pos, moves)
        moves.disk(n, start_pos, end_pos)
        recursive(n - 1, extra_pos, end_pos, start_pos, moves)
# endregion recursive


# region iterative
def iterative(n, moves):
    """Every other move is the smallest disk's, always the same way round the ring (clockwise for
    even n); the move between is the only one left that does not involve it."""
    direction = -1 if n % 2 else 1
    stacks = list(range(n, 0, -1)), [], []
    small_disk_pos = 0
    for i in range((1 << n) - 1):
        if i % 2 == 0:
            new_small_disk_pos = (small_disk_pos + direction) % 3
            stacks[new_small_disk_pos].append(stacks[small_disk_pos].pop())
            moves.smallest(small_disk_pos, new_small_disk_pos)
            small_disk_pos = new_small_disk_pos
        else:
            from_pos, to_pos = (small_disk_pos + 1) % 3, (small_disk_pos + 2) % 3
            if not stacks[from_pos] or stacks[to_pos] and stacks[to_pos][-1] < stacks[from_pos][-1]:
                from_pos, to_pos = to_pos, from_pos
            disk = stacks[from_pos].pop()
            stacks[to_pos].append(disk)
            moves.disk(disk, from_pos, to_pos)
# endregion iterative


# region cyclic
def cyclic(n, moves, src=0, dst=1):
    """The cyclic Tower of Hanoi, after the article's transfer templates: a disk may only go from
    position p to position (p + 1) % 3. To the next position, n - 1 disks go two positions on,
    out of the way, the largest one on, and the n - 1 two on again, on top of it. Two positions on,
    the largest must go one on twice, and the n - 1 get out of its way three times."""
    if n == 0:
        return
    on = (src + 1) % 3
    if dst == on:
        cyclic(n - 1, moves, src, (dst + 1) % 3)
        moves.disk(n, src, dst)
        cyclic(n - 1, moves, (dst + 1) % 3, dst)
    else:
        cyclic(n - 1, moves, src, dst)
        moves.disk(n, src, on)
        cyclic(n - 1, moves, dst, src)
        moves.disk(n, on, dst)
        cyclic(n - 1, moves, src, dst)
# endregion cyclic


METHODS = {
    "binary": binary,
    "recursive": lambda n, moves: recursive(n, 0, 2, 1, moves),
    "iterative": iterative,
    "cyclic": cyclic,
}


def disc_count(text):
    """N as ASCII digits only: isdecimal() and int() alone take other scripts' digits too."""
    if not (text.isascii() and text.isdecimal()):
        raise argparse.ArgumentTypeError(f"N must be a whole number of disks, 0 or more, not {text!r}")
    return int(text)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="hanoi.py", description="Print the moves that take N disks from position 0 to position 2 (cyclic: to position 1, one position on at a time).")
    parser.add_argument("method", choices=METHODS)
    parser.add_argument("n", type=disc_count, metavar="N", help="the number of disks, 0 or more")
    parser.add_argument("--show", action="store_true", help="draw the stacks after each move")
    args = parser.parse_args(argv)
    sys.setrecursionlimit(max(1000, 2 * args.n + 100))
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends the program quietly, as it would cat
    with open(sys.stdout.fileno(), "w", encoding="utf-8", buffering=1 << 16, closefd=False) as out:
        METHODS[args.method](args.n, ShownMoves(args.n, out) if args.show else Moves(out))


# The listings of the Tower of Hanoi notes (Python), as the notes print them.

# binary
def disk_shift(rods: list, origin: int, target: int) -> None:
    rods[target].append(rods[origin].pop())
    for i in range(3):
        print(i, rods[i])


def b_toh(n: int) -> None:
    b_rods = [[*range(n, 0, -1)], [], []]
    for i in range(1, 1 << n):
        origin = (i & i - 1) % 3
        target = ((i | i - 1) + 1) % 3
        print("Move", i, format(i, "#0" + str(n + 2) + "b"))
        disk_shift(b_rods, origin, target)


# recursive, deps: disk_shift()
disks = 3
r_rods = [[*range(disks, 0, -1)], [], []]


def r_toh(n: int, origin: int, target: int, spare: int) -> None:
    if n > 0:
        r_toh(n - 1, origin, spare, target)
        print(n, "from", origin, "to", target)
        disk_shift(r_rods, origin, target)
        r_toh(n - 1, spare, target, origin)


# iterative, deps: disk_shift()
def legal(rods: list, a: int, b: int) -> (int, int):
    if not rods[a]:
        return b, a
    elif not rods[b]:
        return a, b
    elif rods[a][-1] < rods[b][-1]:
        return a, b
    else:
        return b, a


def i_toh(n: int) -> None:
    i_rods = [[*range(n, 0, -1)], [], []]
    while True:
        for i, j in zip([0, 0, 1], [1, 2, 2] if n % 2 == 0 else [2, 1, 2]):
            print(i, j)
            disk_shift(i_rods, *legal(i_rods, i, j))
            if len(i_rods[2]) == n:
                return None


# The listings of COMP9021's notes on the towers of Hanoi, as the notes print them.

def recursive_towers(n, start_pos, end_pos, extra_pos):
    if n > 1:
        recursive_towers(n - 1, start_pos, extra_pos, end_pos)
    print('Move disk of size', n, 'from position', start_pos,
          'to position', end_pos
          )
    if n > 1:
        recursive_towers(n - 1, extra_pos, end_pos, start_pos)


def iterative_towers(n, start_pos, end_pos, extra_pos):
    direction = -1 if n % 2 else 1
    stacks = list(range(n, 0, -1)), [], []
    small_disk_pos = 0
    for i in range(2 ** n - 1):
        if i % 2 == 0:
            new_small_disk_pos = (small_disk_pos + direction) % 3
            print('Move smallest disk from position', small_disk_pos,
                  'to position', new_small_disk_pos
                  )
            stacks[new_small_disk_pos].append(stacks[small_disk_pos].pop())
            small_disk_pos = new_small_disk_pos
        else:
            from_pos, to_pos =\
                (small_disk_pos + 1) % 3, (small_disk_pos + 2) % 3
            if not stacks[from_pos] or\
                    stacks[to_pos] and stacks[to_pos][-1] < stacks[from_pos][-1]:
                from_pos, to_pos = to_pos, from_pos
            print('Move disk of size', stacks[from_pos][-1],
                  'from position', from_pos, 'to position', to_pos
                  )
            stacks[to_pos].append(stacks[from_pos].pop())


def recursive_towers_variant(n, start_pos, end_pos, extra_pos, w):
    if n == 1:
        make_and_display_move(start_pos, end_pos, w)
    else:
        recursive_towers_variant(n - 1, start_pos, extra_pos, end_pos, w)
        make_and_display_move(start_pos, end_pos, w)
        recursive_towers_variant(n - 1, extra_pos, end_pos, start_pos, w)


def make_and_display_move(start_pos, end_pos, w):
    display_towers.__defaults__[end_pos].append(
        display_towers.__defaults__[start_pos].pop()
    )
    display_towers(w)


def display_towers(w, stack_1=[], stack_2=[], stack_3=[]):
    print(drawing((stack_1, stack_2, stack_3), w), end="")


def recursive_towers_display_solution(n):
    for stack in display_towers.__defaults__:
        stack.clear()
    display_towers.__defaults__[0].extend(range(n, 0, -1))
    w = 2 * n - 1
    display_towers(w)
    recursive_towers_variant(n, 0, 2, 1, w)


if __name__ == "__main__":
    main()
