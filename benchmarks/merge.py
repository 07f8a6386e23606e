#!/usr/bin/env python3
"""What ``harness merge`` costs on reports made to hurt it, as whole processes: the peak resident
memory of the process (``wait4``'s ru_maxrss) and its wall time, with its exit code and the first
line it said. The reports are made from one small real report, in a temporary folder:

- the report as it is, for scale;
- its plan's n replaced by ten million numbers, compact JSON (20 MB, under the size limit) and as
  the harness indents it (over the limit);
- one cell's detail replaced by 30 MiB (under the limit) and by 1 GiB (over it);
- JSON nested 100,000 deep.

    benchmarks/merge.py          # inside the virtual environment, from the checkout
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HARNESS = str(Path(sys.executable).with_name("harness"))


def hostile(folder: Path, report: dict) -> dict[str, Path]:
    """Each report to merge, written into ``folder``."""

    def changed(where: tuple, value: object, name: str, indent: int | None = None, repeat: int = 1) -> Path:
        """The report with ``value`` at ``where``; a text ``value`` written ``repeat`` times over, in
        pieces, so that a gigabyte is never held here."""
        copy = json.loads(json.dumps(report))
        inner = copy
        for step in where[:-1]:
            inner = inner[step]
        inner[where[-1]] = "@@VALUE@@"
        head, _, tail = json.dumps(copy, indent=indent).partition('"@@VALUE@@"')
        path = folder / name
        with path.open("w") as out:
            out.write(head + ('"' if repeat > 1 else json.dumps(value, indent=indent)))
            for _ in range(repeat - 1):
                out.write(str(value))
            out.write(('"' if repeat > 1 else "") + tail)
        return path

    nested = folder / "nested.json"
    nested.write_text("[" * 100_000 + "]" * 100_000)
    return {
        "the report as it is": changed(("harness",), report["harness"], "plain.json", indent=2),
        "plan of ten million n, compact (20 MB)": changed(("plan", "n"), [1] * 10_000_000, "n-compact.json"),
        "plan of ten million n, indented (over 32 MiB)": changed(("plan", "n"), list(range(10_000_000)), "n-indented.json", indent=2),
        "a detail of 30 MiB": changed(("cells", 0, "detail"), "x" * (1 << 20), "detail-30m.json", repeat=31),
        "a detail of 1 GiB (over 32 MiB)": changed(("cells", 0, "detail"), "x" * (1 << 20), "detail-1g.json", repeat=1025),
        "JSON nested 100,000 deep": nested,
    }


MEASURE = """
import resource, subprocess, sys, time
started = time.perf_counter()
done = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
seconds = time.perf_counter() - started
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, seconds, done.returncode, (done.stderr.splitlines() or [""])[0])
"""
"""Runs the command and says its peak resident memory (KiB), seconds, exit code and first line on
stderr: a process of its own, small, so that the command's peak is its own (Linux carries a peak
over fork and exec), whatever this one held making the reports."""


def measured(path: Path) -> tuple[float, float, int, str]:
    """``harness merge --expect plan`` of one report: peak MiB, seconds, exit code, its first line on stderr."""
    said = subprocess.run(
        [sys.executable, "-c", MEASURE, HARNESS, "merge", "--expect", "plan", str(path), "--format", "plain"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout
    peak, seconds, code, first = said.rstrip("\n").split(" ", 3)
    return int(peak) / 1024, float(seconds), int(code), first


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="hanoi-merge-bench-") as temporary:
        folder = Path(temporary)
        source = folder / "source.json"
        subprocess.run([HARNESS, "compare", "--n", "2", "--port", "python", "--json", str(source)], cwd=ROOT, check=True, capture_output=True)
        reports = hostile(folder, json.loads(source.read_text()))
        print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, load {os.getloadavg()[0]:.2f}")
        print(f"{'report':<48} {'size MiB':>9} {'peak MiB':>9} {'seconds':>8} exit  said")
        for name, path in reports.items():
            peak, seconds, code, said = measured(path)
            print(f"{name:<48} {path.stat().st_size / (1 << 20):>9.1f} {peak:>9.1f} {seconds:>8.2f} {code:>4}  {said[:110]}")
        print(f"load average at the end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
