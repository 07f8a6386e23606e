"""The ways a port's output is read, one module each, and their registry.

A reader takes the port's output a line at a time and gives the moves each line completes. Each
output format a manifest may name (``[output] format``) is one entry of :data:`READERS`: the module
that reads it and its reader class, the named groups its patterns must and may have, and whether
its patterns are needed at all. Besides the class (made as ``Class(output, n, deadline)``), the
module has ``wording(output, plan)``, the bytes the output must hold where they can be known in
advance (the fast path compares those bytes and reads nothing line by line; None where it cannot),
and ``counter(output)``, which counts the moves in the output's bytes where counting lines or
drawings counts them (``harness bench``): :class:`harness.expect.ReaderModule`, to which each module
is held when it is loaded. Adding a format is one module and one line here; the manifest's parser,
the fast path and bench all follow the registry.

This module holds names only, so that the manifest's parser, far below the readers, can know them.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from collections.abc import Sequence

    from harness.model import Move
    from harness.output import Output, OutputFormat


class Reader(Protocol):
    """What reads one cell's output."""

    top_first: bool | None
    """Whether the towers it read list their discs from the top (None: it read no tower)."""

    def read(self, line: str) -> list[Move]:
        """The moves this line completes: none, one or several; :class:`~harness.errors.Unreadable` if it is no output of the format."""

    def finish(self) -> None:
        """The output has ended: refuse a move left half read."""

    def between_moves(self) -> bool:
        """Whether no move is half read, so the next bytes may be compared as whole moves."""

    def skip(self, moves: int, pegs: Sequence[Sequence[int]]) -> None:
        """``moves`` moves were taken by comparing bytes, not read; ``pegs`` (each from its bottom
        disc up, as the board keeps them) is the board after them."""


@dataclass(frozen=True)
class Reading:
    """An output format: its module, and what the manifest's patterns for it must hold."""

    name: OutputFormat
    module: str
    reader: str
    """The module's class that reads the format, a :class:`Reader`."""
    required: tuple[str, ...]
    """The named groups each pattern must have."""
    optional: tuple[str, ...]
    """Those it may add."""
    patterns: bool
    """Whether the manifest gives patterns for it (drawings are read without)."""

    def load(self) -> ModuleType:
        """The module that reads this format, loaded at first need."""
        return importlib.import_module(self.module)

    def open(self, output: Output, n: int, deadline: float | None = None) -> Reader:
        """A reader of one cell's output of ``n`` discs, whose patterns may match until ``deadline``."""
        reader: Reader = getattr(self.load(), self.reader)(output, n, deadline)
        return reader


READERS: dict[str, Reading] = {
    reading.name: reading
    for reading in (
        Reading("lines", "harness.readers.lines", "LineReader", ("src", "dst"), ("disk",), patterns=True),
        Reading("states", "harness.readers.states", "StateReader", ("discs",), ("peg",), patterns=True),
        Reading("drawings", "harness.readers.drawings", "DrawingReader", (), (), patterns=False),
    )
}
"""The output formats, by the name a manifest gives; ``lines`` when it names none."""
DEFAULT: OutputFormat = "lines"
