// The Tower of Hanoi in C#: N discs from peg 0 to peg 2 by three classic methods, and the cyclic
// Tower of Hanoi: N discs from peg 0 to peg 1, every move one peg on (0 to 1, 1 to 2, 2 to 0).
//
//     mcs -optimize+ -out:hanoi.exe Hanoi.cs && mono hanoi.exe binary|recursive|iterative|cyclic N
//
// Each move is printed as it is made, one a line, "Disk 1 moves from peg 0 to peg 2", through one
// buffered StreamWriter: memory is O(N) whatever N is. The three classic methods print the same
// 2^N - 1 moves. A wrong METHOD or N: a usage message on standard error, exit code 2, no moves.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;

static class Hanoi
{
    // 2^62 - 1 moves is as far as a long counts them (the binary and iterative methods do).
    const int MostDiscs = 62;

    static readonly string[] Methods = { "binary", "recursive", "iterative", "cyclic" };

    // region binary
    // The Tower of Hanoi notes' bitwise formula: move i takes disc 1 + (trailing zero bits of i)
    // from peg (i & (i - 1)) % 3 to peg ((i | (i - 1)) + 1) % 3. For even n that formula ends on
    // peg 1, so there pegs 1 and 2 swap names.
    static void Binary(int n, Action<int, int, int> move)
    {
        int[] peg = n % 2 == 0 ? new[] { 0, 2, 1 } : new[] { 0, 1, 2 };
        for (long i = 1; i < 1L << n; i++)
        {
            move(TrailingZeroBits(i) + 1, peg[(i & (i - 1)) % 3], peg[((i | (i - 1)) + 1) % 3]);
        }
    }

    static int TrailingZeroBits(long i)
    {
        int zeros = 0;
        for (; (i & 1) == 0; i >>= 1)
        {
            zeros++;
        }
        return zeros;
    }
    // endregion binary

    // region recursive
    // The notes' r_toh(n, origin, target, spare) and Simply Logical's hanoi/5: the n - 1 smaller
    // discs out of the way to the spare peg, disc n from the source to the target, then the n - 1
    // from the spare onto it.
    static void Recursive(int n, int source, int target, int spare, Action<int, int, int> move)
    {
        if (n == 0)
        {
            return;
        }
        Recursive(n - 1, source, spare, target, move);
        move(n, source, target);
        Recursive(n - 1, spare, target, source, move);
    }
    // endregion recursive

    // region iterative
    // COMP9021's iterative_towers: the smallest disc makes every other move, always the same way
    // round the ring (one peg back, -1 mod 3, for odd n; one peg on for even n); each move between
    // is the only other legal one, between the two pegs the smallest disc is not on.
    static void Iterative(int n, Action<int, int, int> move)
    {
        var stacks = new[]
        {
            new Stack<int>(Enumerable.Range(1, n).Reverse()), // disc 1 on top
            new Stack<int>(),
            new Stack<int>(),
        };
        int direction = n % 2 == 1 ? 2 : 1; // 2 is -1 mod 3
        int smallest = 0;
        for (long i = 0; i < (1L << n) - 1; i++)
        {
            int from, to;
            if (i % 2 == 0)
            {
                from = smallest;
                to = (smallest + direction) % 3;
                smallest = to;
            }
            else
            {
                int a = (smallest + 1) % 3, b = (smallest + 2) % 3;
                bool aToB = stacks[b].Count == 0
                    || stacks[a].Count > 0 && stacks[a].Peek() < stacks[b].Peek();
                from = aToB ? a : b;
                to = aToB ? b : a;
            }
            int disc = stacks[from].Pop();
            stacks[to].Push(disc);
            move(disc, from, to);
        }
    }
    // endregion iterative

    // region cyclic
    // The cyclic Tower of Hanoi article's two transfers, in which a disc only ever moves one peg
    // on. To the adjacent tower: the n - 1 smaller discs to the post-adjacent one, out of the way,
    // disc n one peg on, then the n - 1 on to their post-adjacent tower, on top of disc n.
    static void ToAdjacent(int n, int from, Action<int, int, int> move)
    {
        if (n == 0)
        {
            return;
        }
        int to = Next(from);
        ToPostAdjacent(n - 1, from, move);
        move(n, from, to);
        ToPostAdjacent(n - 1, Next(to), move);
    }

    // To the post-adjacent tower, disc n goes one peg on twice: the n - 1 out of its way to the
    // post-adjacent tower, disc n one on, the n - 1 back where they began (one on), disc n one on
    // again, and the n - 1 onto it, two pegs on.
    static void ToPostAdjacent(int n, int from, Action<int, int, int> move)
    {
        if (n == 0)
        {
            return;
        }
        int between = Next(from), to = Next(between);
        ToPostAdjacent(n - 1, from, move);
        move(n, from, between);
        ToAdjacent(n - 1, to, move);
        move(n, between, to);
        ToPostAdjacent(n - 1, from, move);
    }

    static int Next(int peg) => (peg + 1) % 3;
    // endregion cyclic

    static int Main(string[] args)
    {
        if (args.Length != 2)
        {
            return Usage($"expected METHOD and N, got {args.Length} argument(s)");
        }
        string method = args[0];
        if (!Methods.Contains(method))
        {
            return Usage($"unknown method '{method}'");
        }
        if (args[1].Length == 0 || !args[1].All(c => c >= '0' && c <= '9'))
        {
            return Usage($"N must be a whole number of discs, 0 or more, not '{args[1]}'");
        }
        if (!int.TryParse(args[1], NumberStyles.None, CultureInfo.InvariantCulture, out int n)
            || n > MostDiscs)
        {
            return Usage($"N = {args[1]} is more discs than a long counts the moves of");
        }

        var stdout = Console.OpenStandardOutput();
        using (var output = new StreamWriter(stdout, new UTF8Encoding(false), 1 << 16))
        {
            Action<int, int, int> move =
                (disc, from, to) => output.WriteLine($"Disk {disc} moves from peg {from} to peg {to}");
            switch (method)
            {
                case "binary": Binary(n, move); break;
                case "recursive": Recursive(n, 0, 2, 1, move); break;
                case "iterative": Iterative(n, move); break;
                case "cyclic": ToAdjacent(n, 0, move); break; // peg 0 to peg 1, the adjacent tower
            }
        }
        return 0;
    }

    static int Usage(string problem)
    {
        Console.Error.WriteLine(
            $"usage: mono hanoi.exe binary|recursive|iterative|cyclic N   (N from 0 to {MostDiscs})");
        Console.Error.WriteLine($"Hanoi: {problem}");
        return 2;
    }
}
