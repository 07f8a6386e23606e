<?php

/**
 * The Tower of Hanoi in PHP: N discs from peg A to peg C by three methods, and the cyclic Tower
 * of Hanoi: N discs from peg A to peg B, each move one peg on (A => B => C => A).
 *
 *     php hanoi.php binary|recursive|iterative|cyclic N
 *
 * Each move is printed as it is made, one a line, as an arrow: "disc 1: A => C". Memory stays
 * O(N) however many moves there are. N is at most 62, where PHP's 64-bit integers end.
 */

declare(strict_types=1);

const METHODS = ['binary', 'recursive', 'iterative', 'cyclic'];
const PEGS = ['A', 'B', 'C'];
const MAX_N = 62;

function say(int $disc, int $from, int $to): void
{
    echo 'disc ', $disc, ': ', PEGS[$from], ' => ', PEGS[$to], "\n";
}

// region binary
/**
 * The Tower of Hanoi notes' bitwise formula: move $i goes from peg ($i & ($i - 1)) % 3 to peg
 * (($i | ($i - 1)) + 1) % 3, and moves disc 1 + (the trailing zero bits of $i). For even $n the
 * formula ends on peg 1, so pegs 1 and 2 swap names.
 */
function binary(int $n): void
{
    $peg = $n % 2 === 0 ? [0, 2, 1] : [0, 1, 2];
    for ($i = 1; $i < 1 << $n; $i++) {
        $disc = 1;
        for ($bits = $i; ($bits & 1) === 0; $bits >>= 1) {
            $disc++;
        }
        say($disc, $peg[($i & ($i - 1)) % 3], $peg[(($i | ($i - 1)) + 1) % 3]);
    }
}
// endregion binary

// region recursive
/**
 * The classic recursion, as the Tower of Hanoi notes' r_toh and Simply Logical's hanoi/5 make it:
 * $n - 1 discs out of the way onto the spare peg, disc $n to the target, the $n - 1 back on top.
 */
function recursive(int $n, int $origin, int $target, int $spare): void
{
    if ($n > 0) {
        recursive($n - 1, $origin, $spare, $target);
        say($n, $origin, $target);
        recursive($n - 1, $spare, $target, $origin);
    }
}
// endregion recursive

// region iterative
/**
 * COMP9021's iterative_towers(): every other move is the smallest disc's, always the same way
 * round (-1 mod 3 for odd $n, +1 for even $n); the move between is the only legal one between
 * the two pegs the smallest disc is not on. The pegs are arrays, the top disc last.
 */
function iterative(int $n): void
{
    $direction = $n % 2 === 1 ? -1 : 1;
    $stacks = [$n > 0 ? range($n, 1) : [], [], []];
    $small = 0;
    for ($i = 0; $i < (1 << $n) - 1; $i++) {
        if ($i % 2 === 0) {
            $to = ($small + $direction + 3) % 3;
            $from = $small;
            $small = $to;
        } else {
            $from = ($small + 1) % 3;
            $to = ($small + 2) % 3;
            if (top($stacks[$from]) > top($stacks[$to])) {
                [$from, $to] = [$to, $from];
            }
        }
        $disc = array_pop($stacks[$from]);
        $stacks[$to][] = $disc;
        say($disc, $from, $to);
    }
}

/** The disc on top of a peg; an empty peg takes any disc, as if it held one larger than all. */
function top(array $stack): int
{
    return $stack === [] ? PHP_INT_MAX : $stack[count($stack) - 1];
}
// endregion iterative

// region cyclic
// The cyclic Tower of Hanoi article's two mutually recursive transfers, each taking the $discs
// smallest discs from tower $src to tower $dst, every move one tower on.

/** The article's next_tower(): the tower one on, A => B => C => A. */
function nextTower(int $tower): int
{
    return ($tower + 1) % 3;
}

/**
 * To the adjacent tower ($dst is one on): the $discs - 1 smaller discs go two on, out of the way,
 * the largest one on, and the $discs - 1 two on again, on top of it.
 */
function transferToAdjacent(int $discs, int $src, int $dst): void
{
    if ($discs > 0) {
        transferToPostAdjacent($discs - 1, $src, nextTower($dst));
        say($discs, $src, $dst);
        transferToPostAdjacent($discs - 1, nextTower($dst), $dst);
    }
}

/**
 * To the post-adjacent tower ($dst is two on): the largest disc goes one on twice, and the
 * $discs - 1 smaller discs make room for it three times: two on, one on (back to $src), two on.
 */
function transferToPostAdjacent(int $discs, int $src, int $dst): void
{
    if ($discs > 0) {
        transferToPostAdjacent($discs - 1, $src, $dst);
        say($discs, $src, nextTower($src));
        transferToAdjacent($discs - 1, $dst, $src);
        say($discs, nextTower($src), $dst);
        transferToPostAdjacent($discs - 1, $src, $dst);
    }
}
// endregion cyclic

function usage(string $why): never
{
    fwrite(STDERR, "hanoi.php: $why\nusage: php hanoi.php " . implode('|', METHODS) . " N\n");
    exit(2);
}

function main(array $argv): void
{
    if (count($argv) !== 3) {
        usage('expected a METHOD and N, got ' . (count($argv) - 1) . ' argument(s)');
    }
    [, $method, $count] = $argv;
    if (!in_array($method, METHODS, true)) {
        usage("unknown method '$method'");
    }
    if (preg_match('/\A[0-9]+\z/', $count) !== 1 || (int) $count > MAX_N) {
        usage('N must be a whole number from 0 to ' . MAX_N . ", not '$count'");
    }
    $n = (int) $count;

    ob_start(null, 1 << 16); // one write for each 64 KiB of moves, not one for each echo
    match ($method) {
        'binary' => binary($n),
        'recursive' => recursive($n, 0, 2, 1),
        'iterative' => iterative($n),
        'cyclic' => transferToAdjacent($n, 0, 1),
    };
}

main($argv);
