#!/usr/bin/env bash
# The Tower of Hanoi in Bash: n disks from rod 0 to rod 2 by three methods, and the cyclic
# Tower of Hanoi: n disks from rod 0 to rod 1, each move one rod on.
#
#   bash hanoi.sh binary|recursive|iterative|cyclic N
#
# The methods print one move a line, as the notes' r_toh does: "DISK from ORIGIN to TARGET".
#
# Sourced (`source hanoi.sh`), the file defines the notes' Bash listings under their names, so
# their calls run as the notes type them: `b_toh 4`, `r_toh 4 0 2 1`, `i_toh 3`. b_toh and i_toh
# print the rods after each move, as the notes' do; r_toh prints the moves. Where the listings go
# wrong they are mended, and a comment says how.

# The largest number of disks: binary's formula takes move numbers up to 2^N - 1 and
# (i | i - 1) + 1 up to 2^N, which Bash's 64-bit signed arithmetic holds for N up to 62.
MAX_N=62

# region binary recursive iterative cyclic
# The moves are queued in $out and written FLUSH_EVERY lines at a time. Sourced, for the listings,
# each line leaves as it comes; run as a program, main queues 1024, one write a block, not a line.
FLUSH_EVERY=1
out=''
queued=0

# move DISK ORIGIN TARGET: queue the line of one move.
move() {
  out+="$1 from $2 to $3"$'\n'
  ((++queued < FLUSH_EVERY)) || flush
}

# flush: write the queued lines.
flush() {
  printf '%s' "$out"
  out=''
  queued=0
}
# endregion binary recursive iterative cyclic

# ---- The notes' listings ------------------------------------------------------------------------

# The letter naming rod 0, 1 or 2. Mended: given a variable's name as well, w_num puts the letter
# there, so b_toh needs no subshell ($(w_num ...)) to learn it.
w_num() {
  local letter
  case $1 in
  0) letter=A ;;
  1) letter=B ;;
  2) letter=C ;;
  esac
  if (($# > 1)); then printf -v "$2" %s "$letter"; else echo "$letter"; fi
}

# The rods A, B and C, one a line, and a blank line: what b_toh and i_toh print after each move.
rods() {
  echo -e "0: ${A[*]}\n1: ${B[*]}\n2: ${C[*]}\n"
}

# binary: move i goes from rod (i & i-1) % 3 to rod ((i | i-1) + 1) % 3. Mended: the formula
# ends on rod 1 (B) when the number of disks is even, so then rods 1 and 2 swap names and the
# disks end on C; and no move forks a subshell (the listing's $(w_num ...), twice a move).
b_toh() {
  local i orig_name targ_name
  local -a name=(0 1 2)
  (($1 % 2 == 0)) && name=(0 2 1)
  # shellcheck disable=SC2207 # the listing's line: seq prints the disks' numbers, one a word
  A=($(seq "$1" -1 1)) B=() C=()
  for ((i = 1; i < 1 << $1; i++)); do
    w_num "${name[(i & i - 1) % 3]}" orig_name
    w_num "${name[((i | i - 1) + 1) % 3]}" targ_name
    declare -n orig=$orig_name targ=$targ_name
    targ+=("${orig[-1]}")
    unset "orig[-1]"
    rods
  done
}

# iterative: between each pair of rods in turn, the one legal move. Mended: the pairs follow the
# number of disks' parity, where the listing tests 3 % 2 (always odd), so that for an even number
# it ended on B; the loop stops when C holds every disk, checked before each move, where the
# listing stopped at B or C full, after a move that i_toh 0 tried to make from an empty rod; and
# no move forks a subshell (the listing's $(legal ...)).
i_toh() {
  local i x pairs
  # shellcheck disable=SC2207 # the listing's line: seq prints the disks' numbers, one a word
  A=($(seq "$1" -1 1)) B=() C=()
  if (($1 % 2 == 0)); then pairs='AB AC BC'; else pairs='AC AB BC'; fi
  while ((${#C[@]} < $1)); do
    for i in $pairs; do
      legal "${i:0:1}" "${i:1:2}" x
      # shellcheck disable=SC2178 # orig and targ name the rods: the listing's namerefs
      declare -n orig=${x:0:1} targ=${x:1:2}
      targ+=("${orig[-1]}")
      unset "orig[-1]"
      rods
      ((${#C[@]} < $1)) || return 0
    done
  done
}

# ---- The port's methods -------------------------------------------------------------------------

usage() {
  echo "usage: hanoi.sh binary|recursive|iterative|cyclic N   (N a whole number of disks, 0 to $MAX_N, in digits 0-9)" >&2
  (($# == 0)) || echo "hanoi.sh: $1" >&2
  exit 2
}

# region binary
# binary, after the Tower of Hanoi notes' "Binary" and their b_toh: disk d is bit d - 1 of a
# count that goes up by 1 a move, and move i moves the disk of the lowest bit set in i (1 + the
# trailing zero bits of i) from rod (i AND i - 1) mod 3 to rod ((i OR i - 1) + 1) mod 3. The
# formula ends on rod 1 when the number of disks is even, so then rods 1 and 2 swap names, as in
# b_toh.
binary() {
  local n=$1 i disk
  local -a rod=(0 1 2)
  ((n % 2 == 0)) && rod=(0 2 1)
  for ((i = 1; i < 1 << n; i++)); do
    for ((disk = 1; (i >> (disk - 1) & 1) == 0; disk++)); do :; done
    move "$disk" "${rod[(i & i - 1) % 3]}" "${rod[((i | i - 1) + 1) % 3]}"
  done
}
# endregion binary

# region recursive
# recursive, the Tower of Hanoi notes' r_toh: to move n disks from the origin to the target, move
# n - 1 from the origin to the spare, the largest to the target, and the n - 1 from the spare onto
# it. 1 disks, 2 origin, 3 target, 4 spare.
r_toh() {
  if (($1 > 0)); then
    r_toh $(($1 - 1)) "$2" "$4" "$3"
    move "$1" "$2" "$3"
    r_toh $(($1 - 1)) "$4" "$3" "$2"
  fi
}

recursive() {
  r_toh "$1" 0 2 1
}
# endregion recursive

# region iterative
# legal, the notes' listing: the one legal move between rods (arrays) $1 and $2, as their two
# names, from first: a disk goes onto an empty rod or a larger disk. Mended: the tops are read in
# place rather than by copying both rods, and given a variable's name as well, legal puts its
# answer there, so no move forks a subshell ($(legal ...)) to learn it.
legal() {
  local -n a=$1 b=$2
  local answer
  if ((${#a[@]} == 0)); then
    answer=$2$1
  elif ((${#b[@]} == 0)); then
    answer=$1$2
  elif ((a[-1] < b[-1])); then
    answer=$1$2
  else
    answer=$2$1
  fi
  if (($# > 2)); then printf -v "$3" %s "$answer"; else echo "$answer"; fi
}

# iterative, after the Tower of Hanoi notes' "Iterative" and their i_toh: the rods are three
# stacks, the arrays A, B and C (rods 0, 1 and 2), a top the last element. Between the pairs of
# rods in turn, 0-1, 0-2, 1-2 for an even number of disks and 0-2, 0-1, 1-2 for an odd one, the
# one legal move (the smaller top disk goes to the other rod), until rod 2 holds every disk.
iterative() {
  local n=$1 disk pair way
  local -a A=() B=() C=() pairs
  local -A number=([A]=0 [B]=1 [C]=2)
  for ((disk = n; disk > 0; disk--)); do A+=("$disk"); done
  if ((n % 2 == 0)); then pairs=(AB AC BC); else pairs=(AC AB BC); fi
  while ((${#C[@]} < n)); do
    for pair in "${pairs[@]}"; do
      legal "${pair:0:1}" "${pair:1:1}" way
      local -n from=${way:0:1} to=${way:1:1}
      disk=${from[-1]}
      unset 'from[-1]'
      to+=("$disk")
      move "$disk" "${number[${way:0:1}]}" "${number[${way:1:1}]}"
      ((${#C[@]} < n)) || break
    done
  done
}
# endregion iterative

# region cyclic
# cyclic, after the cyclic Tower of Hanoi article's transfer templates: n disks from rod 0 to
# rod 1, each disk only ever moving on to the next rod, (r + 1) % 3. The article's
# transfer<Discs, Src, Dst, direct> is two functions that call each other: transfer_direct, to the
# adjacent rod (the next), and transfer_indirect, to the post-adjacent one (two on).
# 1 disks, 2 source, 3 destination.

# To the adjacent rod: the n - 1 smaller disks out of the way to the post-adjacent one, the nth
# disk on, and the n - 1 from there onto it, two rods on again.
transfer_direct() {
  if (($1 == 1)); then
    move 1 "$2" "$3"
  else
    transfer_indirect $(($1 - 1)) "$2" $((($3 + 1) % 3))
    move "$1" "$2" "$3"
    transfer_indirect $(($1 - 1)) $((($3 + 1) % 3)) "$3"
  fi
}

# To the post-adjacent rod, making room twice: the n - 1 to the destination, the nth disk one on,
# the n - 1 on back to the source, the nth disk on to the destination, and the n - 1 to it again.
# One disk moves to the adjacent rod twice.
transfer_indirect() {
  local next=$((($2 + 1) % 3))
  if (($1 == 1)); then
    move 1 "$2" $next
    move 1 $next "$3"
  else
    transfer_indirect $(($1 - 1)) "$2" "$3"
    move "$1" "$2" $next
    transfer_direct $(($1 - 1)) "$3" "$2"
    move "$1" $next "$3"
    transfer_indirect $(($1 - 1)) "$2" "$3"
  fi
}

cyclic() {
  (($1 == 0)) || transfer_direct "$1" 0 1
}
# endregion cyclic

main() {
  set -u
  (($# == 2)) || usage "expected a method and a number of disks"
  case $1 in
  binary | recursive | iterative | cyclic) ;;
  *) usage "unknown method '$1'" ;;
  esac
  # N is ASCII decimal digits and nothing else: no sign, space, point, exponent or base.
  [[ $2 =~ ^[0123456789]+$ ]] || usage "N must be a whole number of disks in digits 0-9, not '$2'"
  if ! [[ $2 =~ ^0*([0123456789]{1,2})$ ]] || ((10#${BASH_REMATCH[1]} > MAX_N)); then
    usage "N = $2 is more disks than Bash's 64-bit arithmetic can count moves for ($MAX_N at most)"
  fi
  FLUSH_EVERY=1024
  "$1" $((10#$2))
  flush
}

# Run as a program, not when sourced.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
