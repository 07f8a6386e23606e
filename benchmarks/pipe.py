#!/usr/bin/env python3
"""Whether the harness keeps up with the fastest port: ``harness compare`` of one cell beside the
port alone, its output read through a pipe by ``cat`` (and, for scale, sent to /dev/null), as whole
processes from the shell, at a small n and at large ones, taking turns. Subtracting the small n
takes out what either costs whatever n (the harness's start, the port's), so what is left is what
printing and reading the moves cost: the harness's growth over the port's is how much longer the
moves take to verify than to print. The harness's peak memory (its resident set, from ``wait4``)
is shown too.

    benchmarks/pipe.py                      # inside the virtual environment, from the checkout
    benchmarks/pipe.py --repeat 9

The cells are the C++ port's (the fastest): the recursive method at n = 0, 24 and 26, one move a
line, and the cyclic method at n = 2 and 12, drawings; and the harness's peak memory for the
recursive method at n = 10 beside n = 26. Each program is built first as the harness
builds it, and every command runs once untimed before the timed runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import statistics
import subprocess
import sys
from pathlib import Path

from startup import timed  # this folder's: each command timed the same way

from harness.discover import load_port
from harness.gate import Gate
from harness.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
HARNESS = str(Path(sys.executable).with_name("harness"))
MAX_MOVES = "100000000"
CELLS = {"recursive": (0, [24, 26]), "cyclic": (2, [12])}
"""Each method's small n, and the larger ones measured against it."""
MEMORY_N = (10, 26)
"""The recursive method's n whose peak memory is compared: flat in n, they are the same."""


def port_command(method: str, n: int) -> str:
    """The C++ port's program for the cell, built as the harness builds it, as a shell word list."""
    port = load_port(ROOT / "cpp" / "language.toml")
    program = port.program(method)
    with Gate(Settings()) as gate:
        return shlex.join(program.argv(method, n, gate.build(port, program, method, n, seconds=600)))


def main() -> None:
    """Build, warm every command once, time them in turns, and print the table and the growths."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    commands: dict[tuple[str, int, str], list[str]] = {}
    for method, (small, large) in CELLS.items():
        for n in (small, *large):
            commands[(method, n, "compare")] = _compare(method, n)
            commands[(method, n, "devnull")] = ["sh", "-c", f"exec {port_command(method, n)} > /dev/null"]
            commands[(method, n, "pipe")] = ["sh", "-c", f"{port_command(method, n)} | cat > /dev/null"]
    load = os.getloadavg()[0]
    for argv in commands.values():
        timed(argv, ROOT)
    runs: dict[tuple[str, int, str], list[float]] = {key: [] for key in commands}
    for _ in range(repeat):
        for key, argv in commands.items():
            runs[key].append(timed(argv, ROOT))
    peaks = {key: _peak(argv) for key, argv in commands.items() if key[2] == "compare"}
    median = {key: statistics.median(seconds) for key, seconds in runs.items()}
    print(f"{platform.node()}: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"load average {load:.2f} at the start, {os.getloadavg()[0]:.2f} at the end; median of {repeat} runs (range)")
    print("| method | n | the port to /dev/null, s | the port through a pipe, s | `harness compare`, s | harness peak MiB |")
    print("| --- | --- | --- | --- | --- | --- |")
    for method, (small, large) in CELLS.items():
        for n in (small, *large):
            print(f"| {method} | {n} | {_figure(runs[(method, n, 'devnull')])} | {_figure(runs[(method, n, 'pipe')])} | {_figure(runs[(method, n, 'compare')])} "
                  f"| {peaks[(method, n, 'compare')]:.1f} |")
    for method, (small, large) in CELLS.items():
        for n in large:
            port = median[(method, n, "pipe")] - median[(method, small, "pipe")]
            harness = median[(method, n, "compare")] - median[(method, small, "compare")]
            print(f"{method}, n = {small} to {n}: the port grows {port:.3f} s, compare {harness:.3f} s, {harness / port:.2f} times as much")
    low, high = (_peak(_compare("recursive", n)) for n in MEMORY_N)
    print(f"the harness's peak memory, recursive: {low:.1f} MiB at n = {MEMORY_N[0]}, {high:.1f} MiB at n = {MEMORY_N[1]}")


def _compare(method: str, n: int) -> list[str]:
    return [HARNESS, "compare", "--n", str(n), "-l", "cpp", "-m", method, "--max-moves", MAX_MOVES, "--format", "plain"]


def _figure(seconds: list[float]) -> str:
    return f"{statistics.median(seconds):.3f} ({min(seconds):.3f}-{max(seconds):.3f})"


def _peak(argv: list[str]) -> float:
    """The peak resident MiB of one more run of ``argv``: its largest process, the harness."""
    process = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(process.pid, 0)
    return usage.ru_maxrss / 1024


if __name__ == "__main__":
    main()
