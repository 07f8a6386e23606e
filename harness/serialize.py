"""The report as data, and its JSON form: written field by field and read back the same way, so a
renamed attribute cannot change the format unnoticed. ``report.schema.json`` beside this file
describes the format; ``schema_version`` changes whenever a reader of the old one would misread it."""

from __future__ import annotations

import contextlib
import datetime
import os
import platform
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness import __version__
from harness.compare import Agreement, agreements, succeeded
from harness.discover import Source
from harness.errors import MergeError, ReportError
from harness.model import METHODS, Cell, Move, Outcome, Parting, Reason, Shard, cell_id, span
from harness.settings import RunPlan

SCHEMA_VERSION = 3
"""2: a report records its plan, and a merge what of the plans no report holds. 3: a failing cell
records where its moves part from the reference, and the moves it printed from there."""
SHOWN_MISSING_CELLS = 20
"""The most missing cells a merge names one by one; the rest are counted."""

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
    """The checkout's commit, marked when files differ from it; None where ``root`` is no checkout."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=root, capture_output=True, text=True, timeout=10
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
    }


def from_json(data: Any, source: str) -> Report:
    """A report read back; :class:`ReportError` naming ``source`` if it is not one this harness writes."""
    if not isinstance(data, dict):
        raise ReportError(f"{source}: not a harness report (a JSON object is expected)")
    version = data.get("schema_version")
    if version != SCHEMA_VERSION:
        older = "; an older harness wrote it: make it again with this one" if isinstance(version, int) and version < SCHEMA_VERSION else ""
        older += " (it records no plan of its run)" if version == 1 else ""
        raise ReportError(f"{source}: schema version {version!r}; this harness reads version {SCHEMA_VERSION}{older}")
    try:
        ports = [
            PortInfo(name, entry["summary"], tuple(entry["methods"]), dict(entry["versions"]), entry["problem"], _sources_from_json(entry))
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
    return RunPlan(tuple(str(port) for port in entry["ports"]), tuple(methods), tuple(int(n) for n in entry["n"]), shard)


def _cell_from_json(entry: dict[str, Any]) -> Cell:
    if entry["method"] not in METHODS:
        raise ValueError(f"unknown method {entry['method']!r}")
    return Cell(
        entry["port"], entry["method"], int(entry["n"]), Outcome(entry["outcome"]), moves=int(entry["moves"]),
        digest=entry["digest"], seconds=float(entry["seconds"]), detail=entry["detail"], diff=list(entry["diff"]),
        reason=Reason(entry["reason"]) if entry["reason"] else None, parting=_parting_from_json(entry["parting"]),
    )


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
        tuple(sorted(planned | set(expected))), tuple(method for method in METHODS if any(method in plan.methods for plan in plans)),
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
        missing=unreported(plans, set(seen), [port for port in expected if port not in planned]),
    )


def unreported(plans: list[RunPlan], held: set[str], unplanned: list[str]) -> list[str]:
    """What no report holds, each named once and as a whole: a port no plan names (of ``unplanned``),
    a shard of a run none of whose reports is that shard, and then any other planned cell not ``held``."""
    found = [f"port {port}: no report (the checkout's manifests list it)" for port in unplanned]
    accounted = set(held)
    shards: dict[tuple[RunPlan, int], set[int]] = {}
    for plan in plans:
        if plan.shard is not None:
            shards.setdefault((plan.whole(), plan.shard.count), set()).add(plan.shard.index)
    for (run, count), indices in shards.items():
        for index in sorted(set(range(1, count + 1)) - indices):
            shard = RunPlan(run.ports, run.methods, run.ns, Shard(index, count))
            found.append(f"shard {shard.shard}: no report (of the run of ports {', '.join(run.ports)}; n={span(run.ns)}; {', '.join(run.methods)})")
            accounted.update(cell_id(*key) for key in shard.cells())
    cells = list(dict.fromkeys(cell_id(*key) for plan in plans for key in plan.whole().cells() if cell_id(*key) not in accounted))
    found += [f"cell {cell}: no report" for cell in cells[:SHOWN_MISSING_CELLS]]
    if len(cells) > SHOWN_MISSING_CELLS:
        found.append(f"… and {len(cells) - SHOWN_MISSING_CELLS} more cells: no report")
    return found
