"""Turn a program's own output into moves, as its manifest's [output] table says to read it.

Three dialects: ``lines``, moves read with the manifest's patterns and peg names; ``states``, the
board after each move, one tower a pattern, from which each move is worked out by comparing a
state with the one before; and ``drawings``, the cyclic Tower of Hanoi article's pictures of the
towers, read the same way. Every reader's ``read`` takes one line and gives the moves it completes,
none or several.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import regex

from harness.environment import quote
from harness.errors import OutOfTime, Unreadable
from harness.output import Output

MAX_LINE_BYTES = 8192
"""Longer than any move or drawing row a port prints: a longer line is an error, not a flood."""
MATCH_SECONDS = 1.0
"""A pattern reads a line at once; one still matching after this long backtracks without end."""

MAX_DISC_DIGITS = 6
"""No puzzle a port can finish has a disc numbered beyond this; a longer number is refused unread."""

Towers = list[tuple[int, ...]]
"""The discs on pegs 0, 1 and 2, each tower from its top disc down."""


def text(line: bytes) -> str:
    """A line of output as text: UTF-8, a stray carriage return dropped, undecodable bytes shown as such."""
    return line.decode("utf-8", "replace").rstrip("\r")


class OutputStream:
    """A port's output as it arrives in blocks: taken either a known stretch of bytes at a time
    (:meth:`take`) or a line at a time (:meth:`line`), a line never longer than
    :data:`MAX_LINE_BYTES`, so memory stays bounded whatever a port prints. Where the manifest
    splits lines at a ``separator``, a longer line is taken in pieces cut at separators, each piece
    within that bound: a program that prints every move on one line is read in bounded memory."""

    def __init__(self, blocks: Iterator[bytes], separator: regex.Pattern[str] | None = None) -> None:
        self._blocks = blocks
        self._separator = separator
        self._buffer = b""
        self._at = 0
        self._mid_line = False
        self.lines = 0
        """The number of the line being read: how many lines have been begun."""
        self.cut_short = False
        """Whether the output ended in the middle of a line: its last line, read, had no line ending."""

    @property
    def within_line(self) -> bool:
        """Whether what was taken last left its line unfinished: a piece cut at a separator."""
        return self._mid_line

    def take(self, expected: bytes, lines: int) -> bool:
        """Take ``expected`` if the output goes on with exactly those bytes: ``lines`` whole lines, or,
        with none, a part of a line that goes on after it."""
        while len(self._buffer) - self._at < len(expected):
            if not self._more():
                return False
        if not self._buffer.startswith(expected, self._at):
            return False
        self._at += len(expected)
        if lines:
            self.lines += lines
        else:
            self._begin(ends=False)
        return True

    def line(self) -> bytes | None:
        """The next line without its line ending (a last line may lack one), or the next piece of a
        long line with a separator; None at the end."""
        while (end := self._buffer.find(b"\n", self._at, self._at + MAX_LINE_BYTES + 1)) < 0:
            if len(self._buffer) - self._at > MAX_LINE_BYTES:
                return self._piece()
            if not self._more():
                if self._at == len(self._buffer):
                    return None
                last, self._at = self._buffer[self._at:], len(self._buffer)
                self._begin(ends=True)
                self.cut_short = True
                return last
        line = self._buffer[self._at:end]
        self._at = end + 1
        self._begin(ends=True)
        return line

    def _begin(self, ends: bool) -> None:
        """Count a line where one begins, and note whether the part taken ended it."""
        if not self._mid_line:
            self.lines += 1
        self._mid_line = not ends

    def _piece(self) -> bytes:
        """The part of a long line up to its last separator within :data:`MAX_LINE_BYTES`; a line
        with no separator there is refused. Bytes that are not UTF-8 keep their place
        (surrogateescape), so the cut falls where the separator is."""
        window = self._buffer[self._at:self._at + MAX_LINE_BYTES].decode("utf-8", "surrogateescape")
        cut = None
        if self._separator is not None:
            cut = next(
                (match for match in reversed(list(self._separator.finditer(window, timeout=MATCH_SECONDS)))
                 if match.end() < len(window) and match.end() > match.start()),
                None,
            )
        if cut is None:
            number = self.lines + (not self._mid_line)
            what = f"line {number} has more than {MAX_LINE_BYTES:,} bytes between separators, the most a piece of a line may be"
            if self._separator is None:
                what = f"line {number} is longer than {MAX_LINE_BYTES:,} bytes, the most a move's line may be"
            start = window[:200].encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            raise Unreadable(f"{what}; it starts {quote(start, 60, whole=len(window))}")
        piece = window[:cut.start()].encode("utf-8", "surrogateescape")
        self._at += len(window[:cut.end()].encode("utf-8", "surrogateescape"))
        self._begin(ends=False)
        return piece

    def _more(self) -> bool:
        block = next(self._blocks, None)
        if block is None:
            return False
        left = len(self._buffer) - self._at  # what is still unread is copied once, with the block
        self._buffer = b"".join((memoryview(self._buffer)[self._at:], block)) if left else block
        self._at = 0
        return True


class Clock:
    """How long a pattern may match: :data:`MATCH_SECONDS` a line, and never past ``deadline`` (on
    :func:`time.monotonic`'s clock), so one that backtracks without end is the cell's error, not a
    hung harness."""

    def __init__(self, deadline: float | None) -> None:
        self._deadline = deadline

    def run(self, pattern: regex.Pattern[str], method: str, text: str) -> Any:
        """``pattern.method(text)`` (fullmatch, search or split), within the time left."""
        left = MATCH_SECONDS if self._deadline is None else min(max(self._deadline - time.monotonic(), 0.001), MATCH_SECONDS)
        try:
            return getattr(pattern, method)(text, timeout=left, concurrent=True)
        except TimeoutError:
            if self._deadline is not None and time.monotonic() >= self._deadline:
                raise OutOfTime() from None
            raise Unreadable(
                f"the pattern {pattern.pattern!r} was still matching {quote(text, 60)} after {MATCH_SECONDS:g} s"
            ) from None

    def pieces(self, output: Output, line: str) -> list[str]:
        """The parts of a line to read: none for a blank line or one the manifest ignores, else the
        line cut at each separator (an empty piece may be an empty tower, in a state)."""
        if not line.strip() or any(self.run(pattern, "fullmatch", line) for pattern in output.ignore):
            return []
        return [line] if output.separator is None else self.run(output.separator, "split", line)

    def match(self, patterns: Sequence[regex.Pattern[str]], text: str) -> regex.Match[str]:
        """The first pattern's match of the whole of ``text``; refused, with what was expected, if none."""
        for pattern in patterns:
            match = self.run(pattern, "fullmatch", text)
            if match:
                return match
        expected = " or ".join(pattern.pattern for pattern in patterns)
        partial = next((pattern.pattern for pattern in patterns if self.run(pattern, "search", text)), None)
        hint = f" ({partial} matches part of it: patterns must match the whole line)" if partial else ""
        raise Unreadable(f"{quote(text)} matches none of the port's patterns; expected {expected}{hint}")


def peg_number(pegs: dict[str, int], name: str) -> int:
    """The number of the peg the port calls ``name``, by the manifest's peg names."""
    try:
        return pegs[name]
    except KeyError:
        raise Unreadable(f"peg {quote(name, 40)} is not one of {', '.join(map(repr, pegs))}") from None


def disc_named(discs: dict[str, int], text: str) -> int:
    """The number of the disc the port calls ``text``, by the manifest's disc names."""
    try:
        return discs[text]
    except KeyError:
        raise Unreadable(f"disc {quote(text, 40)} is not one of the port's discs {', '.join(map(repr, discs))}") from None


def disc_number(text: str) -> int:
    """A disc's number: ASCII digits only (int() would take other scripts' digits too), and few of them."""
    if not (text.isascii() and text.isdigit()):
        raise Unreadable(f"disk {text[:20]!r} is not a whole number in the digits 0-9")
    if len(text) > MAX_DISC_DIGITS:
        raise Unreadable(f"disk {text[:20]}... has {len(text)} digits: no disc of a finishable puzzle has more than {MAX_DISC_DIGITS}")
    return int(text)
