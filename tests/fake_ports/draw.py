"""A port that draws the cyclic Tower of Hanoi as the article's print_tower() does, and gets one
thing wrong on purpose, to show that the harness reads drawings rightly.

    python3 draw.py FAULT METHOD N

FAULT is ``skip``: the drawing after move 3 is left out.
"""

import sys


def cyclic(n, src=0, dst=1):
    if n:
        on = (src + 1) % 3
        if dst == on:
            yield from cyclic(n - 1, src, (dst + 1) % 3)
            yield src, dst
            yield from cyclic(n - 1, (dst + 1) % 3, dst)
        else:
            yield from cyclic(n - 1, src, dst)
            yield src, on
            yield from cyclic(n - 1, dst, src)
            yield on, dst
            yield from cyclic(n - 1, src, dst)


def draw(towers, n):
    width = len(str(n))
    for name, tower in zip("ABC", towers):
        slots = ["-" * (width + 1)] * (n - len(tower)) + ["-" + str(disc).rjust(width, "-") for disc in tower]
        print("".join(slots) + "|" + name)
    print()


def main():
    fault, _method, n = sys.argv[1:]
    n = int(n)
    towers = [list(range(1, n + 1)), [], []]
    draw(towers, n)
    for number, (src, dst) in enumerate(cyclic(n), 1):
        towers[dst].insert(0, towers[src].pop(0))
        if not (fault == "skip" and number == 3):
            draw(towers, n)


main()
