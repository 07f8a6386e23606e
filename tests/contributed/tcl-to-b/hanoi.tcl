# The Tower of Hanoi in Tcl, recursively, from tower A to tower B by way of C. Each line is one
# move, as the two towers it joins: the disc is whichever is on top.
proc solve {discs from to via} {
    if {$discs == 0} return
    solve [expr {$discs - 1}] $from $via $to
    puts "$from -> $to"
    solve [expr {$discs - 1}] $via $to $from
}

set n [lindex $argv 0]
if {[llength $argv] != 1 || ![string is digit -strict $n]} {
    puts stderr "usage: tclsh hanoi.tcl N (not: $argv)"
    exit 2
}
solve $n A B C
