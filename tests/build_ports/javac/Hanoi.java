// The recursive Tower of Hanoi in Java. javac makes class files, not one program: the build puts
// them in its build folder, and the command runs the class from there.
public final class Hanoi {
    private static final StringBuilder OUT = new StringBuilder();

    private static void move(int discs, int from, int to) {
        if (discs == 0) {
            return;
        }
        int spare = 3 - from - to;
        move(discs - 1, from, spare);
        OUT.append("Move disc ").append(discs).append(" from ").append(from).append(" to ").append(to).append('\n');
        if (OUT.length() > 1 << 16) {
            System.out.print(OUT);
            OUT.setLength(0);
        }
        move(discs - 1, spare, to);
    }

    public static void main(String[] args) {
        if (args.length != 1 || !args[0].matches("\\d+")) {
            System.err.println("usage: java Hanoi N");
            System.exit(2);
        }
        move(Integer.parseInt(args[0]), 0, 2);
        System.out.print(OUT);
    }
}
