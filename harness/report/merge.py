"""Several reports made one: the shards of a run on several machines, or runs of several ports,
held to the plans they record, so that what no report holds is named, never passed over."""

from __future__ import annotations

import itertools

from harness.errors import MergeError
from harness.model import METHODS, Shard, cell_id, span, utf8_safe
from harness.report import PortInfo, Report
from harness.report.about import machine
from harness.settings import RunPlan

SHOWN_MISSING_CELLS = 20
"""The most missing cells a merge names one by one; the rest are counted."""


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
