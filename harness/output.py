"""How a program's output is to be read, as its manifest's ``[output]`` table says: the format (the
name of one of ``harness.readers.READERS``), the patterns and peg names, and the stream the moves are
written to. It is a word of the whole harness: the manifest's parser makes it, the modes route the
stream it names, and the readers, the line handling and the fast path read by it, so it lives below
them all, apart from the readers that the registry loads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import regex

OutputFormat = str
"""The name of an output format: a key of ``harness.readers.READERS``, to which the manifest's parser
holds it. Not a ``Literal`` of the names, which would copy the registry for mypy and make a new format two lines."""
Stream = Literal["stdout", "stderr", "both"]
"""Where a program's moves are: its standard output, its standard error, or both as one stream, in the
order they were written."""


@dataclass(frozen=True)
class Output:
    """How to read what a program prints. ``lines``: moves, read by ``patterns``. ``states``: the
    board after each move, one tower a match of ``patterns``, each move worked out from the change.
    ``drawings``: the cyclic Tower of Hanoi article's horizontal drawings of the towers, one drawing
    after each move, each row ending in ``|`` and the peg's name. ``ignore`` are lines to skip, and
    ``separator`` splits a line into the pieces the patterns read. ``stream`` is where the moves are
    written: standard output, standard error, or both, read as one stream in the order written.
    ``discs`` are the program's names for discs 1, 2, 3…, where it does not number them."""

    format: OutputFormat
    pegs: tuple[str, ...]
    patterns: tuple[regex.Pattern[str], ...] = ()
    ignore: tuple[regex.Pattern[str], ...] = ()
    separator: regex.Pattern[str] | None = None
    stream: Stream = "stdout"
    discs: tuple[str, ...] = ()
