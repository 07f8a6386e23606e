#!/bin/sh
# The SQLite port's command line: runs hanoi.sql in the sqlite3 shell, with the method and n as
# its parameters :method and :n.
#
#     sh hanoi.sh binary|recursive|iterative|cyclic N
#
# The sqlite3 shell ends every error with exit code 1, so what the program is given is checked
# here, before it starts: a method it does not know, or an N that is not ASCII decimal digits
# from 0 to 62 (2^N must fit in SQLite's 64-bit integers), is a usage message and exit code 2.

usage() {
  printf 'hanoi.sh: %s\nusage: sh hanoi.sh binary|recursive|iterative|cyclic N\n' "$1" >&2
  exit 2
}

[ $# -eq 2 ] || usage "expected METHOD N, got $# argument(s)"
method=$1
n=$2
case $method in
  binary | recursive | iterative | cyclic) ;;
  *) usage "unknown method '$method'" ;;
esac
# Digits only, then at most 62: a number too large for the shell's own test fails it too.
case $n in
  '' | *[!0123456789]*) usage "N must be a whole number of discs, from 0 to 62, not '$n'" ;;
esac
[ "$n" -le 62 ] 2>/dev/null || usage "N must be a whole number of discs, from 0 to 62, not '$n'"

# An empty database in memory, no ~/.sqliterc (-init /dev/null); -bail stops at the first error.
# The method goes in as SQL text ('binary'), n as the integer its digits spell.
exec sqlite3 -batch -bail -init /dev/null :memory: \
  ".parameter set :method \"'$method'\"" \
  ".parameter set :n $n" \
  ".read hanoi.sql"
