# Reads n on standard input and prints the optimal moves as DISC FROM TO, pegs 0 to 2.
read -r n
move() { # move DISCS FROM SPARE TO
  (($1)) || return 0
  move $(($1 - 1)) "$2" "$4" "$3"
  echo "$1 $2 $4"
  move $(($1 - 1)) "$3" "$2" "$4"
}
move "$n" 0 1 2
