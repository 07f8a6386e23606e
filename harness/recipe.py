"""What of a port's own Containerfile the harness lets the engine build, read as the engine reads
it: the engine builds it with no network, but carries out some instructions itself, past the
build's walls. Plain text, for ``harness check`` as much as for the image's build (runners/images.py)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from harness.port import CONTAINERFILE

RECIPE_BASES = ("${BASE}", "$BASE")
"""How a port's recipe names the image the harness gives it to start from."""
CONTINUED = re.compile(r"\\[ \t]*$")


DIRECTIVE = "#DIRECTIVE"
"""How _instructions names a parser directive, which no instruction's keyword can be."""


class RecipeFault(NamedTuple):
    """Why a recipe may not be built, and the line that says it."""

    line: int
    why: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.why}"


def recipe_fault(text: str) -> RecipeFault | None:
    """Why a port's Containerfile may not be built, if it may not. The engine builds it with no
    network, but fetches by itself what an ``ADD`` names by URL, and reads any image it holds that a
    ``FROM`` or a ``COPY --from`` names: a port's recipe starts from ``BASE`` or a stage of its own,
    copies with ``COPY`` from its folder or its stages, gives its steps no option, and keeps the
    engine's escape character (``\\``), the one by which its lines are read here."""
    unseen = next((char for char in text if char not in "\t\n\r " and unicodedata.category(char)[0] in "CZ"), None)
    if unseen is not None:
        number = text.count("\n", 0, text.index(unseen)) + 1
        return RecipeFault(number, f"holds U+{ord(unseen):04X}, which the engine and this check could read differently: a recipe is plain text")
    stages: list[str] = []
    """The names of the recipe's stages so far, which a later FROM or COPY --from may name."""
    for number, words in _instructions(text):
        if words[0].upper() == "ONBUILD":
            words = words[1:] or words
        keyword, arguments = words[0].upper(), words[1:]
        if keyword == DIRECTIVE:
            return RecipeFault(number, f"the parser directive {arguments[0]}=: a port's recipe takes none (the escape character stays \\)")
        if keyword == "ADD":
            return RecipeFault(number, "ADD fetches what a URL names, past the build's walls: use COPY")
        if keyword == "RUN" and arguments and arguments[0].startswith("--"):
            return RecipeFault(number, f"RUN {arguments[0]}: a step takes no option")
        if keyword == "FROM":
            named = len(arguments) == 3 and arguments[1].upper() == "AS"
            if not (len(arguments) == 1 or named) or arguments[0] not in RECIPE_BASES and arguments[0].lower() not in stages:
                return RecipeFault(number, f"FROM {' '.join(arguments)}: a port's image starts from ${{BASE}} or a stage of its own")
            stages.append(arguments[2].lower() if named else "")
        ours = {*filter(None, stages), *map(str, range(len(stages)))}
        sources = [word.partition("=")[2] for word in arguments if word.lower().startswith("--from=")]
        foreign = [source for source in sources if source not in RECIPE_BASES and source.lower() not in ours]
        if keyword == "COPY" and foreign:
            return RecipeFault(number, f"COPY --from={foreign[0]}: a port copies from its folder or a stage of its own")
    return None


def _instructions(text: str) -> Iterator[tuple[int, list[str]]]:
    """Each instruction of a Containerfile as the engine reads it: the line it begins on and its
    words. Its lines are cut where the engine cuts them (at a line feed alone), and one that ends in
    the escape character is joined to the next with nothing between, even within a word, passing
    over blank and comment lines, before the words are split. A parser directive (``escape``,
    ``syntax``, ``check``) is the words DIRECTIVE and its name."""
    joined = ""
    first: int | None = None
    for number, line in enumerate((line.removesuffix("\r") for line in text.split("\n")), 1):
        directive = re.fullmatch(r"\s*#\s*(escape|syntax|check)\s*=.*", line, re.IGNORECASE)
        if first is None and directive:
            yield number, [DIRECTIVE, directive[1].lower()]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        first = number if first is None else first
        joined += CONTINUED.sub("", line)
        if not CONTINUED.search(line):
            if joined.split():
                yield first, joined.split()
            joined, first = "", None
    if first is not None and joined.split():
        yield first, joined.split()


def recipe_problem(folder: Path) -> str | None:
    """What ``harness check`` says of the Containerfile in a port's ``folder``, if it has one that may
    not be built: ``FILE:LINE: why``."""
    recipe = folder / CONTAINERFILE
    if not recipe.is_file():
        return None
    try:
        fault = recipe_fault(recipe.read_text(encoding="utf-8", errors="replace"))
    except OSError as error:
        return f"{recipe}: could not be read: {error.strerror}"
    return f"{recipe}:{fault.line}: {fault.why}" if fault else None
