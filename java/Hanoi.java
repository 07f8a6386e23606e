// The Tower of Hanoi in Java: N discs from peg A to peg C by three classic methods, and the cyclic
// Tower of Hanoi: N discs from peg A to peg B, every move one peg on (A to B, B to C, C to A).
//
//     javac -d build Hanoi.java && java -cp build Hanoi binary|recursive|iterative|cyclic N
//
// Each move is printed as it is made, one a line, "Move disk 1 from A to C", through one buffered
// writer: memory is O(N) whatever N is. The three classic methods print the same 2^N - 1 moves.
// A wrong METHOD or N: a usage message on standard error, exit code 2, no moves.

import java.io.BufferedWriter;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

public final class Hanoi {
    /** 2^62 - 1 moves is as far as a long counts them (the binary and iterative methods do). */
    private static final int MOST_DISCS = 62;

    private static final List<String> METHODS =
            List.of("binary", "recursive", "iterative", "cyclic");
    private static final char[] PEG_NAMES = {'A', 'B', 'C'};

    private final PrintWriter out;

    private Hanoi(PrintWriter out) {
        this.out = out;
    }

    private void move(int disc, int from, int to) {
        out.println("Move disk " + disc + " from " + PEG_NAMES[from] + " to " + PEG_NAMES[to]);
    }

    // region binary
    // The Tower of Hanoi notes' bitwise formula: move i takes disc 1 + (trailing zero bits of i)
    // from peg (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3. For even n that formula ends on
    // peg 1 (B), so there pegs 1 and 2 (B and C) swap names.
    private void binary(int n) {
        int[] peg = n % 2 == 0 ? new int[] {0, 2, 1} : new int[] {0, 1, 2};
        for (long i = 1; i < 1L << n; i++) {
            int disc = Long.numberOfTrailingZeros(i) + 1;
            move(disc, peg[(int) ((i & (i - 1)) % 3)], peg[(int) (((i | (i - 1)) + 1) % 3)]);
        }
    }
    // endregion binary

    // region recursive
    // The notes' r_toh(n, origin, target, spare) and Simply Logical's hanoi/5: the n - 1 smaller
    // discs out of the way to the spare peg, disc n from the source to the target, then the n - 1
    // from the spare onto it.
    private void recursive(int n, int source, int target, int spare) {
        if (n == 0) {
            return;
        }
        recursive(n - 1, source, spare, target);
        move(n, source, target);
        recursive(n - 1, spare, target, source);
    }
    // endregion recursive

    // region iterative
    // COMP9021's iterative_towers: the smallest disc makes every other move, always the same way
    // round the ring (one peg back, -1 mod 3, for odd n; one peg on for even n); each move between
    // is the only other legal one, between the two pegs the smallest disc is not on.
    private void iterative(int n) {
        List<Deque<Integer>> stacks =
                List.of(new ArrayDeque<>(), new ArrayDeque<>(), new ArrayDeque<>());
        for (int disc = n; disc >= 1; disc--) {
            stacks.get(0).push(disc);
        }
        int direction = n % 2 == 1 ? 2 : 1; // 2 is -1 mod 3
        int smallest = 0;
        for (long i = 0; i < (1L << n) - 1; i++) {
            int from;
            int to;
            if (i % 2 == 0) {
                from = smallest;
                to = (smallest + direction) % 3;
                smallest = to;
            } else {
                int a = (smallest + 1) % 3;
                int b = (smallest + 2) % 3;
                Integer onA = stacks.get(a).peek(); // null on an empty peg
                Integer onB = stacks.get(b).peek();
                boolean aToB = onB == null || onA != null && onA < onB;
                from = aToB ? a : b;
                to = aToB ? b : a;
            }
            int disc = stacks.get(from).pop();
            stacks.get(to).push(disc);
            move(disc, from, to);
        }
    }
    // endregion iterative

    // region cyclic
    // The cyclic Tower of Hanoi article's two transfers, in which a disc only ever moves one peg
    // on. To the adjacent tower: the N - 1 smaller discs to the post-adjacent one, out of the way,
    // disc N one peg on, then the N - 1 on to its post-adjacent tower, on top of disc N.
    private void toAdjacent(int n, int from) {
        if (n == 0) {
            return;
        }
        int to = next(from);
        toPostAdjacent(n - 1, from);
        move(n, from, to);
        toPostAdjacent(n - 1, next(to));
    }

    // To the post-adjacent tower, disc N goes one peg on twice: the N - 1 out of its way to the
    // post-adjacent tower, disc N one on, the N - 1 back where they began (one on), disc N one on
    // again, and the N - 1 onto it, two pegs on.
    private void toPostAdjacent(int n, int from) {
        if (n == 0) {
            return;
        }
        int between = next(from);
        int to = next(between);
        toPostAdjacent(n - 1, from);
        move(n, from, between);
        toAdjacent(n - 1, to);
        move(n, between, to);
        toPostAdjacent(n - 1, from);
    }

    private static int next(int peg) {
        return (peg + 1) % 3;
    }
    // endregion cyclic

    public static void main(String[] args) {
        if (args.length != 2) {
            exitWithUsage("expected METHOD and N, got " + args.length + " argument(s)");
        }
        String method = args[0];
        if (!METHODS.contains(method)) {
            exitWithUsage("unknown method '" + method + "'");
        }
        if (!args[1].matches("[0-9]+")) {
            exitWithUsage("N must be a whole number of discs, 0 or more, not '" + args[1] + "'");
        }
        if (new BigInteger(args[1]).compareTo(BigInteger.valueOf(MOST_DISCS)) > 0) {
            exitWithUsage("N = " + args[1] + " is more discs than a long counts the moves of");
        }
        int n = Integer.parseInt(args[1]);

        var buffered = new BufferedWriter(new OutputStreamWriter(System.out), 1 << 16);
        try (PrintWriter out = new PrintWriter(buffered)) {
            Hanoi hanoi = new Hanoi(out);
            switch (method) {
                case "binary" -> hanoi.binary(n);
                case "recursive" -> hanoi.recursive(n, 0, 2, 1);
                case "iterative" -> hanoi.iterative(n);
                case "cyclic" -> hanoi.toAdjacent(n, 0); // A to B, the adjacent tower
                default -> throw new AssertionError(method);
            }
        }
    }

    private static void exitWithUsage(String problem) {
        System.err.println("usage: java Hanoi binary|recursive|iterative|cyclic N"
                + "   (N from 0 to " + MOST_DISCS + ")");
        System.err.println("Hanoi: " + problem);
        System.exit(2);
    }
}
