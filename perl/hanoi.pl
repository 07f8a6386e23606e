#!/usr/bin/perl
# The Tower of Hanoi in Perl: N discs from peg A to peg C by three methods, and
# the cyclic Tower of Hanoi: N discs from peg A to peg B, each move one peg on
# (A to B, B to C, C to A).
#
#     perl hanoi.pl binary|recursive|iterative|cyclic N
#
# Each method calls $move->(DISC, FROM, TO), pegs 0, 1 and 2, as it makes a
# move, and the move is printed at once, one a line: "1 A C", disc 1 from peg A
# to peg C. No list of moves is ever built, so memory stays O(N); STDOUT buffers
# the lines when it is a pipe.
use strict;
use warnings;

# region binary
# The Tower of Hanoi notes' bitwise formula: move i goes from peg
# (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3, and moves disc
# 1 + (the trailing zero bits of i). The formula ends on peg 1 when n is even,
# so for even n pegs 1 and 2 swap names.
sub binary {
    my ($n, $move) = @_;
    my @peg = $n % 2 ? (0, 1, 2) : (0, 2, 1);
    for my $i (1 .. (1 << $n) - 1) {
        my $disc = 1;
        $disc++ until ($i >> ($disc - 1)) & 1;
        my $from = ($i & ($i - 1)) % 3;
        my $to   = (($i | ($i - 1)) + 1) % 3;
        $move->($disc, $peg[$from], $peg[$to]);
    }
}
# endregion binary

# region recursive
# The classic recursion, as Simply Logical's hanoi/5 and the Tower of Hanoi
# notes' r_toh have it: n - 1 discs out of the way to the spare peg, the largest
# to the target, the n - 1 back on top.
sub recursive {
    my ($n, $source, $target, $spare, $move) = @_;
    return if $n == 0;
    recursive($n - 1, $source, $spare, $target, $move);
    $move->($n, $source, $target);
    recursive($n - 1, $spare, $target, $source, $move);
}
# endregion recursive

# region iterative
# COMP9021's iterative_towers: every other move is the smallest disc's, always
# the same way round (direction -1 for odd n, +1 for even n); each move between
# is the only legal move between the two pegs the smallest disc is not on. A
# stack holds its discs bottom first, the top last.
sub iterative {
    my ($n, $move) = @_;
    my $direction = $n % 2 ? -1 : 1;
    my @stacks = ([reverse 1 .. $n], [], []);
    my $small_disc_pos = 0;
    for my $i (0 .. (1 << $n) - 2) {
        my ($from, $to);
        if ($i % 2 == 0) {
            $from           = $small_disc_pos;
            $to             = ($small_disc_pos + $direction) % 3;
            $small_disc_pos = $to;
        }
        else {
            $from = ($small_disc_pos + 1) % 3;
            $to   = ($small_disc_pos + 2) % 3;
            my ($from_stack, $to_stack) = @stacks[$from, $to];
            if (!@$from_stack
                || (@$to_stack && $to_stack->[-1] < $from_stack->[-1]))
            {
                ($from, $to) = ($to, $from);
            }
        }
        push @{ $stacks[$to] }, pop @{ $stacks[$from] };
        $move->($stacks[$to][-1], $from, $to);
    }
}
# endregion iterative

# region cyclic
# The cyclic Tower of Hanoi article's two transfers: a disc may only go one peg
# on, from p to (p + 1) % 3, and the article moves n discs either to the
# adjacent tower or to the post-adjacent one, each transfer made of the other.
sub next_peg { ($_[0] + 1) % 3 }

# To the adjacent peg: n - 1 discs to the post-adjacent peg, out of the way, the
# largest one on, and the n - 1 on top of it, which is the post-adjacent peg
# from where they wait.
sub transfer_adjacent {
    my ($n, $from, $move) = @_;
    return if $n == 0;
    my $to = next_peg($from);
    transfer_post_adjacent($n - 1, $from, $move);
    $move->($n, $from, $to);
    transfer_post_adjacent($n - 1, next_peg($to), $move);
}

# To the post-adjacent peg: the n - 1 there first, the largest one on, the n - 1
# one on (back where they began), the largest one on again, and the n - 1 to the
# post-adjacent peg, on top of it.
sub transfer_post_adjacent {
    my ($n, $from, $move) = @_;
    return if $n == 0;
    my $via = next_peg($from);
    my $to  = next_peg($via);
    transfer_post_adjacent($n - 1, $from, $move);
    $move->($n, $from, $via);
    transfer_adjacent($n - 1, $to, $move);
    $move->($n, $via, $to);
    transfer_post_adjacent($n - 1, $from, $move);
}

sub cyclic {
    my ($n, $move) = @_;
    transfer_adjacent($n, 0, $move);
}
# endregion cyclic

my %METHODS = (
    binary    => \&binary,
    recursive => sub { recursive($_[0], 0, 2, 1, $_[1]) },
    iterative => \&iterative,
    cyclic    => \&cyclic,
);

# binary and iterative count the moves, 2^N - 1, in Perl's 64-bit integers.
my %MAX_DISCS = (binary => 63, iterative => 63);

my @PEGS = qw(A B C);

sub usage {
    my ($why) = @_;
    print STDERR "hanoi.pl: $why\n",
        "usage: perl hanoi.pl binary|recursive|iterative|cyclic N",
        " (N a whole number of discs, 0 or more)\n";
    exit 2;
}

usage('expected a method and a number of discs, not ' . @ARGV . ' arguments')
    unless @ARGV == 2;
my ($method, $n) = @ARGV;
usage("unknown method '$method'") unless exists $METHODS{$method};
usage("N must be a whole number of discs, 0 or more, not '$n'")
    unless $n =~ /\A[0-9]+\z/;
my $max = $MAX_DISCS{$method};
usage("$method counts the moves in 64-bit integers: N at most $max, not $n")
    if defined $max && $n > $max;

# A move as "DISC FROM TO", the pegs by their letters: "1 A C".
sub print_move {
    my ($disc, $from, $to) = @_;
    print "$disc $PEGS[$from] $PEGS[$to]\n";
}

$METHODS{$method}->($n + 0, \&print_move);
