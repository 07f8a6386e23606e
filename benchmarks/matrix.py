#!/usr/bin/env python3
"""The whole matrix against its slowest cell, and what a second job buys, in one run on one machine.

First ``harness bench`` times every cell of the matrix, each port alone and each cell through the
harness, one after another. Then the whole matrix runs through ``harness compare`` with ``--jobs 1``
and with ``--jobs 2``, taking turns, several times, and so does the slowest cell alone. The figures
are medians, each with its range and the load average before it: the machine may be shared.

Two bounds put the matrix's figure in proportion: it cannot beat its slowest port alone, and on C
cores it cannot beat the ports' summed CPU seconds over C.

    benchmarks/matrix.py                       # inside the virtual environment: n = 20, the classic methods
    benchmarks/matrix.py --repeat 5 --json docs/matrix.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="discs (default 20)")
    parser.add_argument("--method", default="binary,recursive,iterative", help="methods (default: the classic ones)")
    parser.add_argument("--port", default=None, help="ports, comma-separated (default: all)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs of each command (default 3)")
    parser.add_argument("--json", type=Path, default=None, help="also write every figure to this file")
    options = parser.parse_args()
    harness = shutil.which("harness")
    if harness is None:
        print("matrix.py: no harness command on PATH: activate the virtual environment (. .venv/bin/activate)", file=sys.stderr)
        return 2
    choice = ["--n", str(options.n), "--method", options.method] + (["--port", options.port] if options.port else [])
    machine = {"cpu": _cpu_model(), "cores": os.cpu_count(), "os": f"{platform.system()} {platform.release()}", "load_start": os.getloadavg()}
    print(f"{machine['cpu']}, {machine['cores']} cores, {machine['os']}; load average at start {_load(machine['load_start'])}", flush=True)

    cells = _bench(harness, choice, options.repeat)
    timed = [cell for cell in cells if cell["status"] == "timed"]
    if len(timed) != len(cells):
        for cell in cells:
            if cell["status"] != "timed":
                print(f"{cell['port']}/{cell['method']}: {cell['status']}: {cell['detail']}", file=sys.stderr)
        return 1
    slowest = max(timed, key=lambda cell: cell["wall_median"])
    cpu = sum(cell["cpu_median"] or cell["wall_median"] for cell in timed)
    print(f"\n{len(timed)} cells, by harness bench (median of {options.repeat}):")
    for cell in sorted(timed, key=lambda cell: -cell["wall_median"]):
        print(f"  {cell['port']:>8}/{cell['method']:<10} port alone {cell['wall_median']:7.3f} s, through the harness {cell['compare_median']:7.3f} s")

    commands = {
        "matrix, --jobs 1": [harness, "compare", *choice, "--jobs", "1", "--format", "plain"],
        "matrix, --jobs 2": [harness, "compare", *choice, "--jobs", "2", "--format", "plain"],
        "slowest cell alone": [harness, "compare", "--n", str(options.n), "--port", slowest["port"], "--method", slowest["method"], "--format", "plain"],
    }
    runs: dict[str, list[dict]] = {name: [] for name in commands}
    for _ in range(options.repeat):  # taking turns, so that a change in the machine's load falls on all alike
        for name, argv in commands.items():
            runs[name].append(_timed(argv))

    print(f"\nharness compare, median of {options.repeat} (range; load average before each run):")
    medians = {}
    for name, found in runs.items():
        walls = [run["wall"] for run in found]
        medians[name] = statistics.median(walls)
        loads = ", ".join(f"{run['load']:.2f}" for run in found)
        print(f"  {name:<20} {medians[name]:7.2f} s ({min(walls):.2f}–{max(walls):.2f}; load {loads})")
    cores = machine["cores"] or 1
    floor = max(slowest["wall_median"], cpu / cores)
    figures = {
        "slowest_cell": f"{slowest['port']}/{slowest['method']}",
        "slowest_port_alone": slowest["wall_median"],
        "ports_cpu_seconds": cpu,
        "floor": floor,
        "matrix_over_slowest_port_alone": medians["matrix, --jobs 2"] / slowest["wall_median"],
        "matrix_over_slowest_cell_alone": medians["matrix, --jobs 2"] / medians["slowest cell alone"],
        "matrix_over_floor": medians["matrix, --jobs 2"] / floor,
        "jobs_speedup": medians["matrix, --jobs 1"] / medians["matrix, --jobs 2"],
    }
    machine["load_end"] = os.getloadavg()
    print(
        f"\nslowest cell: {figures['slowest_cell']}, its port alone {slowest['wall_median']:.2f} s; the ports' CPU seconds, all cells: {cpu:.2f} s,"
        f" so on {cores} cores the matrix cannot take less than {floor:.2f} s\n"
        f"matrix (--jobs 2) / slowest port alone: {figures['matrix_over_slowest_port_alone']:.2f} (target 1.2)\n"
        f"matrix (--jobs 2) / slowest cell alone through compare: {figures['matrix_over_slowest_cell_alone']:.2f}\n"
        f"matrix (--jobs 2) / the floor: {figures['matrix_over_floor']:.2f}\n"
        f"--jobs 1 / --jobs 2: {figures['jobs_speedup']:.2f} (target 1.6)\n"
        f"load average at end {_load(machine['load_end'])}"
    )
    if options.json:
        options.json.write_text(json.dumps({"machine": machine, "repeat": options.repeat, "cells": timed, "runs": runs, "figures": figures}, indent=2) + "\n")
    return 0


def _bench(harness: str, choice: list[str], repeat: int) -> list[dict]:
    """Every cell's figures from one ``harness bench`` run, read back from its JSON report."""
    with tempfile.TemporaryDirectory(prefix="hanoi-matrix-") as folder:
        report = Path(folder) / "bench.json"
        subprocess.run([harness, "bench", *choice, "--repeat", str(repeat), "--json", str(report)], stdout=subprocess.DEVNULL, check=False)
        if not report.exists():
            sys.exit("matrix.py: harness bench wrote no report")
        return json.loads(report.read_text())["cells"]


def _timed(argv: list[str]) -> dict:
    """One run of a command, its wall seconds and the load average (one minute) just before it;
    the matrix must pass, or its time means nothing."""
    load = os.getloadavg()[0]
    started = time.perf_counter()
    result = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    wall = time.perf_counter() - started
    if result.returncode:
        sys.exit(f"matrix.py: {' '.join(argv[1:])} exited with code {result.returncode}: {result.stderr.decode(errors='replace')[-400:]}")
    return {"wall": wall, "load": load}


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            return next((line.split(":", 1)[1].strip() for line in cpuinfo if line.startswith("model name")), platform.processor())
    except OSError:
        return platform.processor() or "unknown CPU"


def _load(load: tuple[float, float, float]) -> str:
    return " ".join(f"{figure:.2f}" for figure in load)


if __name__ == "__main__":
    sys.exit(main())
