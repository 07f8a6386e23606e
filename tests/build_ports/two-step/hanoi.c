/* The recursive Tower of Hanoi with its number of discs written in: the build writes a copy with n
   in place of the 3 below (program.c, in its working folder), then compiles that copy. */
#include <stdio.h>

#define DISCS 3

static void move(int discs, int from, int to) {
    if (discs == 0) return;
    int spare = 3 - from - to;
    move(discs - 1, from, spare);
    printf("%d %d %d\n", discs, from, to);
    move(discs - 1, spare, to);
}

int main(void) {
    move(DISCS, 0, 2);
    return 0;
}
