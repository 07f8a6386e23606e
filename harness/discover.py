"""Find the ports: every folder with a ``language.toml`` manifest is one.

A manifest that cannot be read does not stop discovery: the port is kept with its problem,
so every cell of it reports that problem and the other ports still run.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from harness.model import METHODS, PEGS

MANIFEST = "language.toml"
PLACEHOLDERS = ("{method}", "{n}")


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
class Port:
    name: str
    folder: Path
    summary: str = ""
    command: tuple[str, ...] = ()
    query: Query | None = None
    methods: tuple[str, ...] = ()
    requires: tuple[Requirement, ...] = ()
    patterns: tuple[re.Pattern[str], ...] = ()
    pegs: tuple[str, ...] = ()
    problem: str | None = None

    def argv(self, method: str, n: int) -> list[str]:
        return [part.replace("{method}", method).replace("{n}", str(n)) for part in self.command]


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


def _parse(folder: Path, data: dict) -> Port:
    command = _strings(data, "command")
    query = _query(folder, data["postgresql"]) if "postgresql" in data else None
    if bool(command) == bool(query):
        raise ManifestError("give either 'command' (a program) or a [postgresql] table (a query), not both or neither")
    if command and not all(placeholder in " ".join(command) for placeholder in PLACEHOLDERS):
        raise ManifestError("'command' must be a non-empty list that uses {method} and {n}")
    methods = _strings(data, "methods")
    unknown = sorted(set(methods) - set(METHODS))
    if not methods or unknown:
        raise ManifestError(f"'methods' must name some of {', '.join(METHODS)}; unknown: {', '.join(unknown)}")
    output = data.get("output")
    if not isinstance(output, dict):
        raise ManifestError("an [output] table with 'patterns' and 'pegs' is required")
    patterns = tuple(_pattern(text) for text in _strings(output, "patterns"))
    if not patterns:
        raise ManifestError("'output.patterns' must give at least one regular expression")
    pegs = _strings(output, "pegs")
    if len(pegs) != PEGS or len(set(pegs)) != PEGS:
        raise ManifestError(f"'output.pegs' must give {PEGS} distinct names, for pegs 0, 1 and 2")
    return Port(
        name=folder.name,
        folder=folder,
        summary=str(data.get("summary", "")),
        command=command,
        query=query,
        methods=methods,
        requires=tuple(_requirement(entry) for entry in data.get("requires", [])),
        patterns=patterns,
        pegs=pegs,
    )


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


def _pattern(text: str) -> re.Pattern[str]:
    try:
        pattern = re.compile(text)
    except re.error as error:
        raise ManifestError(f"pattern {text!r} does not compile: {error}") from None
    missing = {"src", "dst"} - set(pattern.groupindex)
    extra = set(pattern.groupindex) - {"disk", "src", "dst"}
    if missing or extra:
        raise ManifestError(f"pattern {text!r} needs the named groups src and dst, and may add disk; nothing else")
    return pattern
