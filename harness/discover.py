"""Find the ports: every folder with a ``language.toml`` manifest is one.

A manifest that cannot be read does not stop discovery: the port is kept with its problem,
so every cell of it reports that problem and the other ports still run.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import regex

from harness.model import METHODS, PEGS

MANIFEST = "language.toml"
PLACEHOLDERS = ("{method}", "{n}")
OUTPUT_FORMATS = ("lines", "drawings")


@dataclass(frozen=True)
class Requirement:
    """An executable a port needs, how to ask its version, and how to get it."""

    executable: str
    version: tuple[str, ...] = ()
    install: str = ""


@dataclass(frozen=True)
class Query:
    """How a port that runs inside PostgreSQL is run: the SQL files that create it, loaded in order,
    and the query for one cell, whose rows are its moves."""

    load: tuple[Path, ...]
    sql: str


@dataclass(frozen=True)
class Output:
    """How to read what a program prints. ``lines``: one move a line, read by ``patterns``.
    ``drawings``: the cyclic Tower of Hanoi article's horizontal drawings of the towers, one drawing
    after each move, each row ending in ``|`` and the peg's name."""

    format: str
    pegs: tuple[str, ...]
    patterns: tuple[regex.Pattern[str], ...] = ()


@dataclass(frozen=True)
class Program:
    """What runs one cell: a command (built first, if ``build`` is given) or a query in PostgreSQL,
    and how to read its output."""

    output: Output
    command: tuple[str, ...] = ()
    build: tuple[str, ...] = ()
    query: Query | None = None

    def argv(self, method: str, n: int, binary: Path | None = None) -> list[str]:
        return fill(self.command, method, n, binary)


def fill(parts: tuple[str, ...], method: str, n: int, binary: Path | None = None) -> list[str]:
    """An argument list with {method}, {n} and {binary} (the built program) filled in."""
    values = {"{method}": method, "{n}": str(n), "{binary}": str(binary)}
    return [re.sub(r"\{(?:method|n|binary)\}", lambda match: values[match[0]], part) for part in parts]


@dataclass(frozen=True)
class Port:
    name: str
    folder: Path
    summary: str = ""
    methods: tuple[str, ...] = ()
    requires: tuple[Requirement, ...] = ()
    programs: dict[str, Program] = field(default_factory=dict)
    problem: str | None = None

    def program(self, method: str) -> Program:
        """The program that runs ``method``: the manifest's own, or the one its [method.NAME] table gives."""
        return self.programs[method]

    @property
    def query(self) -> Query | None:
        """The port's query, for a port that runs in PostgreSQL."""
        return next((program.query for program in self.programs.values() if program.query), None)


class ManifestError(ValueError):
    """A manifest that says something the harness cannot use."""


def discover(root: Path) -> list[Port]:
    """Every port directly below ``root``, sorted by name."""
    return [load_port(path) for path in sorted(root.glob(f"*/{MANIFEST}"))]


def load_port(manifest: Path) -> Port:
    folder = manifest.parent.resolve()
    try:
        return _parse(folder, tomllib.loads(manifest.read_text(encoding="utf-8")))
    except (OSError, tomllib.TOMLDecodeError, ManifestError) as error:
        return Port(name=folder.name, folder=folder, problem=f"{manifest}: {error}")


PROGRAM_KEYS = ("command", "build", "postgresql", "output")


def _parse(folder: Path, data: dict) -> Port:
    methods = _strings(data, "methods")
    unknown = sorted(set(methods) - set(METHODS))
    if not methods or unknown:
        raise ManifestError(f"'methods' must name some of {', '.join(METHODS)}; unknown: {', '.join(unknown)}")
    overrides = data.get("method", {})
    if not isinstance(overrides, dict) or not all(isinstance(table, dict) for table in overrides.values()):
        raise ManifestError("[method.NAME] must be tables, one for each method that runs differently")
    strays = sorted(set(overrides) - set(methods))
    if strays:
        raise ManifestError(f"[method.{strays[0]}] is for a method the port does not list in 'methods'")
    shared = {key: data[key] for key in PROGRAM_KEYS if key in data}
    default_methods = [method for method in methods if method not in overrides]
    default = _program(folder, shared, "", len(default_methods)) if default_methods else None
    programs = {
        method: _program(folder, {**shared, **overrides[method]}, f"[method.{method}] ", 1) if method in overrides else default
        for method in methods
    }
    return Port(
        name=folder.name,
        folder=folder,
        summary=str(data.get("summary", "")),
        methods=methods,
        requires=tuple(_requirement(entry) for entry in data.get("requires", [])),
        programs=programs,  # type: ignore[arg-type]
    )


def _program(folder: Path, data: dict, where: str, serves: int) -> Program:
    """One program, for ``serves`` methods, from its keys; ``where`` says which table they came from."""
    try:
        command, build = _strings(data, "command"), _strings(data, "build")
        query = _query(folder, data["postgresql"]) if "postgresql" in data else None
        if bool(command) == bool(query):
            raise ManifestError("give either 'command' (a program) or a [postgresql] table (a query), not both or neither")
        if build and not command:
            raise ManifestError("'build' makes a program for 'command' to run")
        if any(("{binary}" in " ".join(parts)) != bool(build) for parts in (command, build)):
            raise ManifestError("with 'build', both it and 'command' use {binary} for the built program; without, neither does")
        words = " ".join(command + build)
        if command and "{n}" not in words:
            raise ManifestError("'command' (or 'build') must use {n}, the number of discs")
        if command and serves > 1 and "{method}" not in words:
            raise ManifestError("'command' (or 'build') must use {method}, to tell the program which method to run")
        return Program(_output(data.get("output")), command, build, query)
    except ManifestError as error:
        raise ManifestError(f"{where}{error}") from None


def _output(table: object) -> Output:
    if not isinstance(table, dict):
        raise ManifestError("an [output] table with 'pegs' (and 'patterns', for lines) is required")
    output_format = table.get("format", "lines")
    if output_format not in OUTPUT_FORMATS:
        raise ManifestError(f"'output.format' must be one of {', '.join(OUTPUT_FORMATS)}, not {output_format!r}")
    pegs = _strings(table, "pegs")
    if len(pegs) != PEGS or len(set(pegs)) != PEGS:
        raise ManifestError(f"'output.pegs' must give {PEGS} distinct names, for pegs 0, 1 and 2")
    patterns = tuple(_pattern(text) for text in _strings(table, "patterns"))
    if (output_format == "lines") != bool(patterns):
        raise ManifestError("'output.patterns' gives at least one regular expression for lines, and none for drawings")
    return Output(output_format, pegs, patterns)


def _strings(table: dict, key: str) -> tuple[str, ...]:
    value = table.get(key, [])
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ManifestError(f"'{key}' must be a list of strings")
    return tuple(value)


def _query(folder: Path, table: object) -> Query:
    if not isinstance(table, dict):
        raise ManifestError("[postgresql] must be a table with 'load' and 'query'")
    load = tuple(folder / name for name in _strings(table, "load"))
    sql = table.get("query")
    if not isinstance(sql, str) or not all(placeholder in sql for placeholder in PLACEHOLDERS):
        raise ManifestError("'postgresql.query' must be a query that uses {method} and {n}")
    missing = [str(path) for path in load if not path.is_file()]
    if missing:
        raise ManifestError(f"'postgresql.load' names files that do not exist: {', '.join(missing)}")
    return Query(load, sql)


def _requirement(entry: object) -> Requirement:
    if not isinstance(entry, dict) or not isinstance(entry.get("executable"), str):
        raise ManifestError("each [[requires]] needs an 'executable'")
    return Requirement(entry["executable"], _strings(entry, "version"), str(entry.get("install", "")))


def _pattern(text: str) -> regex.Pattern[str]:
    """A manifest's pattern, compiled by the ``regex`` module, whose matching takes a time limit."""
    try:
        pattern = regex.compile(text)
    except regex.error as error:
        raise ManifestError(f"pattern {text!r} does not compile: {error}") from None
    missing = {"src", "dst"} - set(pattern.groupindex)
    extra = set(pattern.groupindex) - {"disk", "src", "dst"}
    if missing or extra:
        raise ManifestError(f"pattern {text!r} needs the named groups src and dst, and may add disk; nothing else")
    return pattern
