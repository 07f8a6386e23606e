"""The Python port's b_toh, which keeps the notes' formula as printed, run as a port.

Its own output is the rods after each move; here disk_shift prints the move it makes instead,
and the "Move i 0b..." headers are left out. Nothing else of the listing changes.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "python"))
import hanoi  # noqa: E402


def disk_shift(rods, origin, target):
    rods[target].append(rods[origin].pop())
    print(origin, target)


hanoi.disk_shift = disk_shift
hanoi.print = lambda *args: None
hanoi.b_toh(int(sys.argv[2]))
