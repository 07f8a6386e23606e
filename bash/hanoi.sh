#!/usr/bin/env bash
# The Tower of Hanoi in Bash: n disks from rod 0 to rod 2 by three methods, and the cyclic
# Tower of Hanoi: n disks from rod 0 to rod 1, each move one rod on.
#
#   bash hanoi.sh binary|recursive|iterative|cyclic N
#
# The three classic methods print the same 2^N - 1 moves, one a line, as the notes' r_toh does:
# "DISK from ORIGIN to TARGET"; cyclic prints its moves the same way. The methods follow the notes' Bash listings, with three
# things mended: the binary formula ends on rod 1 when N is even, so rods 1 and 2 swap
# names for even N; the iterative loop chooses its rod pairs by N's parity (the listing
# tests 3 % 2, always odd); and no move forks a subshell ($(w_num ...), $(legal ...)):
# rods are arrays indexed by arithmetic, and output leaves in blocks of lines.

set -u

readonly FLUSH_EVERY=4096
out=''
pending=0

usage() {
  echo "usage: hanoi.sh binary|recursive|iterative|cyclic N   (N a whole number of disks, 0 to 62)" >&2
  [ $# -gt 0 ] && echo "hanoi.sh: $1" >&2
  exit 2
}

# Queue one move; write the queue out every FLUSH_EVERY moves.
emit() {
  out+="$1 from $2 to $3"$'\n'
  if ((++pending == FLUSH_EVERY)); then
    printf '%s' "$out"
    out=''
    pending=0
  fi
}

# binary: move i goes from rod (i & i-1) % 3 to rod ((i | i-1) + 1) % 3, and moves
# disk 1 + (trailing zero bits of i).
binary() {
  local n=$1 i bits disk
  local -a rod=(0 1 2)
  ((n % 2 == 0)) && rod=(0 2 1)
  for ((i = 1; i < 1 << n; i++)); do
    for ((bits = i, disk = 1; (bits & 1) == 0; bits >>= 1, disk++)); do :; done
    emit "$disk" "${rod[(i & i - 1) % 3]}" "${rod[((i | i - 1) + 1) % 3]}"
  done
}

# recursive: disks, origin, target, spare
r_toh() {
  if (($1 > 0)); then
    r_toh $(($1 - 1)) "$2" "$4" "$3"
    emit "$1" "$2" "$3"
    r_toh $(($1 - 1)) "$4" "$3" "$2"
  fi
}

recursive() {
  r_toh "$1" 0 2 1
}

# iterative: between each pair of rods in turn, the one legal move; rods 0-1, 0-2, 1-2
# for an even number of disks, 0-2, 0-1, 1-2 for an odd one, until rod 2 holds them all.
# Rod r's disks are stack[r * (n + 1) + 0 .. height[r] - 1], the top one last.
iterative() {
  local n=$1 a b from to top width=$(($1 + 1)) pair d
  local -a stack=() height=("$n" 0 0) pairs
  for ((d = 0; d < n; d++)); do stack[d]=$((n - d)); done
  if ((n % 2 == 0)); then pairs=(0 1 0 2 1 2); else pairs=(0 2 0 1 1 2); fi
  while ((height[2] < n)); do
    for ((pair = 0; pair < 6 && height[2] < n; pair += 2)); do
      a=${pairs[pair]} b=${pairs[pair + 1]}
      if ((height[a] == 0)); then
        from=$b to=$a
      elif ((height[b] == 0)); then
        from=$a to=$b
      elif ((stack[a * width + height[a] - 1] < stack[b * width + height[b] - 1])); then
        from=$a to=$b
      else
        from=$b to=$a
      fi
      top=${stack[from * width + height[from] - 1]}
      stack[to * width + height[to]]=$top
      ((height[from]--, height[to]++))
      emit "$top" "$from" "$to"
    done
  done
}

# cyclic: disks, origin, target; a disk may only go from rod r to rod (r + 1) % 3, as in the
# cyclic Tower of Hanoi article. To the next rod: n - 1 disks two rods on, the largest one on, the
# n - 1 two on again. Two rods on: n - 1 two on, the largest one on, the n - 1 one on (back to
# the origin), the largest one on, the n - 1 two on.
c_toh() {
  (($1 > 0)) || return 0
  local n=$(($1 - 1)) on=$((($2 + 1) % 3))
  if (($3 == on)); then
    c_toh $n "$2" $((($3 + 1) % 3))
    emit "$1" "$2" "$3"
    c_toh $n $((($3 + 1) % 3)) "$3"
  else
    c_toh $n "$2" "$3"
    emit "$1" "$2" $on
    c_toh $n "$3" "$2"
    emit "$1" $on "$3"
    c_toh $n "$2" "$3"
  fi
}

cyclic() {
  c_toh "$1" 0 1
}

main() {
  [ $# -eq 2 ] || usage "expected a method and a number of disks"
  case $1 in
  binary | recursive | iterative | cyclic) ;;
  *) usage "unknown method '$1'" ;;
  esac
  [[ $2 =~ ^[0-9]+$ ]] || usage "N must be a whole number of disks, 0 or more, not '$2'"
  [[ $2 =~ ^0*([0-9]{1,2})$ ]] && ((10#${BASH_REMATCH[1]} <= 62)) ||
    usage "N = $2 is more disks than Bash's 64-bit arithmetic can count moves for (62 at most)"
  "$1" $((10#$2))
  printf '%s' "$out"
}

main "$@"
