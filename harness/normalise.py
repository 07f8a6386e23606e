"""Turn a port's own lines into moves, using the patterns and peg names of its manifest."""

from __future__ import annotations

from harness.discover import Port
from harness.model import Move


class Unreadable(ValueError):
    """A line that no pattern of the port reads, or that names a peg the port does not have."""


class Reader:
    def __init__(self, port: Port):
        self._patterns = port.patterns
        self._pegs = {name: index for index, name in enumerate(port.pegs)}

    def read(self, line: str) -> Move:
        for pattern in self._patterns:
            match = pattern.fullmatch(line)
            if match:
                disk = match["disk"] if "disk" in pattern.groupindex else None
                return Move(None if disk is None else _disk(disk), self._peg(match["src"]), self._peg(match["dst"]))
        expected = " or ".join(pattern.pattern for pattern in self._patterns)
        raise Unreadable(f"{line!r} matches none of the port's patterns; expected {expected}")

    def _peg(self, name: str) -> int:
        try:
            return self._pegs[name]
        except KeyError:
            raise Unreadable(f"peg {name!r} is not one of {', '.join(map(repr, self._pegs))}") from None


def _disk(text: str) -> int:
    if not text.isdecimal():
        raise Unreadable(f"disk {text!r} is not a whole number")
    return int(text)
