#!/usr/bin/env bash
# The Tower of Hanoi notes' Bash b_toh, run as a port to time it. The listing is as printed but for
# one line: where it echoes the three rods after each move, this echoes the move, as the letters of
# its two rods (${!orig} is the name the nameref points to; no process is started for it). Like the
# listing, it forks subshells on every move ($(w_num ...)), and ends on rod B for even n.

# binary
w_num() {
  case $1 in
  0) echo "A" ;;
  1) echo "B" ;;
  2) echo "C" ;;
  esac
}

b_toh() {
  A=($(seq "$1" -1 1))
  B=()
  C=()
  for i in $(seq 1 $(((1 << $1) - 1))); do
    declare -n orig=$(w_num $(((i & i - 1) % 3)))
    declare -n targ=$(w_num $((((i | i - 1) + 1) % 3)))
    targ+=("${orig[-1]}")
    unset "orig[-1]"
    echo "${!orig}${!targ}"
  done
}

b_toh "$2"
