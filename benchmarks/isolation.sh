#!/usr/bin/env bash
# What each isolation mode costs a cell, side by side in one run: every port and method at n = 0
# (no move, so a cell's time is starting the program, and stopping it, in that mode), one cell at a
# time, in each mode; then the median seconds a cell took, per port and mode. In containers, each cell
# starts a fresh container and removes it, and that is in its time; the images are made first, by a
# run that is not timed, so that their one-off build is not.
# Needs bubblewrap and a Docker engine (see docs/isolation.md).
set -euo pipefail
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
harness compare --n 0 --isolation container "$@" >/dev/null || true
for mode in subprocess sandbox container; do
  start=$(date +%s%N)
  harness compare --n 0 --jobs 1 --isolation "$mode" --json "$out/$mode.json" "$@" >/dev/null
  echo "$mode: $(( ($(date +%s%N) - start) / 1000000 )) ms for the whole run" >&2
done
python3 - "$out" <<'PYTHON'
import json, statistics, sys
from pathlib import Path
modes = ("subprocess", "sandbox", "container")
reports = {mode: json.loads((Path(sys.argv[1]) / f"{mode}.json").read_text()) for mode in modes}
print("| port | " + " | ".join(f"{mode} s/cell" for mode in modes) + " |")
print("| --- |" + " --- |" * len(modes))
for port in sorted({cell["port"] for cell in reports["subprocess"]["cells"]}):
    row = []
    for mode in modes:
        seconds = [cell["seconds"] for cell in reports[mode]["cells"] if cell["port"] == port and cell["outcome"] == "pass"]
        row.append(f"{statistics.median(seconds):.3f}" if seconds else "–")
    print(f"| {port} | " + " | ".join(row) + " |")
PYTHON
