#!/usr/bin/perl
# The Tower of Hanoi, recursively, with a title before the moves and a count after them.
use strict;
use warnings;

my $n = shift // '';
die "usage: perl hanoi.pl N (a whole number of discs, not '$n')\n" unless $n =~ /^[0-9]+$/;

my $count = 0;
sub solve {
    my ($discs, $from, $to, $via) = @_;
    return if $discs == 0;
    solve($discs - 1, $from, $via, $to);
    $count++;
    print "Move disc $discs from $from to $to\n";
    solve($discs - 1, $via, $to, $from);
}

print "Towers of Hanoi: $n discs from A to C\n\n";
solve($n, 'A', 'C', 'B');
print "\nTotal moves = $count\n";
