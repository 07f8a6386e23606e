"""The report as data, and its JSON form: written field by field and read back the same way, so a
renamed attribute cannot change the format unnoticed. ``harness/report.schema.json``
describes the format; ``schema_version`` changes whenever a reader of the old one would misread it."""

from __future__ import annotations

import functools
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from harness.errors import ReportError, first_line
from harness.model import METHODS, PEGS, Cell, Move, Outcome, Parting, Reason, Rerun, Shard, shorten
from harness.port import Source
from harness.report import Listing, PortInfo, Report
from harness.settings import RunPlan

SCHEMA_VERSION = 3
"""2: a report records its plan, and a merge what of the plans no report holds. 3: a failing cell
records where its moves part from the reference, and the moves it printed from there."""
MAX_REPORT_BYTES = 32 << 20
"""The most a report read back may hold: refused before it is read. A run of every port, method and
n (0 to 64) of a hundred ports writes about 12 MiB; memory stays near ten times what is read."""
MAX_NESTING = 32
"""How deep a report's values may nest: the harness writes six levels at most."""
DETAIL_CHARS = 8_000
"""The most of a detail, or a line of a diff, a report read back quotes; the rest is cut, visibly.
The harness's own details keep a port's stderr to its first and last lines, within that."""
DIFF_LINES = 200
"""The most lines of a cell's diff a report read back keeps."""
SCHEMA = Path(__file__).parent.parent / "report.schema.json"
BENCH_SCHEMA = SCHEMA.with_name("bench.schema.json")


def to_json(report: Report) -> dict[str, Any]:
    """The report as report.schema.json describes it."""
    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "harness": report.harness,
        "command": report.command,
        "started": report.started,
        "finished": report.finished,
        "commit": report.commit,
        "plan": report.plan.to_json(),
        "options": report.options,
        "machine": report.machine,
        "passed": report.passed,
        "methods": list(report.methods),
        "ports": {
            port.name: {
                "summary": port.summary, "methods": list(port.methods), "versions": port.versions, "problem": port.manifest_error,
                "sources": [
                    {
                        "title": source.title, "author": source.author, "published": source.published, "terms": source.terms,
                        "methods": list(source.methods), **({"url": source.url} if source.url else {}),
                    }
                    for source in port.sources
                ],
            }
            for port in report.ports
        },
        "cells": [_cell_to_json(cell) for cell in report.cells],
        "agreement": [
            {"n": group.n, "puzzle": group.rules, "agrees": group.agrees, "digests": group.by_digest}
            for group in report.agreement
        ],
    }
    if report.interrupted:
        data["interrupted"] = report.interrupted
    if report.command == "merge":
        data["missing"] = report.missing
        data["sources"] = report.sources
    return data


_JSON_ESCAPES = re.compile(r"\\\\|\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}|\\udc([89a-f][0-9a-f])")
"""In JSON text as json.dumps writes it: an escaped backslash, a pair of surrogates (one character),
or a lone surrogate that stands for a byte of a name that was not UTF-8."""


def report_text(report: Report) -> str:
    """The report as the JSON file a run writes."""
    return json_text(to_json(report), indent=2) + "\n"


LIST_SCHEMA_VERSION = 1
"""The version of list.schema.json that ``--format json`` follows: a reader can tell a form it does not know."""


def listing_to_json(listing: Listing) -> dict[str, Any]:
    """The ports as data, for CI: what each needs installed (``debian``: the packages its manifest's
    [[requires]] name), whether it runs in PostgreSQL; in the form harness/list.schema.json gives."""
    return {
        "schema_version": LIST_SCHEMA_VERSION,
        "ports": [
            {
                "name": port.name,
                "summary": port.summary,
                "methods": list(port.methods),
                "postgresql": port.query is not None,
                "requires": [
                    {"executable": req.executable, "install": req.advice, "version": listing.versions.get(port.name, {}).get(req.executable)}
                    for req in port.requires
                ],
                "debian": [package for req in port.requires for package in req.debian.split()],
                "missing": listing.missing.get(port.name),
                "problem": port.manifest_error,
            }
            for port in listing.ports
        ]
    }


def listing_text(listing: Listing) -> str:
    """``harness list --format json``: what CI builds its jobs from."""
    return json_text(listing_to_json(listing), indent=2) + "\n"


def figures_text(figures: dict[str, Any]) -> str:
    """``harness bench``'s figures as JSON, which docs/bench.json keeps and every other form is made from."""
    return json_text(figures, indent=2) + "\n"


def json_text(data: Any, indent: int | None = None) -> str:
    """``data`` as JSON text, in which a byte of a name that was not UTF-8 is written out, ``\\xff``,
    as every form of the report shows it (model.utf8_safe), not as a lone surrogate, which a strict
    JSON reader refuses."""
    return _JSON_ESCAPES.sub(lambda found: f"\\\\x{found[1]}" if found[1] else found[0], json.dumps(data, indent=indent))


def _cell_to_json(cell: Cell) -> dict[str, Any]:
    return {
        "id": cell.id,
        "port": cell.port,
        "method": cell.method,
        "n": cell.n,
        "puzzle": METHODS[cell.method].name,
        "outcome": cell.outcome.value,
        "reason": cell.reason.value if cell.reason else None,
        "detail": cell.detail,
        "moves": cell.moves,
        "digest": cell.digest,
        "seconds": round(cell.seconds, 6),
        "diff": list(cell.diff),
        "parting": None if cell.parting is None else {"at": cell.parting.at, "printed": [list(move) for move in cell.parting.printed]},
        "rerun": None if cell.rerun is None else {"command": cell.rerun.command, "program": cell.rerun.program, "build": list(cell.rerun.build)},
        "pegs": None if cell.pegs is None else list(cell.pegs),
    }


def read_report(path: Path) -> Report:
    """The report in the file ``path`` (given to merge or gallery), read in bounded memory and time:
    refused, by a :class:`ReportError` that names it and says why, if it cannot be read, is larger
    than MAX_REPORT_BYTES (before it is read), not JSON, nested past MAX_NESTING, or not a report as
    report.schema.json describes it; its details and diffs cut to DETAIL_CHARS and DIFF_LINES."""
    return from_json(_read_json(path, "report"), str(path))


def read_figures(path: Path) -> dict[str, Any]:
    """``harness bench``'s JSON figures in the file ``path`` (given to ``bench --merge``), read as a
    report is, in bounded memory and time, and refused by a :class:`ReportError` that names it and
    says why if they are not figures as bench.schema.json describes them."""
    data = _read_json(path, "figures file")
    broken = _broken(data, _bench_schema(), "the figures")
    if broken:
        raise ReportError(f"{path}: not harness bench figures: {broken}")
    return dict(data)


def _read_json(path: Path, what: str) -> Any:
    """The JSON in ``path``; :class:`ReportError` where it cannot be read, is larger than
    MAX_REPORT_BYTES (before it is read), is not JSON or nests past MAX_NESTING."""
    try:
        with path.open("rb") as source:
            text = source.read(MAX_REPORT_BYTES + 1) if os.fstat(source.fileno()).st_size <= MAX_REPORT_BYTES else None
    except OSError as error:
        raise ReportError(f"cannot read {path}: {error.strerror or error}") from None
    if text is None or len(text) > MAX_REPORT_BYTES:  # a file that says it is larger, or a device that gives more
        raise ReportError(f"{path}: larger than {MAX_REPORT_BYTES >> 20} MiB, the most a {what} may be; it was not read")
    try:
        data = json.loads(text)
    except RecursionError:
        data = None
    except ValueError as error:  # json.JSONDecodeError, and text that is not UTF-8
        raise ReportError(f"{path}: not JSON ({first_line(error)})") from None
    if data is None or _deeper_than(data, MAX_NESTING):
        raise ReportError(f"{path}: not a harness {what}: its values nest more than {MAX_NESTING} deep")
    return data


def _deeper_than(data: Any, limit: int) -> bool:
    """Whether ``data`` holds a list or an object more than ``limit`` levels down (it is walked, not recursed)."""
    levels: list[tuple[Any, int]] = [(data, 0)]
    while levels:
        value, depth = levels.pop()
        inner = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        if inner and depth >= limit:
            return True
        levels.extend((item, depth + 1) for item in inner if isinstance(item, (dict, list)))
    return False


def from_json(data: Any, source: str) -> Report:
    """A report read back; :class:`ReportError` naming ``source`` if it is not one this harness
    writes: first of all, where it breaks report.schema.json, the first place it does so."""
    version = data.get("schema_version") if isinstance(data, dict) else None
    if isinstance(data, dict) and version != SCHEMA_VERSION:
        older = "; an older harness wrote it: make it again with this one" if isinstance(version, int) and version < SCHEMA_VERSION else ""
        older += " (it records no plan of its run)" if version == 1 else ""
        raise ReportError(f"{source}: schema version {_shown(version)}; this harness reads version {SCHEMA_VERSION}{older}")
    broken = schema_error(data)
    if broken:
        raise ReportError(f"{source}: not a harness report: {broken}")
    try:
        ports = [
            PortInfo(name, _cut(entry["summary"]), tuple(entry["methods"]), {key: _cut(v) if v else v for key, v in entry["versions"].items()},
                     _cut(entry["problem"]) if entry["problem"] else None, _sources_from_json(entry))
            for name, entry in data["ports"].items()
        ]
        cells = [_cell_from_json(entry) for entry in data["cells"]]
        return Report(
            command=data["command"], started=data["started"], finished=data["finished"], commit=data["commit"],
            plan=_plan_from_json(data["plan"]), options=dict(data["options"]), machine=dict(data["machine"]), ports=ports,
            methods=list(data["methods"]), cells=cells, harness=data["harness"], sources=list(data.get("sources", [])),
            missing=list(data.get("missing", [])), interrupted=data.get("interrupted"),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ReportError(f"{source}: not a harness report of schema version {SCHEMA_VERSION} ({type(error).__name__}: {error})") from None


def _sources_from_json(entry: dict[str, Any]) -> tuple[Source, ...]:
    """A port's sources; none in a report written before ports named theirs."""
    return tuple(
        Source(
            str(source["title"]), str(source["author"]), str(source["published"]), str(source["terms"]), tuple(map(str, source["methods"])),
            str(source.get("url", "")),
        )
        for source in entry.get("sources", [])
    )


def _plan_from_json(entry: dict[str, Any]) -> RunPlan:
    methods = [str(method) for method in entry["methods"]]
    if unknown := [method for method in methods if method not in METHODS]:
        raise ValueError(f"unknown methods {unknown} in the plan")
    shard = None
    if entry["shard"] is not None:
        index, count = (int(part) for part in str(entry["shard"]).split("/"))
        if not 1 <= index <= count:
            raise ValueError(f"no shard {entry['shard']!r}")
        shard = Shard(index, count)
    return RunPlan(
        tuple(dict.fromkeys(str(port) for port in entry["ports"])), tuple(dict.fromkeys(methods)),
        tuple(sorted({int(n) for n in entry["n"]})), shard,
    )


def _cell_from_json(entry: dict[str, Any]) -> Cell:
    if entry["method"] not in METHODS:
        raise ValueError(f"unknown method {entry['method']!r}")
    diff = [_cut(line) for line in entry["diff"][:DIFF_LINES]]
    if len(entry["diff"]) > DIFF_LINES:
        diff.append(f"… and {len(entry['diff']) - DIFF_LINES:,} more lines")
    return Cell(
        entry["port"], entry["method"], int(entry["n"]), Outcome(entry["outcome"]), moves=int(entry["moves"]),
        digest=entry["digest"], seconds=float(entry["seconds"]), detail=_cut(entry["detail"]), diff=diff,
        reason=Reason(entry["reason"]) if entry["reason"] else None, parting=_parting_from_json(entry["parting"]),
        rerun=_rerun_from_json(entry.get("rerun")), pegs=_pegs_from_json(entry.get("pegs")),
    )


def _pegs_from_json(entry: object) -> tuple[str, ...] | None:
    """A cell's peg names: three strings, or None (absent from reports written before cells carried them)."""
    if entry is None:
        return None
    if not isinstance(entry, list) or len(entry) != PEGS or not all(isinstance(name, str) for name in entry):
        raise ValueError("a cell's pegs are three names")
    return tuple(_cut(name) for name in entry)


def _rerun_from_json(entry: dict[str, Any] | None) -> Rerun | None:
    """A cell's rerun line; none in a report written before cells carried one."""
    if entry is None:
        return None
    return Rerun(_cut(entry["command"]), _cut(entry["program"]) if entry["program"] is not None else None, tuple(map(_cut, entry["build"])))


def _cut(text: str) -> str:
    """Text a report read back quotes, cut visibly where it is longer than DETAIL_CHARS (model.shorten)."""
    return text if len(text) <= DETAIL_CHARS else shorten(text, DETAIL_CHARS)


def _parting_from_json(entry: dict[str, Any] | None) -> Parting | None:
    if entry is None:
        return None
    return Parting(int(entry["at"]), tuple(Move(None if disk is None else int(disk), int(src), int(dst)) for disk, src, dst in entry["printed"]))


def schema_error(data: Any) -> str | None:
    """Where ``data`` first breaks report.schema.json, and how, or None where it is a report as the
    schema describes it. The schema is read as it is, by hand: the few keywords it uses, each as
    JSON Schema means it (tests/integration/test_merge.py checks that jsonschema agrees), and no other."""
    return _broken(data, _schema(), "the report")


@functools.cache
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
    return schema


@functools.cache
def _bench_schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(BENCH_SCHEMA.read_text(encoding="utf-8"))
    return schema


JSON_TYPES: dict[str, Callable[[Any], bool]] = {
    "object": lambda value: isinstance(value, dict),
    "array": lambda value: isinstance(value, list),
    "string": lambda value: isinstance(value, str),
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool) or isinstance(value, float) and value.is_integer(),
    "number": lambda value: isinstance(value, (int, float)) and not isinstance(value, bool),
    "boolean": lambda value: isinstance(value, bool),
    "null": lambda value: value is None,
}
ANNOTATIONS = ("$schema", "$id", "$defs", "title", "description")
"""Keywords that say what a part of the schema is for, and nothing of what it holds."""


def _broken(value: Any, schema: dict[str, Any] | bool, where: str) -> str | None:
    """Where ``value`` at ``where`` first breaks ``schema``, and how; None where it does not."""
    if isinstance(schema, bool):
        return None if schema else f"{where}: nothing may be there"
    if "$ref" in schema:
        return _broken(value, _schema()["$defs"][schema["$ref"].removeprefix("#/$defs/")], where)
    kinds = schema.get("type")
    if kinds is not None and not any(JSON_TYPES[kind](value) for kind in ([kinds] if isinstance(kinds, str) else kinds)):
        return f"{where} is {_shown(value)}, not {' or '.join([kinds] if isinstance(kinds, str) else kinds)}"
    if "const" in schema and not _same(value, schema["const"]):
        return f"{where} is {_shown(value)}, not {json.dumps(schema['const'])}"
    if "enum" in schema and not any(_same(value, choice) for choice in schema["enum"]):
        return f"{where} is {_shown(value)}, not one of {', '.join(map(json.dumps, schema['enum']))}"
    if isinstance(value, str) and len(value) > schema.get("maxLength", len(value)):
        return f"{where} is {_shown(value)}, longer than {schema['maxLength']} characters"
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        return f"{where} is {_shown(value)}, which is not of the form {schema['pattern']}"
    if JSON_TYPES["number"](value) and not schema.get("minimum", value) <= value <= schema.get("maximum", value):
        return f"{where} is {_shown(value)}, not from {schema.get('minimum', '')} to {schema.get('maximum', '')}"
    if isinstance(value, dict):
        return _object(value, schema, where)
    if isinstance(value, list):
        return _array(value, schema, where)
    return None


def _shown(value: Any) -> str:
    """A value as a message quotes it: a text cut visibly (model.shorten), a number as it is, a list or an object by its size."""
    if isinstance(value, (dict, list)):
        return f"{'an object' if isinstance(value, dict) else 'a list'} of {len(value):,} items"
    return shorten(value, 60) if isinstance(value, str) else json.dumps(value)


def _same(value: Any, expected: Any) -> bool:
    """Equal as JSON Schema compares: true is not 1."""
    return bool(value == expected and isinstance(value, bool) == isinstance(expected, bool))


def _object(value: dict[str, Any], schema: dict[str, Any], where: str) -> str | None:
    missing = [key for key in schema.get("required", ()) if key not in value]
    if missing:
        return f"{where} has no {missing[0]!r}"
    properties = schema.get("properties", {})
    for key, item in value.items():
        broken = _broken(key, schema.get("propertyNames", True), f"a name in {where}")
        if broken:
            return broken
        inner = properties.get(key, schema.get("additionalProperties", True))
        broken = _broken(item, inner, key if where in ("the report", "the figures") else f"{where}.{key if len(key) <= 60 else shorten(key, 60)}")
        if broken:
            return broken
    return None


def _array(value: list[Any], schema: dict[str, Any], where: str) -> str | None:
    if not schema.get("minItems", 0) <= len(value) <= schema.get("maxItems", len(value)):
        return f"{where} holds {len(value):,} items, not from {schema.get('minItems', 0)} to {schema.get('maxItems', '')}"
    first = schema.get("prefixItems", [])
    for index, item in enumerate(value):
        broken = _broken(item, first[index] if index < len(first) else schema.get("items", True), f"{where}[{index}]")
        if broken:
            return broken
    return None
