"""The recursive Tower of Hanoi, its moves printed as one Python list on one line, the way print()
shows a list, but written as they are made: [(1, 0, 2), (2, 0, 1), (1, 2, 1), ...]."""

import sys


def moves(discs, source, target):
    if discs:
        spare = 3 - source - target
        yield from moves(discs - 1, source, spare)
        yield discs, source, target
        yield from moves(discs - 1, spare, target)


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isdigit():
        sys.exit("usage: hanoi.py N")
    out = sys.stdout
    out.write("[")
    for index, move in enumerate(moves(int(sys.argv[1]), 0, 2)):
        out.write(f"{', ' if index else ''}{move}")
    out.write("]\n")


main()
