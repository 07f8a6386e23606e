"""A port that attacks the harness rather than the puzzle, to show that the harness survives it.

    python3 hostile.py ATTACK N

Where it prints moves, they are the optimal ones, as ``DISK SRC DST``.
"""

import os
import signal
import subprocess
import sys
import time

BLOCK = b"x" * (1 << 20)


def optimal(n, src=0, dst=2, spare=1):
    if n:
        yield from optimal(n - 1, src, spare, dst)
        yield n, src, dst
        yield from optimal(n - 1, spare, dst, src)


def print_moves(n):
    for disk, src, dst in optimal(n):
        print(disk, src, dst)
    sys.stdout.flush()


def holder(new_session):
    """A child that keeps this process's stdout and stderr open for ten minutes."""
    return subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=new_session
    )


def main():
    attack, n = sys.argv[1], int(sys.argv[2])
    out = sys.stdout.buffer
    if attack == "endless-line":  # one line that never ends
        out.write(b"1 0 2\n")
        while True:
            out.write(BLOCK)
    elif attack == "long-line":  # 50 MB in one line, then a move
        out.write(b"1 0 2\n")
        for _ in range(50):
            out.write(BLOCK)
        out.write(b"\n1 0 1\n")
    elif attack == "stderr-flood":  # 300 MB of stderr in one line, then a crash
        print_moves(n)
        for _ in range(300):
            sys.stderr.buffer.write(BLOCK)
        sys.stderr.buffer.write(b"\nhostile: the last line says what went wrong\n")
        sys.exit(1)
    elif attack == "setsid-holder":  # a grandchild in a session of its own holds the pipes; the port hangs
        print_moves(n)
        holder(new_session=True)
        time.sleep(600)
    elif attack == "background-holder":  # all the right moves, exit 0 at once, a child holds stdout
        print_moves(n)
        holder(new_session=True)
    elif attack == "segfault":
        print_moves(n)
        os.kill(os.getpid(), signal.SIGSEGV)
    elif attack == "backtracking":  # a line that a badly written pattern takes for ever to refuse
        out.write(b"a" * 5000 + b"\n")
    else:
        sys.exit(f"hostile: unknown attack {attack}")


main()
