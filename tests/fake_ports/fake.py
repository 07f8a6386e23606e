"""A port that gets one thing wrong on purpose, to show that the harness reports it rightly.

    python3 fake.py FAULT METHOD N

It prints the optimal moves as ``DISK SRC DST`` and breaks them as FAULT says.
"""

import sys
import time


def optimal(n, src=0, dst=2, spare=1):
    if n:
        yield from optimal(n - 1, src, spare, dst)
        yield n, src, dst
        yield from optimal(n - 1, spare, dst, src)


def moves(fault, n):
    if fault == "detour":  # legal, but two moves more than the optimal
        yield from ((1, 0, 1), (1, 1, 0))
    for number, (disk, src, dst) in enumerate(optimal(n), 1):
        if number == 2 and fault == "illegal":  # disk 2 onto disk 1, on the peg it should avoid
            yield disk, src, 3 - src - dst
        elif number == 2 and fault == "wrong-disk":  # the right pegs, the wrong disc named
            yield disk + 1, src, dst
        else:
            yield disk, src, dst
        if number == 2 and fault == "garbage":
            print("the quick brown fox")
        if number == 2 and fault == "crash":
            sys.stdout.flush()
            print("fake: simulated crash", file=sys.stderr)
            sys.exit(3)
        if number == 1 and fault == "hang":
            sys.stdout.flush()
            time.sleep(3600)


def main():
    fault, _method, n = sys.argv[1:]
    for number, (disk, src, dst) in enumerate(moves(fault, int(n)), 1):
        if number == 1 and fault == "huge-disc":  # past Python's int() limit of 4300 digits
            disk = "1" + "0" * 4999
        elif number == 1 and fault == "arabic-disc":  # int() reads ARABIC-INDIC DIGIT ONE as 1
            disk = "\u0661"
        print(disk, src, dst)


main()
