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

# Lines are queued in $out and leave in blocks: one write for FLUSH_EVERY lines, not one a line.
FLUSH_EVERY=1024
out=''
pending=0

flush() {
  printf '%s' "$out"
  out=''
  pending=0
}

# region recursive iterative cyclic
# Runs of moves of up to SMALL disks between two rods, kept the first time a recursion (r_toh,
# c_toh) makes them and appended whole after that: run[KEY] holds the lines.
SMALL=8
declare -A run=()

# replay KEY: append the run kept under KEY; false if there is none yet.
replay() {
  [[ -n ${run[$1]+set} ]] || return 1
  out+=${run[$1]}
}

# keep KEY START DISKS: keep what was appended to $out since START as the run KEY, the first time;
# the output is written only after a run of SMALL disks, so that no run is written before it is kept.
keep() {
  [[ -n ${run[$1]+set} ]] || run[$1]=${out:$2}
  if (($3 == SMALL)) && ((pending += 1 << SMALL, pending >= FLUSH_EVERY)); then flush; fi
}
# endregion recursive iterative cyclic

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

# region recursive
# recursive, 1 disks, 2 origin, 3 target, 4 spare. Mended for speed: up to SMALL disks, each run
# of moves is made once and replayed after that (see keep), and the lines leave in blocks.
r_toh() {
  local start
  (($1 > SMALL)) || start=${#out}
  if (($1 <= SMALL)) && replay "r$1$2$3"; then
    :
  elif (($1 > 0)); then
    r_toh $(($1 - 1)) "$2" "$4" "$3"
    out+="$1 from $2 to $3"$'\n'
    ((++pending))
    r_toh $(($1 - 1)) "$4" "$3" "$2"
  fi
  (($1 > SMALL)) || keep "r$1$2$3" "$start" "$1"
  [[ ${FUNCNAME[1]-} == r_toh ]] || flush
}
# endregion recursive

# The one legal move between rods (arrays) $1 and $2, as their two names, from first. Mended: the
# tops are read in place rather than by copying both rods, and given a variable's name as well,
# legal puts its answer there, so i_toh needs no subshell ($(legal ...)) to learn it.
legal() {
  local -n a=$1 b=$2
  local move
  if ((${#a[@]} == 0)); then
    move=$2$1
  elif ((${#b[@]} == 0)); then
    move=$1$2
  elif ((a[-1] < b[-1])); then
    move=$1$2
  else
    move=$2$1
  fi
  if (($# > 2)); then printf -v "$3" %s "$move"; else echo "$move"; fi
}

# iterative: between each pair of rods in turn, the one legal move. Mended: the pairs follow the
# number of disks' parity, where the listing tests 3 % 2 (always odd), so that for an even number
# it ended on B; the loop stops when C holds every disk, checked before each move, where the
# listing stopped at B or C full, after a move that i_toh 0 tried to make from an empty rod.
i_toh() {
  local i x pairs
  A=($(seq "$1" -1 1)) B=() C=()
  if (($1 % 2 == 0)); then pairs='AB AC BC'; else pairs='AC AB BC'; fi
  while ((${#C[@]} < $1)); do
    for i in $pairs; do
      legal "${i:0:1}" "${i:1:2}" x
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
  echo "usage: hanoi.sh binary|recursive|iterative|cyclic N   (N a whole number of disks, 0 to 62)" >&2
  [ $# -gt 0 ] && echo "hanoi.sh: $1" >&2
  exit 2
}

# region binary
# binary: b_toh's formula, move i from rod (i & i-1) % 3 to rod ((i | i-1) + 1) % 3, the disk
# that moves being 1 + the trailing zero bits of i; rods 1 and 2 swap names for even n, as in
# b_toh. The line of move $1 with its rods moved on by $2 goes to $move.
b_move() {
  local bits disk
  for ((bits = $1, disk = 1; (bits & 1) == 0; bits >>= 1, disk++)); do :; done
  move="$disk from ${rod[($2 + ($1 & $1 - 1)) % 3]} to ${rod[($2 + ($1 | $1 - 1) + 1) % 3]}"$'\n'
}

# Written i = high + low, high a multiple of 2^k and 0 < low < 2^k, the formula gives low's rods
# moved on by high % 3: the moves between two multiples of 2^k are one of three blocks of lines,
# made once, and the formula is worked out afresh once in 2^k moves.
binary() {
  local n=$1 i high move step=$((1 << ($1 < SMALL ? $1 : SMALL)))
  local -a rod=(0 1 2) block=('' '' '')
  ((n % 2 == 0)) && rod=(0 2 1)
  for ((i = 1; i < step; i++)); do
    for high in 0 1 2; do
      b_move "$i" "$high"
      block[high]+=$move
    done
  done
  out+=${block[0]}
  for ((high = step; high < 1 << n; high += step)); do
    b_move "$high" 0
    out+=$move${block[high % 3]}
    ((pending += step, pending < FLUSH_EVERY)) || flush
  done
}
# endregion binary

# region recursive
recursive() {
  r_toh "$1" 0 2 1
}
# endregion recursive

# region iterative
# iterative: i_toh's loop, between each pair of rods in turn the one legal move: the smaller top
# disk goes to the other rod. Rod r's disks are the bits of rod[r], disk d bit d - 1, so a top is
# a lowest set bit; disk[bit % 67] is its number (the powers of 2 below 2^66 differ mod 67).
# Between two moves of a disk larger than the k smallest, the loop moves those k as a tower, and
# the moves depend only on the rod they start on and where the loop is in its cycle of pairs: the
# first time, the loop makes them one by one and keeps them (see keep), and the rod they end on
# (ends); after that, they are replayed.
iterative() {
  local n=$1 a b from to pair=0 bit top_a top_b all=$(((1 << $1) - 1)) k=$(($1 < SMALL ? $1 : SMALL))
  local small on key start left=0 run_next=1
  local -a rod=("$all" 0 0) disk=() pairs
  local -A ends=()
  for ((a = 0; a < n; a++)); do disk[(1 << a) % 67]=$((a + 1)); done
  if ((n % 2 == 0)); then pairs=(0 1 0 2 1 2); else pairs=(0 2 0 1 1 2); fi
  small=$(((1 << k) - 1))
  while ((rod[2] != all)); do
    if ((run_next)); then
      run_next=0
      for ((on = 0; (rod[on] & small) != small; on++)); do :; done
      key=i$on.$pair
      if replay "$key"; then
        to=${ends[$key]}
        ((rod[on] ^= small, rod[to] |= small, pair = (pair + 2 * (small % 3)) % 6))
        keep "$key" 0 "$k"
        continue
      fi
      left=$small start=${#out}
    fi
    ((a = pairs[pair], b = pairs[pair + 1], top_a = rod[a] & -rod[a], top_b = rod[b] & -rod[b],
      top_a && (top_a < top_b || !top_b) ? (from = a, to = b, bit = top_a) : (from = b, to = a, bit = top_b),
      rod[from] ^= bit, rod[to] |= bit, pair = (pair + 2) % 6, run_next = bit > small))
    out+="${disk[bit % 67]} from $from to $to"$'\n'
    if ((left == 0)); then
      ((++pending < FLUSH_EVERY)) || flush
    elif ((--left == 0)); then
      keep "$key" "$start" "$k"
      for ((on = 0; (rod[on] & small) != small; on++)); do :; done
      ends[$key]=$on
    fi
  done
}
# endregion iterative

# region cyclic
# cyclic: disks, origin, target; a disk may only go from rod r to rod (r + 1) % 3, as in the
# cyclic Tower of Hanoi article. To the next rod: n - 1 disks two rods on, the largest one on, the
# n - 1 two on again. Two rods on: n - 1 two on, the largest one on, the n - 1 one on (back to
# the origin), the largest one on, the n - 1 two on. One disk moves with no call for no disks.
# Up to SMALL disks, each run of moves is made once and replayed after that (see keep).
c_toh() {
  local n=$(($1 - 1)) on=$((($2 + 1) % 3)) start
  (($1 > SMALL)) || start=${#out}
  if (($1 <= SMALL)) && replay "c$1$2$3"; then
    :
  elif (($3 == on)); then
    ((n == 0)) || c_toh $n "$2" $((($3 + 1) % 3))
    out+="$1 from $2 to $3"$'\n'
    ((n == 0)) || c_toh $n $((($3 + 1) % 3)) "$3"
  else
    ((n == 0)) || c_toh $n "$2" "$3"
    out+="$1 from $2 to $on"$'\n'
    ((n == 0)) || c_toh $n "$3" "$2"
    out+="$1 from $on to $3"$'\n'
    ((n == 0)) || c_toh $n "$2" "$3"
  fi
  (($1 > SMALL)) || keep "c$1$2$3" "$start" "$1"
}

cyclic() {
  (($1 == 0)) || c_toh "$1" 0 1
}
# endregion cyclic

main() {
  set -u
  [ $# -eq 2 ] || usage "expected a method and a number of disks"
  case $1 in
  binary | recursive | iterative | cyclic) ;;
  *) usage "unknown method '$1'" ;;
  esac
  [[ $2 =~ ^[0-9]+$ ]] || usage "N must be a whole number of disks, 0 or more, not '$2'"
  [[ $2 =~ ^0*([0-9]{1,2})$ ]] && ((10#${BASH_REMATCH[1]} <= 62)) ||
    usage "N = $2 is more disks than Bash's 64-bit arithmetic can count moves for (62 at most)"
  "$1" $((10#$2))
  flush
}

# Run as a program, not when sourced.
if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
