"""``harness bench``'s figures as every form shows them: a port and method an entry of the summary,
at its largest n timed, made from the JSON figures alone, so that the table, the Markdown, the plot
and the terminal show the same entries in the same order."""

from __future__ import annotations

import enum
import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from harness.errors import MergeError
from harness.model import METHODS
from harness.report.summary import one_line


class BenchStatus(str, enum.Enum):
    """Whether a bench cell was timed, and if not, why not."""

    TIMED = "timed"
    FAILED = "failed"  # its output did not verify, at the gate's n or its own: the port's fault
    NOT_TIMED = "not timed"  # skipped at the gate (no interpreter here), an n it does not take, or too many moves
    ERROR = "error"  # it verified, then a timed run of it went wrong


def figure(value: float | None, spread: tuple[float, float] | None = None, markup: bool = True) -> str:
    """Seconds as the tables show them: three figures, and the range of the runs where they differ."""
    if value is None:
        return "–"
    if not spread or spread[0] == spread[1]:
        return f"{value:.3g}"
    shown = f"({spread[0]:.3g}–{spread[1]:.3g})"
    return f"{value:.3g} " + (f"[dim]{shown}[/]" if markup else shown)


def ratio(value: float | None) -> str:
    """A ratio as the tables show it: two decimals."""
    return "–" if value is None else f"{value:.2f}"


@dataclass(frozen=True)
class Entry:
    """One port and method as the summary shows them: at the largest n timed, the port's own time
    (through a pipe, median and range), its start-up (its time at n = 0) and the harness's reading of
    its output; or, where none was timed or one failed, why."""

    port: str
    method: str
    status: BenchStatus
    detail: str = ""
    n: int | None = None
    moves: int = 0
    seconds: float | None = None
    spread: tuple[float, float] | None = None
    cpu: float | None = None
    startup: float | None = None
    reading: float | None = None
    reading_ratio: float | None = None


SUMMARY_COLUMNS = ("port", "n", "moves", "port s (range)", "CPU s", "start-up s", "reading s", "reading / port")


def catalogue(figures: dict[str, Any]) -> list[Entry]:
    """The summary of bench's JSON figures (:func:`bench_to_json`), a port and method an entry, by
    method (in the harness's order), fastest first, then those not timed by name: the same figures
    give the same entries, in whatever order their cells come. A port and method that failed or
    errored at any n is listed so, as the Programming Language Benchmarks list a program that does
    not verify; one with no cell timed says why its first was not."""
    cells: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for cell in sorted(figures["cells"], key=lambda cell: cell["n"]):
        cells.setdefault((cell["port"], cell["method"]), []).append(cell)
    entries = [_entry(port, method, own) for (port, method), own in cells.items()]
    order = {method: index for index, method in enumerate(METHODS)}
    return sorted(entries, key=lambda entry: (
        order.get(entry.method, len(order)), entry.method, entry.status is not BenchStatus.TIMED, entry.seconds or 0.0, entry.port,
    ))


def _entry(port: str, method: str, cells: list[dict[str, Any]]) -> Entry:
    timed = [cell for cell in cells if cell["status"] == BenchStatus.TIMED.value]
    faulty = next((cell for cell in cells if cell["status"] in (BenchStatus.FAILED.value, BenchStatus.ERROR.value)), None)
    if faulty or not timed:
        shown = faulty or cells[0]
        return Entry(port, method, BenchStatus(shown["status"]), shown["detail"], shown["n"])
    top = timed[-1]
    at_zero = next((cell["wall_median"] for cell in timed if cell["n"] == 0 and cell is not top), None)
    return Entry(
        port, method, BenchStatus.TIMED, n=top["n"], moves=top["moves"], seconds=top["wall_median"],
        spread=tuple(top["wall_range"]) if top["wall_range"] else None, cpu=top["cpu_median"], startup=at_zero,
        reading=top["harness_seconds"], reading_ratio=top["reading_ratio"],
    )


def by_method(entries: Sequence[Entry]) -> Iterator[tuple[str, list[Entry]]]:
    """The entries a method at a time, each group with its title: the method, and its n where every port timed has the same."""
    for method, grouped in itertools.groupby(entries, key=lambda entry: entry.method):
        group = list(grouped)
        ns = {entry.n for entry in group if entry.status is BenchStatus.TIMED}
        yield (f"{method}, n = {ns.pop()}" if len(ns) == 1 else method), group


def not_timed(entries: Sequence[Entry]) -> list[tuple[str, list[str], BenchStatus, str]]:
    """Each port's reasons for the methods not timed, by port, each reason once with its methods: a
    port with no interpreter here is one line, not one a method."""
    reasons: dict[tuple[str, BenchStatus, str], list[str]] = {}
    for entry in sorted(entries, key=lambda entry: entry.port):
        if entry.status is not BenchStatus.TIMED:
            reasons.setdefault((entry.port, entry.status, brief(entry.detail)), []).append(entry.method)
    return [(port, methods, status, reason) for (port, status, reason), methods in reasons.items()]


def summary_row(entry: Entry, markup: bool) -> list[str]:
    """The entry's cells under SUMMARY_COLUMNS, its port as it is; for one not timed, its status alone."""
    if entry.status is not BenchStatus.TIMED:
        return [entry.port, "", "", entry.status.value, "", "", "", ""]
    return [
        entry.port, str(entry.n), f"{entry.moves:,}", figure(entry.seconds, entry.spread, markup), figure(entry.cpu), figure(entry.startup),
        figure(entry.reading), ratio(entry.reading_ratio),
    ]


def brief(detail: str, limit: int = 160) -> str:
    """A detail on one line, cut where it is long: the JSON keeps it whole."""
    line = one_line(detail)
    return line if len(line) <= limit else line[: limit - 1] + "…"


MACHINE_KEYS = ("cpu", "cores", "os", "python")
"""What makes two machines' figures different machines' figures: not the commit or the isolation,
which a merge holds the same."""


def provenance(figures: dict[str, Any]) -> list[str]:
    """Where the figures come from, a sentence each: the runs, the commit and the isolation; the
    machine or machines they were measured on and how busy each was as its cells were timed; and,
    for merged figures, the machine that merged them where it is not one of those."""
    machine = figures["machine"]
    said = [
        f"Median of {figures['repeat']} runs after a warm-up, commit {machine['commit']}, --isolation {machine.get('isolation', 'subprocess')}."
    ]
    groups = figures.get("machines") or [{"machine": machine, "ports": sorted({cell["port"] for cell in figures["cells"]})}]
    for group in groups:
        ports = f" (ports {', '.join(group['ports'])})" if len(groups) > 1 else ""
        said.append(f"Measured on {described(group['machine'])}{ports}{_load(figures['cells'], set(group['ports']), group['machine'])}.")
    merged_on = figures.get("merged_on")
    if merged_on and all(not same_machine(merged_on, group["machine"]) for group in groups):
        said.append(f"Merged on {described(merged_on)}, not the machine measured: these figures are not this machine's.")
    return said


def described(machine: dict[str, Any]) -> str:
    """A machine as the figures name it: its CPU, cores, OS and Python."""
    return f"{machine['cpu']}, {machine['cores']} cores, {machine['os']}, Python {machine['python']}"


def same_machine(one: dict[str, Any], other: dict[str, Any]) -> bool:
    """Whether two machines are the same as far as figures can tell (MACHINE_KEYS)."""
    return all(one.get(key) == other.get(key) for key in MACHINE_KEYS)


def _load(cells: list[dict[str, Any]], ports: set[str], machine: dict[str, Any]) -> str:
    """How busy the machine was as the ports' cells were timed, where the figures say: figures made
    beside other work are slower than the machine is, and must say so."""
    loads = [cell["load_average"] for cell in cells if cell["port"] in ports and cell.get("load_average") is not None]
    if not loads:
        return ""
    busy = "busy: " if max(loads) > (machine.get("cores") or 1) else ""
    return f", {busy}load average (1 min) {min(loads):.1f} to {max(loads):.1f} as its cells were timed"


def versions_line(found: dict[str, str | None]) -> str:
    """A port's interpreters' versions on one line, an interpreter's name where its version is unknown."""
    return ", ".join(version or name for name, version in found.items())


def merge_figures(sources: list[tuple[str, dict[str, Any]]], here: dict[str, Any], expected: Sequence[str] = ()) -> dict[str, Any]:
    """The figures of several benches (each read from the path it is paired with), such as one job's
    a port, as one: their cells and versions together, the machine each was measured on, ``here``
    (the machine that merges them), and the ports ``expected`` that no figures hold. :class:`MergeError`
    for figures that cannot share one table: from other commits, harness versions, isolations or
    repeat counts, or a port in two of them."""
    if not sources:
        raise MergeError("no figures to merge")
    kinds = {(data["harness"], data["machine"]["commit"], data["machine"].get("isolation"), data["repeat"], data["gate_n"]) for _, data in sources}
    if len(kinds) > 1:
        which = "; ".join(
            f"{path}: harness {data['harness']}, commit {data['machine']['commit']}, --isolation {data['machine'].get('isolation')}, "
            f"{data['repeat']} runs" for path, data in sources
        )
        raise MergeError(f"the figures come from different commits, harnesses, isolations or repeat counts, and cannot share one table ({which})")
    owner: dict[str, str] = {}
    for path, data in sources:
        for port in sorted({cell["port"] for cell in data["cells"]}):
            if port in owner:
                raise MergeError(f"the port {port} has figures in both {owner[port]} and {path}: merge one bench of each port")
            owner[port] = path
    machines: list[dict[str, Any]] = []
    for path, data in sources:
        group = next((group for group in machines if same_machine(group["machine"], data["machine"])), None)
        if group is None:
            machines.append(group := {"machine": data["machine"], "ports": []})
        group["ports"] = sorted({*group["ports"], *(port for port, source in owner.items() if source == path)})
    first = sources[0][1]
    return {
        "harness": first["harness"], "machine": first["machine"], "machines": machines, "merged_on": here,
        "sources": [path for path, _ in sources], "missing": sorted(set(expected) - set(owner)),
        "versions": {port: found for _, data in sources for port, found in data["versions"].items()},
        "gate_n": first["gate_n"], "repeat": first["repeat"], "cells": [cell for _, data in sources for cell in data["cells"]],
    }
