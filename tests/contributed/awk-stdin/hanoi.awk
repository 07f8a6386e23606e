# The Tower of Hanoi, iteratively, in AWK. It reads the number of discs from standard input and
# prints the moves eight to a line, each as DISC:FROM→TO with the pegs numbered 1, 2, 3.
NR == 1 {
    if ($0 !~ /^[0-9]+$/) { print "usage: echo N | awk -f hanoi.awk" > "/dev/stderr"; exit 2 }
    n = $0 + 0
    for (peg = 1; peg <= 3; peg++) height[peg] = 0
    for (disc = n; disc >= 1; disc--) tower[1, ++height[1]] = disc
    # The smallest disc goes round 1 → 3 → 2 for odd n, 1 → 2 → 3 for even n.
    step = (n % 2) ? 2 : 1
    small = 1
    total = 2 ^ n - 1
    for (move = 1; move <= total; move++) {
        if (move % 2) {
            to = (small - 1 + step) % 3 + 1
            shift_disc(small, to)
            small = to
        } else {
            a = small % 3 + 1; b = (small + 1) % 3 + 1
            if (height[a] == 0 || (height[b] > 0 && tower[b, height[b]] < tower[a, height[a]])) shift_disc(b, a)
            else shift_disc(a, b)
        }
    }
    if (total % 8) printf "\n"
    exit 0
}
function shift_disc(from, to,    disc) {
    disc = tower[from, height[from]--]
    tower[to, ++height[to]] = disc
    printf "%d:%d→%d%s", disc, from, to, (++printed % 8) ? " " : "\n"
}
