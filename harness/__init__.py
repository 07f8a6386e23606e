"""hanoi-polyglot's harness: discover the ports, run them, read their moves, verify them, compare them, report."""

__version__ = "0.1.0"
