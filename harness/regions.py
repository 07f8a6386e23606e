"""What code a method is: a manifest's ``[code]`` table names, for each method, a file of the port and,
after ``#``, a region of it, ``hanoi.py#recursive``; the gallery shows that code and nothing else.

A region is marked by comment lines in whatever comment syntax the language has: a line that is,
after its indentation, a comment leader (one to four marks such as ``#``, ``//``, ``--``, ``%``,
``;``, ``/*``, ``(*``, ``<!--``), then ``region`` and one or more names, opens the region of each
name; ``endregion`` and the names closes them. A closing mark of the comment (``*/``, ``*)``,
``-->``) may end the line. A region may be opened and closed several times in a file, and regions
may overlap (a helper two methods share is in both): the method's code is every part of the file
between its markers, in order, without the marker lines themselves.

    # region recursive              -- region recursive            % region recursive cyclic
    def recursive(n, moves): ...    CREATE FUNCTION ...            say(Src, Dst) :- ...
    # endregion recursive           -- endregion recursive         % endregion recursive cyclic

The file is the port's own: a path relative to the port's folder, with no ``..`` and no link that
leads out of it, read up to MAX_SOURCE_BYTES.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from harness.errors import ManifestError

MAX_SOURCE_BYTES = 1 << 20
"""The most a file named by ``[code]`` may hold: a port's source is a few kilobytes."""
REGION_NAME = r"[A-Za-z][A-Za-z0-9_-]*"
REFERENCE = re.compile(rf"(?P<path>[^#\\\x00]+?)(?:#(?P<region>{REGION_NAME}))?")
MARKER = re.compile(rf"\s*[^\w\s]{{1,4}}\s*(?P<end>end)?region(?P<names>(?:[ \t]+{REGION_NAME})+)\s*[^\w\s]{{0,4}}\s*")
"""A line that opens or closes regions, in any language's comment: ``# region a b``, ``-- endregion a``."""


@dataclass(frozen=True)
class Span:
    """One stretch of a method's code: its lines, and the number in the file of the first."""

    first: int
    lines: tuple[str, ...]

    @property
    def last(self) -> int:
        """The number in the file of the last line."""
        return self.first + len(self.lines) - 1


@dataclass(frozen=True)
class Code:
    """The code of one method as the manifest names it: the reference, the file (relative to the
    port's folder), the region (None: the whole file), and the parts of the file it is."""

    reference: str
    path: PurePosixPath
    region: str | None
    spans: tuple[Span, ...]

    @property
    def lines(self) -> int:
        """How many lines the code is, blank ones included, markers not."""
        return sum(len(span.lines) for span in self.spans)

    @property
    def text(self) -> str:
        """The code as one text, its parts separated by a blank line."""
        return "\n\n".join("\n".join(span.lines) for span in self.spans) + "\n"


def parse_reference(reference: str) -> tuple[PurePosixPath, str | None]:
    """A reference's file and region, ``hanoi.sh#recursive``; ManifestError for one that names
    nothing in the port's folder (an absolute path, ``..``, a backslash, an empty name)."""
    found = REFERENCE.fullmatch(reference)
    if found is None:
        raise ManifestError(f"{reference!r} is not FILE or FILE#REGION (a region's name is letters, digits, _ and -)", value=reference)
    path = PurePosixPath(found["path"])
    if path.is_absolute() or ".." in path.parts or found["path"].strip() != found["path"]:
        raise ManifestError(f"{reference!r} names a file outside the port's folder: give a path relative to it, without '..'", value=reference)
    return path, found["region"]


def read_code(folder: Path, reference: str) -> Code:
    """The code a reference names in the port's ``folder`` (resolved), read and cut out; ManifestError
    if the file is not there, leads out of the folder, is too large or not UTF-8 text, or the region
    is not marked in it, or marked wrongly."""
    path, region = parse_reference(reference)
    target = folder / path
    try:
        resolved = target.resolve(strict=True)
    except (OSError, RuntimeError):
        raise ManifestError(f"{reference!r} names {str(path)!r}, which is not in the port's folder", value=reference) from None
    if not resolved.is_relative_to(folder):
        raise ManifestError(f"{reference!r} leads out of the port's folder, by a link: a port's code is its own files", value=reference)
    if not resolved.is_file():
        raise ManifestError(f"{reference!r} names {str(path)!r}, which is not a file", value=reference)
    with resolved.open("rb") as source:
        raw = source.read(MAX_SOURCE_BYTES + 1)
    if len(raw) > MAX_SOURCE_BYTES:
        raise ManifestError(f"{reference!r} names a file larger than {MAX_SOURCE_BYTES >> 10} KiB, the most the harness reads for code", value=reference)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ManifestError(f"{reference!r} names a file that is not UTF-8 text (byte {error.start})", value=reference) from None
    try:
        spans = extract(text, region)
    except ValueError as error:
        raise ManifestError(f"{reference!r}: {error}", value=reference) from None
    return Code(reference, path, region, spans)


def extract(text: str, region: str | None) -> tuple[Span, ...]:
    """The parts of ``text`` in ``region`` (all of it for None), each without the blank lines at its
    ends; ValueError, saying where, for a region that is not there, empty, or not closed as opened."""
    lines = text.splitlines()
    if region is None:
        return _trimmed([Span(1, tuple(lines))]) or _nothing("the file is empty")
    parts: list[tuple[int, int]] = []  # each part's first line and the line after its last, numbered from 1
    opened: int | None = None
    for number, line in enumerate(lines, 1):
        marker = MARKER.fullmatch(line)
        if marker is None or region not in marker["names"].split():
            continue
        if marker["end"] is None:
            if opened is not None:
                raise ValueError(f"line {number} opens region {region!r} again, which line {opened} opened and nothing closed since")
            opened = number
        else:
            if opened is None:
                raise ValueError(f"line {number} closes region {region!r}, which no line before it opens")
            parts.append((opened + 1, number))
            opened = None
    if opened is not None:
        raise ValueError(f"line {opened} opens region {region!r}, which no line after it closes")
    if not parts:
        raise ValueError(f"no region {region!r} in the file: mark it with a comment line 'region {region}' before it and 'endregion {region}' after it")
    spans = [Span(first, tuple(line for line in lines[first - 1:after - 1] if not MARKER.fullmatch(line))) for first, after in parts]
    return _trimmed(spans) or _nothing(f"region {region!r} holds no code")


def _trimmed(spans: list[Span]) -> tuple[Span, ...]:
    """The spans without blank lines at their ends, and those left empty dropped."""
    kept = []
    for span in spans:
        lines = list(span.lines)
        first = span.first
        while lines and not lines[0].strip():
            lines.pop(0)
            first += 1
        while lines and not lines[-1].strip():
            lines.pop()
        if lines:
            kept.append(Span(first, tuple(lines)))
    return tuple(kept)


def _nothing(why: str) -> tuple[Span, ...]:
    raise ValueError(why)
