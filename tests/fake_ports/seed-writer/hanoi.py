"""The optimal moves as DISK SRC DST, after writing a fresh .Random.seed into the folder it runs in,
as ALGOL 68 Genie does on every run: what a program leaves in its folder is no part of its build.

    python3 program N   (the build's copy of this file)
"""

import os
import sys


def optimal(n, src=0, dst=2, spare=1):
    if n:
        yield from optimal(n - 1, src, spare, dst)
        yield n, src, dst
        yield from optimal(n - 1, spare, dst, src)


def main():
    if len(sys.argv) != 2 or not sys.argv[1].isascii() or not sys.argv[1].isdigit():
        print("usage: python3 program N", file=sys.stderr)
        sys.exit(2)
    try:
        with open(".Random.seed", "wb") as seed:  # where the folder is read-only (a sandbox), there is no seed
            seed.write(os.urandom(16))
    except OSError:
        pass
    for move in optimal(int(sys.argv[1])):
        print(*move)


main()
