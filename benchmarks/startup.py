#!/usr/bin/env python3
"""What a user waits for, as whole processes from the shell, side by side in one run: the harness's
own start (``harness --version``), one cell through ``compare`` beside the port alone, ``compare
--n 5`` of every port, the Python port at n = 20 through ``compare`` beside the port alone, and the
classic matrix at n = 20 with ``--jobs 1`` and ``--jobs 2``. Two figures no harness code can go
below: the harness's interpreter starting and exiting with nothing to do, and the port at n = 20
with its output read through a pipe, as any reader of it must. Each figure is the median of
``--repeat`` runs, taking turns, with its range, and the machine. Every command runs once first,
untimed; Python caches its bytecode then, as it does by default (PYTHONDONTWRITEBYTECODE, which
some machines set, is left out of the commands' environment).

    benchmarks/startup.py                  # inside the virtual environment, from the checkout
    benchmarks/startup.py --repeat 9
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = str(Path(sys.executable).with_name("harness"))
PYTHON_PORT = ["python3", "hanoi.py", "recursive"]
ENVIRONMENT = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}


def figures() -> dict[str, tuple[list[str], Path]]:
    """Each measured command, and where it runs."""
    return {
        "harness --version": ([HARNESS, "--version"], ROOT),
        "harness --help": ([HARNESS, "--help"], ROOT),
        "python recursive n=0, alone": ([*PYTHON_PORT, "0"], ROOT / "python"),
        "compare --n 0 -l python -m recursive": ([HARNESS, "compare", "--n", "0", "-l", "python", "-m", "recursive"], ROOT),
        "compare --n 5 (every port)": ([HARNESS, "compare", "--n", "5"], ROOT),
        "compare --n 5 without sql": ([HARNESS, "compare", "--n", "5", "-l", "bash,cpp,prolog,python"], ROOT),
        "python recursive n=20, alone": ([*PYTHON_PORT, "20"], ROOT / "python"),
        "python recursive n=20, read through a pipe": (["sh", "-c", f"{' '.join(PYTHON_PORT)} 20 | cat"], ROOT / "python"),
        "the harness's Python, doing nothing": ([sys.executable, "-c", "pass"], ROOT),
        "compare --n 20 -l python -m recursive": ([HARNESS, "compare", "--n", "20", "-l", "python", "-m", "recursive"], ROOT),
        "matrix n=20, --jobs 1": ([HARNESS, "compare", "--n", "20", "-m", "binary,recursive,iterative", "--jobs", "1"], ROOT),
        "matrix n=20, --jobs 2": ([HARNESS, "compare", "--n", "20", "-m", "binary,recursive,iterative", "--jobs", "2"], ROOT),
    }


def timed(argv: list[str], folder: Path) -> float:
    """The seconds one run of ``argv`` took, as the shell sees it; a failed run stops the benchmark."""
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=folder, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENVIRONMENT)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv)} exited with {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds


def main() -> None:
    """Warm every command once, then time them in turns and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5)
    repeat = parser.parse_args().repeat
    if shutil.which("python3") is None:
        sys.exit("the Python port needs python3 on PATH")
    commands = figures()
    for argv, folder in commands.values():  # once each, untimed: caches warm, builds made
        timed(argv, folder)
    runs: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, (argv, folder) in commands.items():
            runs[name].append(timed(argv, folder))
    medians = {name: statistics.median(seconds) for name, seconds in runs.items()}
    print(f"{platform.node()}: {os.cpu_count()} cores, {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.2f}; median of {repeat} runs (range)")
    print("| command | seconds |")
    print("| --- | --- |")
    for name, seconds in runs.items():
        print(f"| {name} | {medians[name]:.3f} ({min(seconds):.3f}-{max(seconds):.3f}) |")
    for through, alone in (("compare --n 0 -l python -m recursive", "python recursive n=0, alone"),
                           ("compare --n 20 -l python -m recursive", "python recursive n=20, alone"),
                           ("python recursive n=20, read through a pipe", "python recursive n=20, alone")):
        print(f"{through}: the port alone + {medians[through] - medians[alone]:.3f} s, {medians[through] / medians[alone]:.2f} times")
    speedup = medians["matrix n=20, --jobs 1"] / medians["matrix n=20, --jobs 2"]
    print(f"matrix n=20: --jobs 1 takes {speedup:.2f} times as long as --jobs 2")


if __name__ == "__main__":
    main()
