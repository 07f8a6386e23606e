#!/usr/bin/env python3
"""What a move, a board and a drawing cost the harness to read: each cell's output is captured
once, through the harness's own runner, then read from memory as ``compare`` reads it (the fast
path, where the bytes are known in advance) and line by line (the slow path alone); medians of the
runs, in CPU seconds of the harness's process (steadier than wall time on a busy machine, and the
reading uses one core) and in microseconds a move. Nothing of the port's time is in it.

    benchmarks/reading.py                   # inside the virtual environment, from the checkout
    benchmarks/reading.py --repeat 5 --slow-repeat 1
    benchmarks/reading.py --cell python:recursive:20:moves --cell rust:recursive:20:moves --slow-repeat 0

The cells: the C++ port's recursive method at n = 20 (a move a line) and its cyclic method at n = 12
(the cyclic article's drawings), and the C port's recursive method at n = 20 (the board after each
move).
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from harness.discover import load_port
from harness.evaluate import judge_output
from harness.gate import Gate
from harness.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
CELLS = [("cpp", "recursive", 20, "moves"), ("cpp", "cyclic", 12, "drawings"), ("c", "recursive", 20, "boards")]
BLOCK = 1 << 17


def captured(name: str, method: str, n: int) -> bytes:
    """What the port prints for the cell, through the harness's runner."""
    port = load_port(ROOT / name / "language.toml")
    settings = Settings(timeout=600)
    with Gate(settings) as gate, gate.start(port, method, n, settings) as process:
        output = b"".join(process.output())
        process.finish()
    return output


def seconds(name: str, method: str, n: int, output: bytes, fast: bool) -> tuple[float, int]:
    """How long the harness takes to read and verify the output, and the moves it found."""
    port = load_port(ROOT / name / "language.toml")
    blocks = [output[at:at + BLOCK] for at in range(0, len(output), BLOCK)]
    started = time.process_time()
    cell = judge_output(port, method, n, iter(blocks), fast)
    took = time.process_time() - started
    assert cell.outcome.value == "pass", (cell.outcome, cell.detail)
    return took, cell.moves


def main() -> None:
    """The table of each cell: its fast and slow readings, medians."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed readings by the fast path")
    parser.add_argument("--slow-repeat", type=int, default=1, help="timed readings by the slow path alone (0: none)")
    parser.add_argument("--cell", action="append", help="PORT:METHOD:N:KIND, instead of the three cells above")
    given = parser.parse_args()
    cells = [(name, method, int(n), kind) for name, method, n, kind in (cell.split(":") for cell in given.cell)] if given.cell else CELLS
    print("| output | cell | MB | moves | fast path, CPU s | µs a move | slow path, CPU s | µs a move |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, method, n, kind in cells:
        output = captured(name, method, n)
        fast = [seconds(name, method, n, output, fast=True) for _ in range(given.repeat)]
        slow = [seconds(name, method, n, output, fast=False) for _ in range(given.slow_repeat)]
        moves = fast[0][1]
        quick = statistics.median(took for took, _ in fast)
        full = f"{statistics.median(took for took, _ in slow):.2f} | {statistics.median(took for took, _ in slow) / moves * 1e6:.1f}" if slow else "– | –"
        print(f"| {kind} | {name} {method} n={n} | {len(output) / 1e6:.1f} | {moves:,} | {quick:.3f} | {quick / moves * 1e6:.2f} | {full} |")


if __name__ == "__main__":
    main()
