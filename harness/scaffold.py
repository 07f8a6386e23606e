"""Start a new port: a folder with a manifest the harness can already read, and a program that does
nothing yet, so that ``harness compare --lang NAME`` runs at once and shows what is left to write."""

from __future__ import annotations

import json
import os
import re
import shlex
from pathlib import Path

from harness import schema_file
from harness.discover import MANIFEST
from harness.errors import ScaffoldError
from harness.regions import MARKER

NAME = re.compile(r"[a-z][a-z0-9_-]*")
COMMENT_ENDS = {"/*": "*/", "(*": "*)", "{-": "-}", "#|": "|#", "<!--": "-->", "--[[": "]]"}
"""How a comment that must be closed on its line closes, for a stub that compiles from the start."""
SCHEMA = schema_file("language")
"""The manifest's JSON Schema, shipped with the harness: editors that read TOML (taplo, and VS Code's
extensions built on it) underline a key it does not know."""
SCHEMA_COPY = Path("schemas") / SCHEMA.name
"""Where, in a folder of ports that does not hold the harness, its ports' manifests find the schema:
a copy of the installed harness's, whose ``$id`` is still its public address."""
TAPLO_TEXT = f"""\
# taplo, and the editors built on it (VS Code's Even Better TOML, Helix, Zed), read every port's
# manifest against the harness's schema, from the copy beside it: no network is needed. The copy is
# what `harness schema language` prints; its $id is the schema's public address.
include = ["*/{MANIFEST}"]

[[rule]]
include = ["**/{MANIFEST}"]

[rule.schema]
path = "./{SCHEMA_COPY.as_posix()}"
"""

MANIFEST_TEXT = """\
#:schema {schema}
# The {name} port: see docs/ADDING_A_LANGUAGE.md for a walk through, docs/SPEC.md for every key.
summary = "{name}"

{run}
# The methods the program offers so far; the harness reports the others as skipped.
# All of them: binary, recursive, iterative, cyclic.
methods = ["recursive"]

{code}
# The published document whose listings the program follows, if it follows one: its title, author,
# where it was published and on what terms ("unknown" where a fact is not known); one [[source]]
# for each document.
# [[source]]
# title = "..."
# author = "unknown"
# published = "unknown"
# terms = "unknown"

[[requires]]
executable = "{executable}"
version = {version}
# How to get {executable}: the Debian package and the Homebrew formula (harness doctor --install and
# the container's image use them). A package is often not named for its program (javac is in
# openjdk-17-jdk-headless): `apt-file search bin/{executable}` and `brew which-formula {executable}` tell.
# debian = "PACKAGE"
# homebrew = "FORMULA"
# What it reads outside /usr, which the sandbox shows it read-only (Java: /etc/java-17-openjdk;
# strace -f -e trace=file shows what a tool opens): never a home folder or a secret.
# reads = ["/etc/..."]

[output]
# A regular expression for a line that is one move, with the named groups src and dst (and disk, if
# the line names the disc), in the program's own words: say "Move disc 1 from A to C" with
# patterns = ['Move disc (?P<disk>\\d+) from (?P<src>[ABC]) to (?P<dst>[ABC])'] and
# pegs = ["A", "B", "C"]. Lines to skip (a header, a summary) go in ignore = ['...'].
patterns = ['(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)']
# The program's names for pegs 0, 1 and 2: the discs go from peg 0 to peg 2.
pegs = ["0", "1", "2"]
"""

CODE_TEXT = """\
# The code of each method, as `harness gallery` shows it: FILE#NAME, the lines of FILE between the
# comment lines 'region NAME' and 'endregion NAME'. One line for each method the program offers.
[code]
recursive = "{program}#recursive"
"""

RUN_TEXT = """\
# How to run one cell, in this folder. {{method}} and {{n}} are filled in.
command = {command}
"""

BUILD_TEXT = """\
# How to build the program, in this folder, into {{binary}} (a path in the harness's cache), and how
# to run what it built. {{method}} and {{n}} are filled in. Check the compiler's own options: a
# compiler that writes a folder of classes takes {{build}}, the build's folder (javac -d {{build}},
# then java -cp {{build}} Main), and one whose program a runtime runs names that runtime
# (mcs -out:{{binary}}, then mono {{binary}}).
build = {build}
command = ["{{binary}}", "{{method}}", "{{n}}"]
"""

REGION_TEXT = """\
region recursive
The recursive method: its code goes here, between the lines "region recursive" and "endregion
recursive"; the manifest's [code] table names it, and harness gallery shows it.
endregion recursive
"""

PROGRAM_TEXT = """\
The Tower of Hanoi in {name}: to be written.

    {usage}

prints the moves of N discs, one a line, as they are made. For binary, recursive and iterative,
from peg 0 to peg 2 (the first moves for N = 3: 1 0 2, 2 0 1, 1 2 1); for cyclic, from peg 0 to
peg 1, every move one peg on (0 to 1, 1 to 2, 2 to 0). A bad METHOD or N: a usage message on
standard error and exit code 2. See docs/SPEC.md.
"""


def new_language(
    root: Path, name: str, interpreter: str, program: str, comment: str, version_flag: str = "--version", build: bool = False
) -> list[Path]:
    """Create ``root/name`` with a manifest and a stub program; the files made, manifest first.
    ``interpreter`` runs the program (may be several words: ``awk -f``), or with ``build`` compiles it."""
    if not NAME.fullmatch(name):
        raise ScaffoldError(f"{name!r} is not a port name: lower-case letters, digits, - and _, starting with a letter")
    if "/" in program or not program:
        raise ScaffoldError(f"{program!r} is not a file name for the program")
    words = shlex.split(interpreter)
    if not words:
        raise ScaffoldError("--interpreter names no command")
    folder = root / name
    if folder.exists():
        raise ScaffoldError(f"{folder} already exists")
    folder.mkdir(parents=True)
    if build:
        run = BUILD_TEXT.format(build=_toml([*words, "-o", "{binary}", program]))
        usage = "{binary} METHOD N"
    else:
        run = RUN_TEXT.format(command=_toml([*words, program, "{method}", "{n}"]))
        usage = f"{interpreter} {program} METHOD N"
    marked = MARKER.fullmatch(f"{comment} region recursive") is not None
    code = CODE_TEXT.format(program=program) if marked else "# [code] names each method's code: see docs/SPEC.md.\n"
    values = {
        "code": code,
        "name": name, "executable": words[0], "version": _toml([words[0], *shlex.split(version_flag)]), "run": run, "schema": _schema_path(root, folder),
    }
    manifest = folder / MANIFEST
    manifest.write_text(MANIFEST_TEXT.format(**values), encoding="utf-8")
    text = PROGRAM_TEXT.format(name=name, usage=usage) + ("\n" + REGION_TEXT) * marked
    end = f" {COMMENT_ENDS[comment]}" if comment in COMMENT_ENDS else ""
    stub = "".join(f"{comment} {line}".rstrip() + end + "\n" for line in text.splitlines())
    (folder / program).write_text(stub, encoding="utf-8")
    return [manifest, folder / program, *_schema_copy(root)]


def _schema_path(root: Path, folder: Path) -> str:
    """Where the port's manifest finds the schema, relative to it so that the path holds in every
    clone and with no network: the harness's own where it lies inside the folder of ports (this
    checkout), else the copy beside the ports (SCHEMA_COPY)."""
    schema, root = SCHEMA.resolve(), root.resolve()
    return os.path.relpath(schema if schema.is_relative_to(root) else root / SCHEMA_COPY, folder.resolve())


def _schema_copy(root: Path) -> list[Path]:
    """In a folder of ports that does not hold the harness, the schema's copy and a ``.taplo.toml``
    naming it, each where it is not there yet (a copy kept by hand, or by an earlier port, is kept);
    the files made."""
    if SCHEMA.resolve().is_relative_to(root.resolve()):
        return []
    made = []
    for path, text in ((root / SCHEMA_COPY, SCHEMA.read_text(encoding="utf-8")), (root / ".taplo.toml", TAPLO_TEXT)):
        if not path.exists():
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
            made.append(path)
    return made


def _toml(words: list[str]) -> str:
    """A list of strings as TOML writes it."""
    return "[" + ", ".join(json.dumps(word) for word in words) + "]"
