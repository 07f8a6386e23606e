/* The Tower of Hanoi in C, by the binary formula: move i takes disc 1 + (trailing zero bits of i)
 * from peg (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3, pegs 1 and 2 swapped for even n.
 * It takes one disc or more: with none there is no puzzle, and it says so. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    char *end = NULL;
    long n = argc == 2 ? strtol(argv[1], &end, 10) : 0;
    if (argc != 2 || *argv[1] == '\0' || *end != '\0' || n < 1 || n > 62) {
        fprintf(stderr, "usage: hanoi N, with N from 1 to 62 (not: %s)\n", argc == 2 ? argv[1] : "nothing");
        return 2;
    }
    int peg[3] = {0, 1, 2};
    if (n % 2 == 0) { peg[1] = 2; peg[2] = 1; }
    for (unsigned long long i = 1; i < (1ULL << n); i++) {
        printf("Disc %d: %d -> %d\n", __builtin_ctzll(i) + 1, peg[(i & (i - 1)) % 3], peg[((i | (i - 1)) + 1) % 3]);
    }
    return 0;
}
