"""Find the ports: every folder with a ``language.toml`` manifest is one.

A manifest that cannot be read does not stop discovery: the port is kept with its manifest's faults,
so every cell of it reports them and the other ports still run. Every key is checked, so a misspelt
one is a fault too, not a silent default; and each part of a manifest that stands alone is checked on
its own (``Faults``), so that one reading names every fault, each with its line.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import string
import tomllib
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeAlias, TypeVar, cast

import regex

from harness.environment import VARIABLE_NAME, refused_read, secret_name
from harness.errors import ManifestError, ManifestFaults
from harness.model import ESCAPED_BYTE, METHODS, PEGS, one_line, shorten
from harness.output import Output, Stream
from harness.patterns import MAX_NESTING, nesting, never_matches
from harness.port import MAX_PORT_ENTRIES, MOST_DISCS, N_FORM, N_FORMS, Port, Program, Query, Requirement, Source
from harness.readers import DEFAULT, READERS, Reading
from harness.regions import Code, read_code

MANIFEST = "language.toml"
MANIFEST_BYTES = 1 << 20
"""The most a manifest may hold: a few hundred bytes is usual."""
PROGRAM_KEYS = ("command", "build", "postgresql", "output", "stdin", "min_n", "max_n", "requires", "env")
PORT_KEYS = ("summary", "methods", "source", "code", "method", *PROGRAM_KEYS)
CODE_KEYS = tuple(METHODS)
"""[code]: for each method, the file (and region of it) that holds its code (regions.py)."""
OUTPUT_KEYS = ("format", "pegs", "discs", "patterns", "ignore", "separator", "stream")
STREAMS = ("stdout", "stderr", "both")
"""Where a program's moves are: standard output (the default), standard error, or both, in the order written."""
REQUIRE_KEYS = ("executable", "version", "install", "debian", "homebrew", "reads")
QUERY_KEYS = ("load", "query", "moves")
QUERY_MOVES = ("rows", "notices")
"""Where a query's moves are: its rows (the default), or the NOTICEs it raises."""
EXECUTABLE_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
"""A program's name as PATH finds it: no path, no option, nothing a shell or a package manager reads."""
PACKAGE_NAMES = {
    "debian": r"(?!\S*\.\+)[a-z0-9][a-z0-9+.-]*(?:[a-z0-9]|\+\+)",
    "homebrew": r"[a-z0-9][a-z0-9_+-]*(?:@[0-9]+(?:\.[0-9]+)*)?",
}
"""The names each package manager takes, as a manifest's ``debian`` and ``homebrew`` give them,
separated by spaces; a manifest's text reaches an installer only as such names, never as an option,
an action or a pattern. Debian's: its policy's ``[a-z0-9][a-z0-9+.-]+``, ending in a letter or a
digit, or in ``++`` (``g++``), never in the ``-`` or ``+`` by which apt removes or installs what the
rest names, and with no ``.+``; no release (``/``), version (``=``), architecture (``:``) or
pattern (``?``, ``*``, ``[``). Homebrew's: a plain formula's name, with a version after ``@``
(``openjdk@17``, ``python@3.12``), and nothing else: no tap (``user/tap/name``, which brew would
tap, a repository of someone else's, to install), no file, bottle or address (``./x.rb``,
``x.rb``, ``x--1.0.bottle.tar.gz``, ``https:``), which brew would read a formula from."""
SOURCE_KEYS = ("title", "author", "published", "terms", "methods", "url")
SOURCE_TEXTS = ("title", "author", "published", "terms")
"""What a [[source]] must say, each in words: "unknown" where it is not known, never left out."""
SOURCE_URL = re.compile(r"https?://[^\s\"'<>\\`]{1,2000}")
"""Where a document is found: a web address, nothing a page or a shell could read otherwise."""
MAX_QUERY_BYTES = 1 << 16
"""The longest query a manifest may give: it reaches psql as one argument, which the system bounds."""
PLACEHOLDERS = ("{method}", *N_FORMS, "{build}", "{binary}")
PLACEHOLDER = re.compile(r"\{[a-z_]+(?::[^}]*)?\}")
"""What reads as a placeholder in a command: a misspelt one ({methd}, {n:roman}) would reach the program as it is."""
DIGIT_GROUPS = ("disk",)
"""The groups the harness reads a number from: a pattern in which one can never hold digits never reads a move."""
UNREAD_OUTPUT = Output(DEFAULT, ("0", "1", "2"))
"""What stands in for an [output] table with faults while the rest of its program is checked; never used."""
T = TypeVar("T")
Running: TypeAlias = tuple[tuple[str, ...], tuple[tuple[str, ...], ...], Query | None, str | None]
"""What a program runs: its command, its build's commands, its query, its standard input."""
NOTHING_RUN: Running = ((), (), None, None)
"""What stands in for what a program runs while the rest of it is checked, where that has faults; never used."""


class Faults:
    """The faults of one manifest, or one part of it, kept as they are found: each piece that stands
    alone is tried on its own (``attempt``), a stand-in taking the place of what it could not give,
    and ``settle`` raises them all together once every piece has been tried. A fault found twice
    (a key that the manifest's top gives every [method.NAME] table, read with each) is kept once."""

    def __init__(self) -> None:
        self.found: list[ManifestError] = []
        self.said: set[str] = set()

    def keep(self, error: ManifestError, where: str = "") -> None:
        """Keep a fault, said as found in ``where`` (``[method.cyclic] ``; the top: ""), unless it was kept already."""
        if str(error) in self.said:
            return
        self.said.add(str(error))
        if where:
            error = ManifestError(f"{where}{error}", error.key, error.value, where.strip(" []") or error.table)
        self.found.append(error)

    def attempt(self, make: Callable[[], T], stand_in: T, where: str = "") -> T:
        """What ``make`` gives, or ``stand_in`` where it finds faults, which are kept."""
        try:
            return make()
        except ManifestFaults as faults:
            for error in faults.faults:
                self.keep(error, where)
        except ManifestError as error:
            self.keep(error, where)
        return stand_in

    def settle(self) -> None:
        """Raise every fault kept, together, if there is one."""
        if self.found:
            raise ManifestFaults(*self.found)


def find_root(given: Path | None = None) -> Path | None:
    """The folder whose subfolders are the ports: ``given`` (by --root or $HANOI_ROOT), else the
    current folder or the nearest of its parents that holds a ``*/language.toml``; None if none does."""
    if given is not None:
        return given
    here = Path.cwd().resolve()
    return next((folder for folder in (here, *here.parents) if any(folder.glob(f"*/{MANIFEST}"))), None)


def manifests(root: Path) -> list[Path]:
    """The manifest of every port directly below ``root``, sorted by the port's name."""
    return sorted(root.glob(f"*/{MANIFEST}"))


def discover(root: Path) -> list[Port]:
    """Every port directly below ``root``, sorted by name."""
    return [load_port(path) for path in manifests(root)]


def port_name(manifest: Path) -> str:
    """The name of the port a manifest describes, as :func:`load_port` gives it, without reading the
    manifest: its folder's, written out on one line where it holds a character that is not printable."""
    name = manifest.parent.name
    return one_line(name) if _unprintable(name) else name


def _unprintable(name: str) -> str | None:
    """The first character of a folder's name that is not printable, if any (a byte that is not UTF-8, written ``\\xff``, is none)."""
    return next((char for char in name if not char.isprintable() and not ESCAPED_BYTE.fullmatch(char)), None)


def load_port(manifest: Path) -> Port:
    """The port a manifest describes, or, if it cannot be used, the port with its manifest error,
    which names the file and, where it can, the line (``path:line: why``). The port's name is its
    folder's as the root lists it: a link to a folder elsewhere is a port of the link's name, whatever
    the folder it leads to is called. The manifest's size is bounded before it is read, and its
    nesting as it is read: TOML's reader recurses once a level, so arrays or tables nested thousands
    deep are this port's error, not the run's end. A folder's name with a line break, a tab or another
    character that is not printable (a byte that is not UTF-8 is shown as that byte, ``\\xff``) is the
    port's error too, under its name written out, so that it forges no line of any report."""
    name, folder = manifest.parent.name, manifest.parent.resolve()
    where, text = str(manifest), ""
    if unprintable := _unprintable(name):
        shown = port_name(manifest)
        why = f"the folder's name holds {unprintable!r}, a line break or another character that is not printable: a report gives a port's name a line"
        return Port(name=shown, folder=folder, manifest_faults=(f"{manifest.parent.parent / shown / MANIFEST}: {why}",))
    try:
        _check_folder(folder)
        with manifest.open("rb") as source:
            raw = source.read(MANIFEST_BYTES + 1)
        if len(raw) > MANIFEST_BYTES:
            raise ManifestError(f"larger than {MANIFEST_BYTES >> 10} KiB, the most a manifest may be")
        text = raw.decode("utf-8")
        return _parse(name, folder, tomllib.loads(text), (manifest.parent.parent, folder.parent))
    except UnicodeDecodeError as error:
        why = f"not UTF-8 text: byte {error.object[error.start]:#04x} at offset {error.start}"
        where += ":" + str(error.object.count(b"\n", 0, error.start) + 1)
    except (ManifestError, ManifestFaults) as found:
        faults = found.faults if isinstance(found, ManifestFaults) else [found]
        return Port(name=name, folder=folder, manifest_faults=tuple(_located(where, text, fault) for fault in faults))
    except tomllib.TOMLDecodeError as error:
        why, at = str(error), re.search(r"\(at line (\d+), column \d+\)$", str(error))
        where += f":{at[1]}" if at else ""
    except OSError as error:
        why = str(error)
    except RecursionError:
        why = "arrays or tables nested too deeply to read (hundreds of levels, each inside the one before)"
    return Port(name=name, folder=folder, manifest_faults=(f"{where}: {why}",))


def _located(where: str, text: str, fault: ManifestError) -> str:
    """A fault as editors read one, ``path:line: why``, or ``path: why`` where no line shows."""
    line = manifest_line(text, fault)
    return f"{where}{f':{line}' * bool(line)}: {fault}"


def schema_line_fault(manifest: Path) -> str | None:
    """What is wrong with the manifest's ``#:schema`` line, as ``path:line: why``, or None: a path
    (relative to the manifest, or a ``file:`` address) that names no file, as the line of a port
    copied from another repository does (``../harness/language.schema.json``). taplo and the editors
    built on it fail the whole file then; a run does not read the line. Only the comments above the
    first key are taplo's directives; a web address is not fetched."""
    try:
        lines = manifest.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None  # the manifest's own error says why
    for number, line in enumerate(lines, 1):
        if line.strip() and not line.lstrip().startswith("#"):
            return None
        if directive := re.fullmatch(r"\s*#:schema\s+(\S+)\s*", line):
            named = directive[1]
            if re.match(r"https?://", named):
                return None
            path = Path(named.removeprefix("file://"))
            if (manifest.parent / path).is_file():
                return None
            return (
                f"{manifest}:{number}: the #:schema line names {named}, which is not a file here, so taplo and editors cannot read"
                " the manifest: name the schema's address, or a copy of it (harness schema language > schemas/language.schema.json)"
            )
    return None


def manifest_line(text: str, error: ManifestError) -> int | None:
    """The line of a manifest that an error is about, for ``path:line:`` as editors read it: from
    the header of the table the error is in (or the top), the line that writes the value it
    quarrels with, else the first that sets or opens the key it names (``key =``, ``a.key =``,
    ``[key]``, ``[[a.key]]``), else the first that opens a table through it (``[table.key.more]``,
    ``key.more =``); None where none shows."""
    numbered = list(enumerate(text.splitlines(), 1))
    if error.table is not None:
        header = re.compile(rf"\s*\[\[?\s*{re.escape(error.table)}\s*[.\]]")
        numbered = list(itertools.dropwhile(lambda line: not header.match(line[1]), numbered)) or numbered
    if error.value is not None:
        # a literal string, or a basic one, with its characters as they are or as escapes
        written = (f"'{error.value}'", json.dumps(error.value, ensure_ascii=False), json.dumps(error.value))
        found = next((number for number, line in numbered if any(form in line for form in written)), None)
        if found is not None:
            return found
    if error.key is None:
        return None
    name = re.escape(error.key)
    sets = re.compile(rf"""\s*(?:\[\[?\s*)?(?:[\w"' .-]*\.\s*)?(?:{name}|"{name}"|'{name}')\s*(?:=|\])""")
    within = rf"{re.escape(error.table)}\s*\.\s*" if error.table else ""
    opens = re.compile(rf"""\s*(?:\[\[?\s*{within}|(?!\[))(?:{name}|"{name}"|'{name}')\s*\.""")  # [table.key.more], key.more =
    return next((number for grammar in (sets, opens) for number, line in numbered if grammar.match(line)), None)


def _check_folder(folder: Path) -> None:
    """Refuse a folder the harness cannot take as the port's own: a link that leads out of it (the
    harness reads, copies and mounts only the port's own files, so none may stand for a file
    elsewhere on the machine), anything that is not a file, a folder or a link (a device, a pipe: a
    copy or a digest of one may never end), or more than MAX_PORT_ENTRIES of them."""
    entries = 0
    for top, folders, files in os.walk(folder):  # a link to a folder is listed, not followed
        for name in (*folders, *files):
            entries += 1
            if entries > MAX_PORT_ENTRIES:
                raise ManifestError(f"the port's folder holds more than {MAX_PORT_ENTRIES:,} files and folders: a port is a program's sources")
            path = Path(top, name)
            shown = str(path.relative_to(folder)).encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            if path.is_symlink():
                try:
                    target = path.resolve()
                except (OSError, RuntimeError):  # a loop of links
                    raise ManifestError(f"{shown!r} is a link that leads round in a loop") from None
                if not target.is_relative_to(folder):
                    raise ManifestError(f"{shown!r} is a link out of the port's folder: a port is its folder, and nothing outside it is read for it")
            elif not (path.is_dir() or path.is_file()):
                raise ManifestError(f"{shown!r} is neither a file nor a folder (a device, a pipe or a socket): a port's folder holds its sources")


def _parse(name: str, folder: Path, data: dict[str, Any], holders: tuple[Path, ...]) -> Port:
    """The port a manifest's ``data`` describes; ``holders``, the folders that hold the port (the
    root as it lists it, and the folder it is in), which no requirement may read. Every part that
    stands alone is checked, whatever the others hold: ManifestFaults names every fault found."""
    faults = Faults()
    faults.attempt(lambda: _known(data, PORT_KEYS, ""), None)
    listed = data.get("methods")
    methods = faults.attempt(lambda: _methods(data), tuple(method for method in METHODS if isinstance(listed, list) and method in listed))
    overrides = _overrides(data, methods, faults)
    shared = {key: data[key] for key in PROGRAM_KEYS if key in data}
    default_methods = [method for method in methods if method not in overrides]
    default = faults.attempt(lambda: _program(folder, shared, len(default_methods), holders), None) if default_methods else None
    programs: dict[str, Program] = {}
    for method in methods:
        if method in overrides:
            made = faults.attempt(functools.partial(_program, folder, {**shared, **overrides[method]}, 1, holders), None, f"[method.{method}] ")
            if made is not None:
                programs[method] = made
        elif default is not None:  # it is, for every method without a table of its own, unless it has faults
            programs[method] = default
    summary = data.get("summary", "")
    if not isinstance(summary, str):
        faults.keep(ManifestError("'summary' must be a string", "summary"))
    sources: tuple[Source, ...] = faults.attempt(lambda: _sources(data.get("source", []), methods), ())
    code: dict[str, Code] = faults.attempt(lambda: _code(folder, data.get("code", {}), methods), {})
    faults.settle()
    return Port(name=name, folder=folder, summary=summary, methods=methods, programs=programs, sources=sources, code=code)


def _methods(data: dict[str, Any]) -> tuple[str, ...]:
    """'methods': some of METHODS, each known."""
    methods = _strings(data, "methods")
    unknown = sorted(set(methods) - set(METHODS))
    if not methods or unknown:
        raise ManifestError(f"'methods' must name some of {', '.join(METHODS)}; unknown: {', '.join(unknown)}", "methods")
    return methods


def _overrides(data: dict[str, Any], methods: tuple[str, ...], faults: Faults) -> dict[str, dict[str, Any]]:
    """The [method.NAME] tables of the methods the port lists, each with keys a program takes; what
    is wrong with them is kept in ``faults``."""
    overrides = data.get("method", {})
    if not isinstance(overrides, dict) or not all(isinstance(table, dict) for table in overrides.values()):
        faults.keep(ManifestError("[method.NAME] must be tables, one for each method that runs differently", "method"))
        return {}
    for stray in sorted(set(overrides) - set(methods)):
        faults.keep(ManifestError(f"[method.{stray}] is for a method the port does not list in 'methods'", stray))
    for method, table in overrides.items():
        faults.attempt(functools.partial(_known, table, PROGRAM_KEYS, f"[method.{method}] "), None)
    return {method: table for method, table in overrides.items() if method in methods}


def _code(folder: Path, table: object, methods: tuple[str, ...]) -> dict[str, Code]:
    """The [code] table: for each method it names, the code, read from the port's folder and checked
    to be there (regions.py); a method the table leaves out has no code to show."""
    if not isinstance(table, dict):
        raise ManifestError("[code] is a table: for each method, FILE or FILE#REGION, the code that implements it", "code")
    faults, code = Faults(), {}
    for method, reference in table.items():
        if (read := faults.attempt(functools.partial(_method_code, folder, method, reference, methods), None)) is not None:
            code[method] = read
    faults.settle()
    return code


def _method_code(folder: Path, method: str, reference: object, methods: tuple[str, ...]) -> Code:
    """One method's code, as [code] names it."""
    if method not in methods:
        raise ManifestError(f"[code] names {method!r}, which the port does not list in 'methods'", method, table="code")
    if not isinstance(reference, str):
        raise ManifestError(f"[code] '{method}' is a string: FILE or FILE#REGION, relative to the port's folder", method, table="code")
    try:
        return read_code(folder, reference)
    except ManifestError as error:
        raise ManifestError(f"[code] '{method}' = {error}", method, table="code") from None
    except OSError as error:
        raise ManifestError(f"[code] '{method}' = {reference!r}: cannot be read: {error.strerror or error}", method, table="code") from None


def _sources(entries: object, methods: tuple[str, ...]) -> tuple[Source, ...]:
    """The [[source]] tables: what the port follows, each of its facts said, "unknown" where it is not known."""
    if not isinstance(entries, list) or not all(isinstance(entry, dict) for entry in entries):
        raise ManifestError("'source' is a list of [[source]] tables, one for each document the port follows", "source")
    faults = Faults()
    sources = [faults.attempt(functools.partial(_source, entry, methods), None) for entry in entries]
    faults.settle()
    return tuple(source for source in sources if source is not None)


def _source(entry: dict[str, Any], methods: tuple[str, ...]) -> Source:
    """One [[source]] table."""
    _known(entry, SOURCE_KEYS, "[[source]] ")
    texts = {key: entry.get(key) for key in SOURCE_TEXTS}
    unsaid = [key for key, text in texts.items() if not isinstance(text, str) or not text.strip()]
    if unsaid:
        raise ManifestError(
            f"[[source]] '{unsaid[0]}' must say, in words, the document's {', '.join(SOURCE_TEXTS)} (\"unknown\" where it is not known)",
            "source",
        )
    followed = _strings(entry, "methods")
    if strays := [method for method in followed if method not in methods]:
        raise ManifestError(f"[[source]] 'methods' names {strays[0]!r}, which the port does not list in 'methods'", "source")
    return Source(**texts, methods=followed or methods, url=_url(entry.get("url", "")))  # type: ignore[arg-type]  # each text is a string, checked above


def _url(url: object) -> str:
    """A [[source]]'s address, as a page links it and a reader sees it: no control or format
    character (a NUL, a right-to-left override), which would show one address and lead to another."""
    if not isinstance(url, str):
        raise ManifestError("[[source]] 'url' is the document's address, a string", "url", table="source")
    if unseen := next((character for character in url if unicodedata.category(character) in ("Cc", "Cf")), None):
        raise ManifestError(
            f"[[source]] 'url' holds U+{ord(unseen):04X}, a control or format character (bidi, zero-width), which a reader does not see",
            "url", url, "source",
        )
    if url and not SOURCE_URL.fullmatch(url):
        raise ManifestError("[[source]] 'url' is the document's address, http:// or https:// with no space or quote", "url", url, "source")
    return url


def _known(table: dict[str, Any], keys: tuple[str, ...], where: str) -> None:
    """Refuse a key the harness does not know: a misspelt one would otherwise be ignored."""
    faults = Faults()
    for stray in (key for key in table if key not in keys):
        faults.keep(ManifestError(f"{where}unknown key {stray!r}; the keys here are {', '.join(keys)}", stray, table=where.strip(" []") or None))
    faults.settle()


def _program(folder: Path, data: dict[str, Any], serves: int, holders: tuple[Path, ...]) -> Program:
    """One program, for ``serves`` methods, from its keys: what it runs, the n it takes, what it needs,
    what of the environment it is passed and how its output reads, each checked whatever the others hold."""
    faults = Faults()
    running = faults.attempt(functools.partial(_running, folder, data, serves), NOTHING_RUN)
    min_n, max_n = faults.attempt(functools.partial(_discs, data), (0, MOST_DISCS))
    requires: tuple[Requirement, ...] = faults.attempt(functools.partial(_requirements, data.get("requires", []), holders), ())
    variables: tuple[str, ...] = faults.attempt(functools.partial(_variables, data), ())
    output = faults.attempt(functools.partial(_output, data.get("output")), UNREAD_OUTPUT)
    if "postgresql" in data and output.stream != "stdout":
        faults.keep(ManifestError("'output.stream' is for a program's streams; a query's moves are its rows or NOTICEs ('postgresql.moves')", "stream"))
    faults.settle()
    return Program(output, *running, min_n, max_n, requires, variables)


def _running(folder: Path, data: dict[str, Any], serves: int) -> Running:
    """What a program runs: its command, its build and its standard input, or its query; checked
    together, since each says what the others may."""
    command, build = _strings(data, "command"), _commands(data)
    build_parts = tuple(part for step in build for part in step)
    if any("\0" in part for part in command + build_parts):
        raise ManifestError("'command' and 'build' may not hold a NUL character", "command" if any("\0" in part for part in command) else "build")
    query = _query(folder, data["postgresql"]) if "postgresql" in data else None
    if bool(command) == bool(query):
        either = "postgresql" if query else "command"
        raise ManifestError("give either 'command' (a program) or a [postgresql] table (a query), not both or neither", either)
    if build and not command:
        raise ManifestError("'build' makes a program for 'command' to run", "build")
    _check_build_places(command, build_parts, bool(build))
    stdin = data.get("stdin")
    if stdin is not None and (not isinstance(stdin, str) or not command):
        raise ManifestError("'stdin' is a string, fed to the program that 'command' runs", "stdin")
    if command:
        min_n, max_n = data.get("min_n", 0), data.get("max_n", _most(data))
        _check_placeholders({"command": command, "build": build_parts, "stdin": (stdin or "",)}, serves, fixed=min_n == max_n)
    return command, build, query, stdin


def _discs(data: dict[str, Any]) -> tuple[int, int]:
    """'min_n' and 'max_n': the numbers of discs the program takes."""
    most = _most(data)
    min_n, max_n = data.get("min_n", 0), data.get("max_n", most)
    if not isinstance(min_n, int) or isinstance(min_n, bool) or not 0 <= min_n <= most:
        raise ManifestError(f"'min_n' is the smallest number of discs the program takes, from 0 to {most}", "min_n")
    if not isinstance(max_n, int) or isinstance(max_n, bool) or not min_n <= max_n <= most:
        named = f"{most}, the discs 'output.discs' names" if most < MOST_DISCS else f"{MOST_DISCS}"
        raise ManifestError(f"'max_n' is the largest number of discs the program takes, from min_n to {named}", "max_n")
    return min_n, max_n


def _most(data: dict[str, Any]) -> int:
    """The most discs a program may take: MOST_DISCS, or as many as its [output] names (``discs``),
    where it names them: it has no more."""
    output = data.get("output")
    named = output.get("discs") if isinstance(output, dict) else None
    return min(len(named), MOST_DISCS) if isinstance(named, list) and named else MOST_DISCS


def _requirements(entries: object, holders: tuple[Path, ...]) -> tuple[Requirement, ...]:
    """The [[requires]] tables, each checked on its own."""
    if not isinstance(entries, list):
        raise ManifestError("'requires' is a list of [[requires]] tables", "requires")
    faults = Faults()
    requires = [faults.attempt(functools.partial(_requirement, entry, holders), None) for entry in entries]
    faults.settle()
    return tuple(requirement for requirement in requires if requirement is not None)


def _check_placeholders(words: dict[str, tuple[str, ...]], serves: int, fixed: bool) -> None:
    """Every placeholder of 'command', 'build' and 'stdin' (``words``, by key) is one the harness
    fills in; n reaches the program in some form unless it is ``fixed`` (``min_n = max_n``), and the
    method's name does where the program serves several."""
    said = " ".join(" ".join(parts) for parts in words.values())
    for key, parts in words.items():
        for part in parts:
            unknown = next((found for found in PLACEHOLDER.findall(part) if found not in PLACEHOLDERS and not N_FORM.fullmatch(found)), None)
            if unknown is not None:
                raise ManifestError(
                    f"'{key}' uses {unknown}, which the harness does not fill in; it fills in {', '.join(PLACEHOLDERS)}"
                    " (TEXT and SEP: any text without braces)",
                    key, part,
                )
    if not fixed and not N_FORM.search(said):
        raise ManifestError(
            "'command', 'build' or 'stdin' must use {n}, the number of discs, unless min_n = max_n"
            " (for n written in the source, see docs/ADDING_A_LANGUAGE.md)"
        )
    if serves > 1 and "{method}" not in said:
        raise ManifestError("'command', 'build' or 'stdin' must use {method}, to tell the program which method to run")


def _commands(data: dict[str, Any]) -> tuple[tuple[str, ...], ...]:
    """'build': one command (a list of strings), or several (a list of them), run in order."""
    value = data.get("build", [])
    if isinstance(value, list) and value and all(isinstance(item, list) for item in value):
        steps = tuple(_strings({"build": item}, "build") for item in value)
        if not all(steps):
            raise ManifestError("each command in 'build' must name a program", "build")
        return steps
    one = _strings(data, "build") if isinstance(value, list) and all(isinstance(item, str) for item in value) else None
    if one is None:
        raise ManifestError("'build' must be a command (a list of strings) or a list of commands, run in order", "build")
    return (one,) if one else ()


def _check_build_places(command: tuple[str, ...], build: tuple[str, ...], built: bool) -> None:
    """With 'build', 'command' runs what it made, by {binary} (the program) or {build} (its build
    folder), and a {binary} it runs is one the build makes; without, neither place exists."""
    running, making = " ".join(command), " ".join(build)
    if not built and any(place in running + making for place in ("{binary}", "{build}")):
        named = "{binary}" if "{binary}" in running + making else "{build}"
        raise ManifestError("{binary} and {build} name what 'build' makes: without 'build', use neither", value=named)
    if built and "{binary}" not in running and "{build}" not in running:
        raise ManifestError("with 'build', 'command' runs what it made: {binary} (the program) or {build} (the build folder)", "command")
    if built and "{binary}" in running and "{binary}" not in making:
        raise ManifestError("'command' runs {binary}, so 'build' must make it: give the compiler {binary} as its output", "build")


def _output(table: object) -> Output:
    """The [output] table: how the program's output reads, each key checked whatever the others hold."""
    if not isinstance(table, dict):
        raise ManifestError("an [output] table with 'pegs' (and 'patterns', for lines or states) is required", "output")
    faults = Faults()
    faults.attempt(functools.partial(_known, table, OUTPUT_KEYS, "[output] "), None)
    reading = faults.attempt(functools.partial(_reading, table), None)
    pegs: tuple[str, ...] = faults.attempt(functools.partial(_pegs, table), ())
    discs: tuple[str, ...] = faults.attempt(functools.partial(_disc_names, table, (reading or READERS[DEFAULT]).name), ())
    digit_groups = () if discs else DIGIT_GROUPS
    patterns = faults.attempt(functools.partial(_move_patterns, table, reading, digit_groups), ()) if reading is not None else ()
    ignore = faults.attempt(functools.partial(_patterns, table, "ignore"), ())
    separator = faults.attempt(functools.partial(_separator, table), None)
    stream: Stream = faults.attempt(functools.partial(_stream, table), "stdout")
    faults.settle()
    return Output((reading or READERS[DEFAULT]).name, pegs, patterns, ignore, separator, stream, discs)


def _stream(table: dict[str, Any]) -> Stream:
    """'output.stream': where the moves are written."""
    stream = table.get("stream", "stdout")
    if stream not in STREAMS:
        raise ManifestError(f"'output.stream' is where the moves are written: one of {', '.join(STREAMS)}", "stream")
    return cast("Stream", stream)


def _reading(table: dict[str, Any]) -> Reading:
    output_format = table.get("format", DEFAULT)
    if output_format not in READERS:
        raise ManifestError(f"'output.format' must be one of {', '.join(READERS)}, not {output_format!r}", "format")
    return READERS[output_format]


def _pegs(table: dict[str, Any]) -> tuple[str, ...]:
    pegs = _strings(table, "pegs")
    if len(pegs) != PEGS or len(set(pegs)) != PEGS:
        raise ManifestError(f"'output.pegs' must give {PEGS} distinct names, for pegs 0, 1 and 2", "pegs")
    return pegs


def _move_patterns(table: dict[str, Any], reading: Reading, digit_groups: tuple[str, ...] = DIGIT_GROUPS) -> tuple[regex.Pattern[str], ...]:
    """'output.patterns', for a format that reads by them, each checked on its own."""
    texts = _strings(table, "patterns")
    if reading.patterns != bool(texts):
        needing = " or ".join(name for name, other in READERS.items() if other.patterns)
        without = " or ".join(name for name, other in READERS.items() if not other.patterns)
        raise ManifestError(f"'output.patterns' gives at least one regular expression for {needing}, and none for {without}", "patterns")
    faults = Faults()
    patterns = [faults.attempt(functools.partial(_move_pattern, text, reading, digit_groups), None) for text in texts]
    faults.settle()
    return tuple(pattern for pattern in patterns if pattern is not None)


def _patterns(table: dict[str, Any], key: str) -> tuple[regex.Pattern[str], ...]:
    """A list of patterns, each checked on its own."""
    faults = Faults()
    patterns = [faults.attempt(functools.partial(_pattern, text), None) for text in _strings(table, key)]
    faults.settle()
    return tuple(pattern for pattern in patterns if pattern is not None)


def _separator(table: dict[str, Any]) -> regex.Pattern[str] | None:
    separator = table.get("separator")
    if separator is None:
        return None
    if not isinstance(separator, str):
        raise ManifestError("'output.separator' must be a regular expression, as a string", "separator")
    if _pattern(separator).fullmatch(""):
        raise ManifestError(f"'output.separator' {separator!r} matches an empty string: it would split a line between every character", value=separator)
    return _pattern(separator)


def _disc_names(table: dict[str, Any], output_format: str) -> tuple[str, ...]:
    """'output.discs': the program's names for discs 1, 2, 3…, each printable, none blank, none twice;
    in drawings, none with the hyphens or the bar a row is drawn with."""
    discs = _strings(table, "discs")
    if "discs" in table and not discs:
        raise ManifestError("'output.discs' names the discs 1, 2, 3…: at least one name", "discs")
    if len(discs) > MOST_DISCS or len(set(discs)) != len(discs):
        raise ManifestError(f"'output.discs' gives distinct names, for discs 1, 2, 3… and at most {MOST_DISCS}", "discs")
    for name in discs:
        if not name.strip() or not name.isprintable() or name != name.strip():
            raise ManifestError(f"'output.discs' names {name!r}: a disc's name is printable, with no space around it", "discs", name)
        if output_format == "drawings" and ("-" in name or "|" in name):
            raise ManifestError(f"'output.discs' names {name!r}: in drawings a disc's name holds no '-' or '|', which draw a row", "discs", name)
    return discs


def _strings(table: dict[str, Any], key: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ManifestError(f"'{key}' must be a list of strings", key)
    return tuple(value)


def _variables(data: dict[str, Any]) -> tuple[str, ...]:
    """The ``env`` key: names of variables, none that holds a secret."""
    names = _strings(data, "env")
    for name in names:
        if not VARIABLE_NAME.fullmatch(name):
            raise ManifestError(f"'env' names environment variables; {name!r} is not a variable's name", "env")
        if secret_name(name):
            raise ManifestError(f"'env' may not name {name}: a variable that holds a secret never reaches a port", "env")
    return names


def _query(folder: Path, table: object) -> Query:
    if not isinstance(table, dict):
        raise ManifestError("[postgresql] must be a table with 'load' and 'query'", "postgresql")
    _known(table, QUERY_KEYS, "[postgresql] ")
    load = tuple(folder / name for name in _strings(table, "load"))
    sql = table.get("query")
    if not isinstance(sql, str) or _placeholders(sql) != {"method", "n"}:
        raise ManifestError("'postgresql.query' must be a query that uses {method} and {n}, and no other {placeholder} ({{ for a brace})", "query")
    if len(sql.encode("utf-8", "surrogatepass")) > MAX_QUERY_BYTES:
        raise ManifestError(f"'postgresql.query' is longer than {MAX_QUERY_BYTES:,} bytes: a cell's query calls what the load files make", "query")
    if outside := next((str(path) for path in load if not path.resolve().is_relative_to(folder)), None):
        raise ManifestError(f"'postgresql.load' names a file outside the port's folder: {outside}", "load")
    missing = [str(path) for path in load if not path.is_file()]
    if missing:
        raise ManifestError(f"'postgresql.load' names files that do not exist: {', '.join(missing)}", "load")
    moves = table.get("moves", "rows")
    if moves not in QUERY_MOVES:
        raise ManifestError(f"'postgresql.moves' must be one of {', '.join(QUERY_MOVES)}", "moves")
    return Query(load, sql, notices=moves == "notices")


def _placeholders(text: str) -> set[str] | None:
    """The {names} in a query, as psycopg's SQL.format reads them; None if its braces do not parse."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    except ValueError:
        return None


def _requirement(entry: object, holders: tuple[Path, ...]) -> Requirement:
    if not isinstance(entry, dict) or not isinstance(entry.get("executable"), str):
        raise ManifestError("each [[requires]] needs an 'executable'", "requires")
    _known(entry, REQUIRE_KEYS, "[[requires]] ")
    if not EXECUTABLE_NAME.fullmatch(entry["executable"]):
        raise ManifestError(
            f"[[requires]] 'executable' is a program's name, as PATH finds it: {entry['executable'][:60]!r} is not",
            "executable", entry["executable"], "requires",
        )
    texts = {key: entry.get(key, "") for key in ("install", "debian", "homebrew")}
    if wrong := next((key for key, text in texts.items() if not isinstance(text, str)), None):
        raise ManifestError("[[requires]] 'install', 'debian' and 'homebrew' are strings", wrong, table="requires")
    for key, grammar in PACKAGE_NAMES.items():
        refused = next((name for name in texts[key].split() if not re.fullmatch(grammar, name)), None)
        if refused is not None:
            raise ManifestError(
                f"[[requires]] '{key}' names packages, separated by spaces; {refused[:60]!r} is not a {key} package's name"
                " (see docs/SPEC.md: nothing an installer reads as an option, an action or a pattern)",
                key, texts[key], "requires",
            )
    reads = _strings(entry, "reads")
    for path in reads:
        if why := refused_read(path, holders):
            raise ManifestError(f"[[requires]] 'reads': {why}", "reads", value=path)
    return Requirement(entry["executable"], _strings(entry, "version"), **texts, reads=reads)


def _pattern(text: str, digit_groups: tuple[str, ...] = ()) -> regex.Pattern[str]:
    """A manifest's pattern, compiled by the ``regex`` module, whose matching takes a time limit:
    the one place the harness compiles them. One that can be shown never to match is refused, so
    the mistake shows when the manifest is read, not as every line of the output unread."""
    depth = nesting(text)
    if depth > MAX_NESTING:
        raise ManifestError(f"pattern {shorten(text)} nests its groups {depth} deep; at most {MAX_NESTING}", value=text)
    try:
        pattern = regex.compile(text)
    except regex.error as error:
        raise ManifestError(f"pattern {text!r} does not compile: {error}", value=text) from None
    why = never_matches(text, digit_groups)
    if why:
        raise ManifestError(f"pattern {text!r} can never match: {why}", value=text)
    return pattern


def _move_pattern(text: str, reading: Reading, digit_groups: tuple[str, ...] = DIGIT_GROUPS) -> regex.Pattern[str]:
    """A pattern that reads a move (lines) or a tower (states), with the named groups its format
    takes; ``digit_groups`` must be able to hold digits (none, where the discs have names)."""
    pattern = _pattern(text, digit_groups)
    required, optional = reading.required, reading.optional
    if set(required) - set(pattern.groupindex) or set(pattern.groupindex) - set(required + optional):
        raise ManifestError(
            f"pattern {text!r} needs the named groups {' and '.join(required)}, and may add {' and '.join(optional)}; nothing else",
            value=text,
        )
    return pattern
