"""The optimal moves as DISK SRC DST, for an n given as the program's own form says:

    python3 hanoi.py unary +++      n in unary, one + a disc
    python3 hanoi.py discs [1,2,3]  n as the list of its discs
    python3 hanoi.py fixed          n = 4, written here, as a program built for one n is
"""

import re
import sys

FIXED = 4


def optimal(n, src=0, dst=2, spare=1):
    if n:
        yield from optimal(n - 1, src, spare, dst)
        yield n, src, dst
        yield from optimal(n - 1, spare, dst, src)


def discs(argv):
    """n from the arguments, None where they are not the form's."""
    if argv[:1] == ["fixed"] and len(argv) == 1:
        return FIXED
    if argv[:1] == ["unary"] and len(argv) == 2 and re.fullmatch(r"\+*", argv[1]):
        return len(argv[1])
    if argv[:1] == ["discs"] and len(argv) == 2 and re.fullmatch(r"\[(?:[0-9]+(?:,[0-9]+)*)?\]", argv[1]):
        listed = [int(disc) for disc in argv[1].strip("[]").split(",") if disc]
        return len(listed) if listed == list(range(1, len(listed) + 1)) else None
    return None


def main():
    n = discs(sys.argv[1:])
    if n is None:
        print("usage: python3 hanoi.py unary +++ | discs [1,2,3] | fixed", file=sys.stderr)
        sys.exit(2)
    for move in optimal(n):
        print(*move)


main()
