#!/usr/bin/env bash
# The source listings beside the ports that mend them, timed by harness bench in one run:
# the Bash listings (a fork per move) and the Bash port at n = 13, and Simply Logical's hanoi/5
# (append/3, the whole list in memory) and the Prolog port at n = 16 and 20.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
suite="$(mktemp -d)"
trap 'rm -rf "$suite"' EXIT
for port in "$here"/seed-listings/* "$here"/../bash "$here"/../prolog; do
  ln -s "$port" "$suite/$(basename "$port")"
done
harness --root "$suite" bench --lang bash-b_toh,bash-i_toh,bash --method binary,iterative --n 13 --repeat "${REPEAT:-3}" "$@"
harness --root "$suite" bench --lang prolog-hanoi5,prolog --method recursive --n 16,20 --repeat "${REPEAT:-3}" "$@"
