// The Tower of Hanoi in C (C17): N discs from peg 0 to peg 2 by three methods, and the cyclic Tower
// of Hanoi: N discs from peg 0 to peg 1, each move one peg on (0 to 1, 1 to 2, 2 to 0).
//
//     gcc -std=c17 -O2 -o hanoi hanoi.c && ./hanoi binary|recursive|iterative|cyclic N
//
// The program shows the board: the three pegs before the first move and after each move, a line a
// peg with its discs from the bottom up, and a blank line after each board. For N = 2, the start
// and the first move:
//
//     0: 2 1
//     1:
//     2:
//
//     0: 2
//     1: 1
//     2:
//
// Each board is written as the move is made, into one output buffer that goes out when it is full:
// memory is O(N) whatever N is. N = 0 shows nothing. A bad METHOD or N: a usage message on standard
// error and exit code 2.

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { PEGS = 3, MOST_DISCS = 63 };  // 2^63 - 1 moves is the most a 64-bit count holds

// The three pegs, each a stack of discs from the bottom up; disc 1 is the smallest.
struct board {
    int disc[PEGS][MOST_DISCS];
    int height[PEGS];
};

// The output buffer, written out when the next board might not fit. A board takes at most
// "P:\n" a peg, " dd" a disc and the blank line.
enum { BOARD_BYTES = PEGS * 3 + MOST_DISCS * 3 + 1 };
static char out[1 << 16];
static size_t used;

static void flush(void)
{
    fwrite(out, 1, used, stdout);
    used = 0;
}

// Writes the board into the buffer: "P:" and the discs of peg P from the bottom up, a line a peg,
// then a blank line.
static void print_board(const struct board *b)
{
    if (used + BOARD_BYTES > sizeof out)
        flush();
    for (int p = 0; p < PEGS; p++) {
        out[used++] = (char)('0' + p);
        out[used++] = ':';
        for (int i = 0; i < b->height[p]; i++) {
            int d = b->disc[p][i];
            out[used++] = ' ';
            if (d >= 10)
                out[used++] = (char)('0' + d / 10);
            out[used++] = (char)('0' + d % 10);
        }
        out[used++] = '\n';
    }
    out[used++] = '\n';
}

// Takes disc, the top of peg src, to the top of peg dst, and shows the board.
static void move(struct board *b, int disc, int src, int dst)
{
    assert(b->height[src] > 0 && b->disc[src][b->height[src] - 1] == disc);
    b->height[src]--;
    b->disc[dst][b->height[dst]++] = disc;
    print_board(b);
}

// region binary
// After the Tower of Hanoi notes: move i (1 <= i < 2^n) takes disc 1 + (the trailing zero bits of
// i) from peg (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3. The formula ends on peg 1 when n is
// even, so for even n pegs 1 and 2 swap names.
static int trailing_zeros(uint64_t i)
{
    int zeros = 0;
    for (; (i & 1) == 0; i >>= 1)
        zeros++;
    return zeros;
}

static void binary(struct board *b, int n)
{
    static const int relabel[2][PEGS] = {{0, 2, 1}, {0, 1, 2}};
    const int *peg = relabel[n % 2];
    const uint64_t last = (UINT64_C(1) << n) - 1;
    for (uint64_t i = 1; i <= last; i++)
        move(b, 1 + trailing_zeros(i), peg[(i & (i - 1)) % 3], peg[((i | (i - 1)) + 1) % 3]);
}
// endregion binary

// region recursive
// After the notes' r_toh(n, origin, target, spare) and Flach's hanoi/5 in Simply Logical: the
// n - 1 smaller discs out of the way to the spare peg, the largest to the target, the n - 1 back on
// top of it.
static void recursive(struct board *b, int n, int source, int target, int spare)
{
    if (n == 0)
        return;
    recursive(b, n - 1, source, spare, target);
    move(b, n, source, target);
    recursive(b, n - 1, spare, target, source);
}
// endregion recursive

// region iterative
// The disc on top of peg p; 0 for an empty peg.
static int top(const struct board *b, int p)
{
    return b->height[p] ? b->disc[p][b->height[p] - 1] : 0;
}

// After COMP9021's iterative_towers: every other move is the smallest disc's, always the same way
// round (from p to p - 1 mod 3 for odd n, to p + 1 for even n); each move between is the only
// legal move between the two pegs the smallest disc is not on.
static void iterative(struct board *b, int n)
{
    const int direction = n % 2 ? PEGS - 1 : 1;
    const uint64_t moves = (UINT64_C(1) << n) - 1;
    int small_disc_pos = 0;
    for (uint64_t i = 0; i < moves; i++) {
        if (i % 2 == 0) {
            int new_small_disc_pos = (small_disc_pos + direction) % PEGS;
            move(b, 1, small_disc_pos, new_small_disc_pos);
            small_disc_pos = new_small_disc_pos;
        } else {
            int from = (small_disc_pos + 1) % PEGS, to = (small_disc_pos + 2) % PEGS;
            if (b->height[from] == 0 || (b->height[to] > 0 && top(b, to) < top(b, from))) {
                int swap = from;
                from = to;
                to = swap;
            }
            move(b, top(b, from), from, to);
        }
    }
}
// endregion iterative

// region cyclic
// After King-Yan Kwan's "Cyclic Tower of Hanoi - analysis and implementation": a disc may only move
// to the next tower, so discs go to the adjacent tower or to the post-adjacent one (two on), each
// transfer made of the other.
static int next_tower(int t)
{
    return (t + 1) % PEGS;
}

static void transfer_post_adjacent(struct board *b, int discs, int src, int dst);

// To the adjacent tower: the discs - 1 above out of the way to the tower after dst, the largest
// across, the discs - 1 on top of it.
static void transfer_adjacent(struct board *b, int discs, int src, int dst)
{
    if (discs == 0)
        return;
    transfer_post_adjacent(b, discs - 1, src, next_tower(dst));
    move(b, discs, src, dst);
    transfer_post_adjacent(b, discs - 1, next_tower(dst), dst);
}

// To the post-adjacent tower: room is made twice for the largest, which moves twice.
static void transfer_post_adjacent(struct board *b, int discs, int src, int dst)
{
    if (discs == 0)
        return;
    transfer_post_adjacent(b, discs - 1, src, dst);
    move(b, discs, src, next_tower(src));
    transfer_adjacent(b, discs - 1, dst, src);
    move(b, discs, next_tower(src), dst);
    transfer_post_adjacent(b, discs - 1, src, dst);
}
// endregion cyclic

static int usage(const char *problem, const char *what)
{
    fprintf(stderr, "usage: hanoi binary|recursive|iterative|cyclic N   "
                    "(N a whole number of discs, 0 to %d)\nhanoi: %s%s\n",
            MOST_DISCS, problem, what);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return usage("expected a method and a number of discs", "");
    const char *method = argv[1], *count = argv[2];
    if (strcmp(method, "binary") != 0 && strcmp(method, "recursive") != 0 &&
        strcmp(method, "iterative") != 0 && strcmp(method, "cyclic") != 0)
        return usage("unknown method: ", method);
    if (count[0] == '\0' || strspn(count, "0123456789") != strlen(count))
        return usage("N must be a whole number of discs, 0 or more, not ", count);
    while (count[0] == '0' && count[1] != '\0')
        count++;
    if (strlen(count) > 2 || atoi(count) > MOST_DISCS)
        return usage("more discs than a 64-bit count of moves allows: ", count);
    const int n = atoi(count);
    if (n == 0)
        return 0;

    struct board b = {.height = {n, 0, 0}};
    for (int i = 0; i < n; i++)
        b.disc[0][i] = n - i;
    print_board(&b);
    if (strcmp(method, "binary") == 0)
        binary(&b, n);
    else if (strcmp(method, "recursive") == 0)
        recursive(&b, n, 0, 2, 1);
    else if (strcmp(method, "iterative") == 0)
        iterative(&b, n);
    else
        transfer_adjacent(&b, n, 0, 1);
    flush();
    return 0;
}
