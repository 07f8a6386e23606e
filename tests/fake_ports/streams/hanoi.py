"""The optimal moves as DISK SRC DST, written where the method says: recursive on standard error,
iterative a move on each stream in turn (each flushed as it is written), binary on standard error
too, though its manifest reads standard output, as a program that writes its moves there without
saying so would.

    python3 hanoi.py METHOD N
"""

import sys


def optimal(n, src=0, dst=2, spare=1):
    if n:
        yield from optimal(n - 1, src, spare, dst)
        yield n, src, dst
        yield from optimal(n - 1, spare, dst, src)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("binary", "recursive", "iterative") or not sys.argv[2].isascii() or not sys.argv[2].isdigit():
        print("usage: python3 hanoi.py binary|recursive|iterative N", file=sys.stderr)
        sys.exit(2)
    method, n = sys.argv[1], int(sys.argv[2])
    for number, move in enumerate(optimal(n)):
        stream = (sys.stdout, sys.stderr)[number % 2] if method == "iterative" else sys.stderr
        print(*move, file=stream, flush=True)


main()
