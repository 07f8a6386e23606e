"""Start a new port: a folder with a manifest the harness can already read, and a program that does
nothing yet, so that ``harness compare --lang NAME`` runs at once and shows what is left to write."""

from __future__ import annotations

import re
from pathlib import Path

from harness.discover import MANIFEST

NAME = re.compile(r"[a-z][a-z0-9_-]*")

MANIFEST_TEXT = """\
# The {name} port: see docs/ADDING_A_LANGUAGE.md for a walk through, docs/SPEC.md for every key.
summary = "{name}"

# How to run one cell, in this folder. {{method}} and {{n}} are filled in.
command = ["{interpreter}", "{program}", "{{method}}", "{{n}}"]

# The methods the program offers so far; the harness reports the others as skipped.
# All of them: binary, recursive, iterative, cyclic.
methods = ["recursive"]

[[requires]]
executable = "{interpreter}"
version = ["{interpreter}", "--version"]
install = "how to install {interpreter}, for whoever lacks it"

[output]
# A regular expression for a line that is one move, with the named groups src and dst (and disk, if
# the line names the disc), in the program's own words: say "Move disc 1 from A to C" with
# patterns = ['Move disc (?P<disk>\\d+) from (?P<src>[ABC]) to (?P<dst>[ABC])'] and
# pegs = ["A", "B", "C"].
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
# The program's names for pegs 0, 1 and 2.
pegs = ["0", "1", "2"]
"""

PROGRAM_TEXT = """\
The Tower of Hanoi in {name}: to be written.

    {interpreter} {program} METHOD N

prints the moves of N discs, one a line, as they are made. For binary, recursive and iterative,
from peg 0 to peg 2 (the first moves for N = 3: 1 0 2, 2 0 1, 1 2 1); for cyclic, from peg 0 to
peg 1, every move one peg on (0 to 1, 1 to 2, 2 to 0). A bad METHOD or N: a usage message on
standard error and exit code 2. See docs/SPEC.md.
"""


class ScaffoldError(ValueError):
    """The port cannot be started as asked; the message says why."""


def new_language(root: Path, name: str, interpreter: str, program: str, comment: str) -> list[Path]:
    """Create ``root/name`` with a manifest and a stub program; the files made, manifest first."""
    if not NAME.fullmatch(name):
        raise ScaffoldError(f"{name!r} is not a port name: lower-case letters, digits, - and _, starting with a letter")
    if "/" in program or not program:
        raise ScaffoldError(f"{program!r} is not a file name for the program")
    folder = root / name
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists")
    folder.mkdir(parents=True)
    values = {"name": name, "interpreter": interpreter, "program": program}
    manifest = folder / MANIFEST
    manifest.write_text(MANIFEST_TEXT.format(**values), encoding="utf-8")
    stub = "".join(f"{comment} {line}".rstrip() + "\n" for line in PROGRAM_TEXT.format(**values).splitlines())
    (folder / program).write_text(stub, encoding="utf-8")
    return [manifest, folder / program]
