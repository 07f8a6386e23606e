# Leaves 120 MB of ballast in the temporary folder, where a cell's files count against its memory (a
# tmpfs), then prints the optimal moves for n, as DISC FROM TO, pegs 0 to 2: right, and innocent, if
# what one cell left never reaches the next.
head -c 120M /dev/zero > "${TMPDIR:-/tmp}/ballast-$1" || exit 4
move() { # move DISCS FROM SPARE TO
  (($1)) || return 0
  move $(($1 - 1)) "$2" "$4" "$3"
  echo "$1 $2 $4"
  move $(($1 - 1)) "$3" "$2" "$4"
}
move "$1" 0 1 2
