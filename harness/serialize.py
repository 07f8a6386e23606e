"""The report as data, and its JSON form: written field by field and read back the same way, so a
renamed attribute cannot change the format unnoticed. ``report.schema.json`` beside this file
describes the format; ``schema_version`` changes whenever a reader of the old one would misread it."""

from __future__ import annotations

import contextlib
import datetime
import functools
import itertools
import json
import os
import platform
import re
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import __version__
from harness.compare import Agreement, agreements, succeeded
from harness.discover import Source
from harness.errors import MergeError, ReportError, first_line
from harness.model import METHODS, Cell, Move, Outcome, Parting, Reason, Rerun, Shard, cell_id, shorten, span, utf8_safe
from harness.settings import RunPlan

SCHEMA_VERSION = 3
"""2: a report records its plan, and a merge what of the plans no report holds. 3: a failing cell
records where its moves part from the reference, and the moves it printed from there."""
SHOWN_MISSING_CELLS = 20
"""The most missing cells a merge names one by one; the rest are counted."""
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
SCHEMA = Path(__file__).with_name("report.schema.json")

Versions = dict[str, dict[str, str | None]]
"""Each port's interpreters' versions, by port and executable: None where a version cannot be read."""


def now() -> str:
    """The time now, as the report writes it: UTC, ISO 8601, to the second."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def machine() -> dict[str, Any]:
    """Where a run happened: the CPU, the cores, the OS, the Python."""
    model = None
    with contextlib.suppress(OSError):
        model = next(
            (line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
            None,
        )
    return {
        "cpu": model or platform.processor() or None,
        "cores": os.cpu_count(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def commit(root: Path) -> str | None:
    """The checkout's commit, marked when files differ from it; None where ``root`` is no checkout.
    Only read: git takes no lock on the checkout's index for it (GIT_OPTIONAL_LOCKS=0), so a run
    stopped, or short of disk, meanwhile leaves the checkout as it was."""
    reading = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10, env=reading)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True, timeout=10, env=reading
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    if head.returncode != 0 or not head.stdout.strip():
        return None
    return head.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


@dataclass(frozen=True)
class PortInfo:
    """What a report records of a port: enough to show it without its manifest."""

    name: str
    summary: str
    methods: tuple[str, ...]
    versions: dict[str, str | None]
    manifest_error: str | None = None
    sources: tuple[Source, ...] = ()
    """The documents the port follows, as its manifest names them."""


@dataclass
class Report:
    """One run of ``compare`` (or several merged): when, where, with what plan and options, and every cell."""

    command: str
    started: str
    finished: str
    commit: str | None
    plan: RunPlan
    options: dict[str, Any]
    machine: dict[str, Any]
    ports: list[PortInfo]
    methods: list[str]
    cells: list[Cell]
    harness: str = __version__
    sources: list[dict[str, Any]] = field(default_factory=list)
    """For a merged report, the runs it was made from (each one's times, commit, plan, options, machine)."""
    missing: list[str] = field(default_factory=list)
    """For a merged report, each part of the plans that no report holds: a port, a shard, a cell."""

    @property
    def agreement(self) -> list[Agreement]:
        """For each n and puzzle, which cells printed which digest."""
        return agreements(self.cells)

    @property
    def passed(self) -> bool:
        """Whether nothing planned is missing, every cell that ran passed and the ports agree."""
        return not self.missing and succeeded(self.cells, self.agreement)


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
                    {"title": source.title, "author": source.author, "published": source.published, "terms": source.terms, "methods": list(source.methods)}
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
    if report.command == "merge":
        data["missing"] = report.missing
        data["sources"] = report.sources
    return data


_JSON_ESCAPES = re.compile(r"\\\\|\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}|\\udc([89a-f][0-9a-f])")
"""In JSON text as json.dumps writes it: an escaped backslash, a pair of surrogates (one character),
or a lone surrogate that stands for a byte of a name that was not UTF-8."""


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
    }


def read_report(path: Path) -> Report:
    """The report in the file ``path``, read in bounded memory and time: refused, by a
    :class:`ReportError` that names it and says why, if it is larger than MAX_REPORT_BYTES (before
    it is read), not JSON, nested past MAX_NESTING, or not a report as report.schema.json describes
    it; its details and diffs cut to DETAIL_CHARS and DIFF_LINES."""
    with path.open("rb") as source:
        text = source.read(MAX_REPORT_BYTES + 1) if os.fstat(source.fileno()).st_size <= MAX_REPORT_BYTES else None
    if text is None or len(text) > MAX_REPORT_BYTES:  # a file that says it is larger, or a device that gives more
        raise ReportError(f"{path}: larger than {MAX_REPORT_BYTES >> 20} MiB, the most a report may be; it was not read")
    try:
        data = json.loads(text)
    except RecursionError:
        data = None
    except ValueError as error:  # json.JSONDecodeError, and text that is not UTF-8
        raise ReportError(f"{path}: not JSON ({first_line(error)})") from None
    if data is None or _deeper_than(data, MAX_NESTING):
        raise ReportError(f"{path}: not a harness report: its values nest more than {MAX_NESTING} deep")
    return from_json(data, str(path))


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
            missing=list(data.get("missing", [])),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise ReportError(f"{source}: not a harness report of schema version {SCHEMA_VERSION} ({type(error).__name__}: {error})") from None


def _sources_from_json(entry: dict[str, Any]) -> tuple[Source, ...]:
    """A port's sources; none in a report written before ports named theirs."""
    return tuple(
        Source(str(source["title"]), str(source["author"]), str(source["published"]), str(source["terms"]), tuple(map(str, source["methods"])))
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
        rerun=_rerun_from_json(entry.get("rerun")),
    )


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


def merge_reports(reports: list[tuple[str, Report]], mixed: bool, expected: tuple[str, ...] = ()) -> Report:
    """One report of the cells of several runs (each read from the path it is paired with), such as
    the shards of one run on several machines, merged on this machine. It fails, naming them, where
    the reports' plans, or the ports ``expected`` besides, hold something no report does.
    :class:`MergeError` for reports from different commits or harness versions (unless ``mixed``),
    or that hold one cell twice."""
    commits = {report.commit for _, report in reports}
    harnesses = {report.harness for _, report in reports}
    if not mixed and (len(commits) > 1 or len(harnesses) > 1):
        which = ", ".join(f"{path}: commit {report.commit}, harness {report.harness}" for path, report in reports)
        raise MergeError(f"the reports come from different commits or harness versions ({which}); --mixed merges them anyway")
    seen: dict[str, str] = {}
    for path, report in reports:
        for cell in report.cells:
            if cell.id in seen:
                raise MergeError(f"the cell {cell.id} is in both {seen[cell.id]} and {path}: merge the reports of separate shards")
            seen[cell.id] = path
    ports: dict[str, PortInfo] = {}
    for _, report in reports:
        for port in report.ports:
            ports.setdefault(port.name, port)
    methods = [method for method in METHODS if any(method in report.methods for _, report in reports)]
    order = {(name, method): (i, j) for i, name in enumerate(sorted(ports)) for j, method in enumerate(methods)}
    cells = sorted((cell for _, report in reports for cell in report.cells), key=lambda c: (c.n, *order[(c.port, c.method)]))
    plans = [report.plan for _, report in reports]
    planned = {port for plan in plans for port in plan.ports}
    whole = RunPlan(
        tuple(sorted(planned | set(map(utf8_safe, expected)))), tuple(method for method in METHODS if any(method in plan.methods for plan in plans)),
        tuple(sorted({n for plan in plans for n in plan.ns})),
    )
    return Report(
        "merge", min(r.started for _, r in reports), max(r.finished for _, r in reports), commits.pop() if len(commits) == 1 else None,
        whole, {"reports": [path for path, _ in reports], "mixed": mixed, "expected": list(expected)}, machine(),
        [ports[name] for name in sorted(ports)], methods, cells,
        sources=[
            {"path": path, "harness": r.harness, "started": r.started, "finished": r.finished, "commit": r.commit,
             "plan": r.plan.to_json(), "options": r.options, "machine": r.machine}
            for path, r in reports
        ],
        missing=unreported(plans, set(seen), [port for port in map(utf8_safe, expected) if port not in planned]),
    )


def unreported(plans: list[RunPlan], held: set[str], unplanned: list[str]) -> list[str]:
    """What no report holds, each named once and as a whole: a port no plan names (of ``unplanned``),
    a shard of a run none of whose reports is that shard, and then any other planned cell not ``held``.
    The plans' cells are walked, never held: a merge's memory is that of its reports."""
    found = [f"port {port}: no report (the checkout's manifests list it)" for port in unplanned]
    shards: dict[tuple[RunPlan, int], set[int]] = {}
    for plan in plans:
        if plan.shard is not None:
            shards.setdefault((plan.whole(), plan.shard.count), set()).add(plan.shard.index)
    absent: dict[RunPlan, list[Shard]] = {}
    for (run, count), indices in shards.items():
        for index in sorted(set(range(1, count + 1)) - indices):
            absent.setdefault(run, []).append(Shard(index, count))
            found.append(f"shard {index}/{count}: no report (of the run of ports {', '.join(run.ports)}; n={span(run.ns)}; {', '.join(run.methods)})")
    runs = list(dict.fromkeys(plan.whole() for plan in plans))
    cells: list[str] = []
    count = 0
    for number, run in enumerate(runs):
        unsharded, earlier_runs = absent.get(run, []), runs[:number]
        for n, port, method in itertools.product(run.ns, run.ports, run.methods):
            if cell_id(port, method, n) in held or any(shard.holds(port, method, n) for shard in unsharded):
                continue
            if any(port in earlier.ports and method in earlier.methods and n in earlier.ns for earlier in earlier_runs):
                continue  # named already, as a cell of an earlier run
            count += 1
            if len(cells) < SHOWN_MISSING_CELLS:
                cells.append(cell_id(port, method, n))
    found += [f"cell {cell}: no report" for cell in cells]
    if count > SHOWN_MISSING_CELLS:
        found.append(f"… and {count - SHOWN_MISSING_CELLS} more cells: no report")
    return found


def schema_error(data: Any) -> str | None:
    """Where ``data`` first breaks report.schema.json, and how, or None where it is a report as the
    schema describes it. The schema is read as it is, by hand: the few keywords it uses, each as
    JSON Schema means it (tests/test_merge.py checks that jsonschema agrees), and no other."""
    return _broken(data, _schema(), "the report")


@functools.cache
def _schema() -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(SCHEMA.read_text(encoding="utf-8"))
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
        broken = _broken(item, inner, key if where == "the report" else f"{where}.{key if len(key) <= 60 else shorten(key, 60)}")
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
