/* The recursive Tower of Hanoi, n from the command line; its source lies in a subfolder. */
#include <stdio.h>
#include <stdlib.h>

static void move(int discs, int from, int to) {
    if (discs == 0) return;
    int spare = 3 - from - to;
    move(discs - 1, from, spare);
    printf("%d %d %d\n", discs, from, to);
    move(discs - 1, spare, to);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: hanoi N\n");
        return 2;
    }
    move(atoi(argv[1]), 0, 2);
    return 0;
}
