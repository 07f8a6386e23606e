"""Say what happened: a table of ports by methods, what went wrong and where, whether the ports agree,
and the same as JSON for machines."""

from __future__ import annotations

import collections
import json
from dataclasses import asdict
from typing import Iterable, Sequence, TextIO

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from harness import __version__
from harness.bench import GATE_N, BenchCell
from harness.compare import Agreement
from harness.discover import Port
from harness.model import Cell, Outcome
from harness.transcripts import StepResult, Transcript

STYLE = {Outcome.PASS: "green", Outcome.FAIL: "red", Outcome.ERROR: "magenta", Outcome.SKIPPED: "yellow"}
SHOWN_DIFFS = 5

Versions = dict[str, dict[str, str | None]]


def succeeded(cells: Iterable[Cell], agreement: Iterable[Agreement]) -> bool:
    """Every cell that ran passed, and each group of comparable cells printed one sequence."""
    return all(cell.outcome in (Outcome.PASS, Outcome.SKIPPED) for cell in cells) and all(
        group.agrees for group in agreement
    )


def span(ns: Sequence[int]) -> str:
    """``0-12`` for a run of consecutive n, else ``3,8,12``."""
    ns = sorted(ns)
    if len(ns) > 2 and ns == list(range(ns[0], ns[-1] + 1)):
        return f"{ns[0]}-{ns[-1]}"
    return ",".join(map(str, ns))


def _summary(cells: list[Cell], single_n: bool) -> str:
    """One table cell: how a port's method did over every n that was asked."""
    if not cells:
        return ""
    by_outcome: dict[Outcome, list[Cell]] = collections.defaultdict(list)
    for cell in cells:
        by_outcome[cell.outcome].append(cell)
    parts = []
    for outcome in (Outcome.FAIL, Outcome.ERROR, Outcome.SKIPPED, Outcome.PASS):
        group = by_outcome.get(outcome)
        if not group:
            continue
        moves = sum(cell.moves for cell in group)
        if single_n:
            text = f"{outcome.value} · {moves:,} moves" if outcome is not Outcome.SKIPPED else outcome.value
        elif outcome is Outcome.PASS:
            text = f"pass ×{len(group)} · {moves:,} moves"
        else:
            text = f"{outcome.value} n={span([cell.n for cell in group])}"
        parts.append(f"[{STYLE[outcome]}]{text}[/]")
    return "\n".join(parts)


def _problems(cells: Iterable[Cell]) -> list[str]:
    """Each distinct problem once, with the methods and n it happened for."""
    grouped: dict[tuple[str, Outcome, str], list[Cell]] = collections.defaultdict(list)
    for cell in cells:
        if cell.outcome is not Outcome.PASS:
            grouped[(cell.language, cell.outcome, cell.detail)].append(cell)
    lines = []
    for (language, outcome, detail), group in grouped.items():
        methods = ",".join(dict.fromkeys(cell.method for cell in group))
        where = f"{language}/{methods} n={span(sorted({cell.n for cell in group}))}"
        lines.append(f"[{STYLE[outcome]}]{outcome.value}[/] [bold]{escape(where)}[/]: {escape(detail)}")
    return lines


def _diff_lines(diff: list[str]) -> list[str]:
    colours = {"-": "red", "+": "green", "@": "cyan"}
    return [f"[{colours.get(line[:1], 'default')}]{escape(line)}[/]" for line in diff]


def render_compare(
    console: Console, ports: Sequence[Port], methods: Sequence[str], cells: Sequence[Cell],
    agreement: Sequence[Agreement], versions: Versions,
) -> None:
    ns = sorted({cell.n for cell in cells})
    table = Table(title=f"Tower of Hanoi, n = {span(ns)}", title_justify="left")
    table.add_column("port")
    for method in methods:
        table.add_column(method)
    by_port: dict[tuple[str, str], list[Cell]] = collections.defaultdict(list)
    for cell in cells:
        by_port[(cell.language, cell.method)].append(cell)
    for port in ports:
        found = [version for version in versions.get(port.name, {}).values() if version]
        label = f"{port.name}\n[dim]{escape(', '.join(found))}[/]" if found else port.name
        table.add_row(label, *(_summary(by_port[(port.name, method)], len(ns) == 1) for method in methods))
    console.print(table)

    problems = _problems(cells)
    if problems:
        console.print("\n[bold]Problems[/]")
        for line in problems:
            console.print(f"  {line}", highlight=False)
    diffs = [cell for cell in cells if cell.diff]
    if diffs:
        console.print("\n[bold]Where the moves part from the reference[/] (canonical moves: DISK SRC DST)")
        for cell in diffs[:SHOWN_DIFFS]:
            for line in _diff_lines(cell.diff):
                console.print(f"  {line}", highlight=False)
            console.print()
        if len(diffs) > SHOWN_DIFFS:
            console.print(f"  … and {len(diffs) - SHOWN_DIFFS} more; --json FILE keeps them all")

    console.print()
    for group in agreement:
        if not group.agrees:
            console.print(f"[red]n={group.n} ({group.rules}): the ports print {len(group.by_digest)} different sequences[/]")
            for digest, labels in group.by_digest.items():
                console.print(f"  {digest[:12]}  {escape(', '.join(labels))}", highlight=False)
    ran = [cell for cell in cells if cell.outcome is not Outcome.SKIPPED]
    counts = collections.Counter(cell.outcome.value for cell in cells)
    tally = ", ".join(f"{counts[outcome.value]} {outcome.value}" for outcome in Outcome if counts[outcome.value])
    if not ran:
        console.print(f"[yellow]No cell ran[/] ({tally}).")
    elif succeeded(cells, agreement):
        puzzles = sorted({group.rules for group in agreement})
        each = "each n" if len(puzzles) == 1 else f"each n and puzzle ({', '.join(puzzles)})"
        console.print(f"[green]All {len(ran)} cells that ran pass and agree[/]: one sequence for {each} ({tally}).")
    else:
        console.print(f"[red]Not all ports pass and agree[/] ({tally}).")


def render_list(console: Console, ports: Sequence[Port], versions: Versions, missing: dict[str, str]) -> None:
    table = Table(title="Ports", title_justify="left")
    for column in ("port", "methods", "interpreter"):
        table.add_column(column)
    for port in ports:
        if port.problem:
            found = f"[magenta]manifest problem: {escape(port.problem)}[/]"
        elif port.name in missing:
            found = f"[yellow]missing: {escape(missing[port.name])}[/]"
        else:
            found = "[green]found[/] " + escape(", ".join(v or f"{k} (version unknown)" for k, v in versions[port.name].items()))
        table.add_row(f"{port.name}\n[dim]{escape(port.summary)}[/]", ", ".join(port.methods), found)
    console.print(table)


def write_json(
    out: TextIO, ports: Sequence[Port], cells: Sequence[Cell], agreement: Sequence[Agreement], versions: Versions
) -> None:
    report = {
        "harness": __version__,
        "passed": succeeded(cells, agreement),
        "ports": {
            port.name: {"summary": port.summary, "versions": versions.get(port.name, {}), "problem": port.problem}
            for port in ports
        },
        "cells": [{**asdict(cell), "outcome": cell.outcome.value} for cell in cells],
        "agreement": [
            {"n": group.n, "rules": group.rules, "agrees": group.agrees, "digests": group.by_digest}
            for group in agreement
        ],
    }
    json.dump(report, out, indent=2)
    out.write("\n")


def render_transcripts(console: Console, replays: Sequence[tuple[Transcript, list[StepResult]]]) -> None:
    """Each document's session, a line a step; the answer's diff where it changed, the reason where
    the session could not run."""
    mark = {Outcome.PASS: "✓", Outcome.FAIL: "✗", Outcome.ERROR: "!", Outcome.SKIPPED: "-"}
    for transcript, results in replays:
        console.print(f"[bold]{escape(transcript.title)}[/] [dim]({transcript.name})[/]")
        for result in results:
            console.print(f"  [{STYLE[result.outcome]}]{mark[result.outcome]}[/] {escape(result.step.query)}")
            if result.step.note:
                console.print(f"      [dim]{escape(result.step.note)}[/]")
            if result.outcome is Outcome.FAIL:
                for line in _diff_lines(result.diff()):
                    console.print(f"      {line}")
        problems = dict.fromkeys(result.detail for result in results if result.detail)
        for detail in problems:
            console.print(f"    {escape(detail)}", style="magenta")
    counts = collections.Counter(result.outcome for _, results in replays for result in results)
    summary = ", ".join(f"{counts[outcome]} {outcome.value}" for outcome in Outcome if counts[outcome])
    console.print(f"\n{len(replays)} transcripts, {sum(counts.values())} steps: {summary or 'none'}.")


def _figure(value: float | None, spread: tuple[float, float] | None = None, unit: str = "") -> str:
    if value is None:
        return "–"
    text = f"{value:.3g}{unit}"
    return text + (f" [dim]({spread[0]:.3g}–{spread[1]:.3g})[/]" if spread and len(set(spread)) > 1 else "")


def _rate(value: float | None) -> str:
    return "–" if value is None else f"{value / 1e6:.2f} M" if value >= 1e6 else f"{value / 1e3:.0f} k"


def render_bench(console: Console, cells: Sequence[BenchCell], machine: dict, versions: Versions, repeat: int) -> None:
    """The timings, a row a cell: medians of the runs, with their range."""
    table = Table(title=f"Tower of Hanoi benchmark: median of {repeat} runs after a warm-up (range)", title_justify="left")
    columns = ("port", "method", "n", "moves", "wall s", "CPU s", "peak RSS MB", "moves/s", "harness moves/s", "compare s", "ratio")
    for column in columns:
        table.add_column(column, justify="left" if column in ("port", "method") else "right")
    for cell in cells:
        if cell.status != "timed":
            style = "yellow" if cell.status == "not timed" else "magenta"
            table.add_row(cell.language, cell.method, str(cell.n), f"[{style}]{cell.status}: {escape(cell.detail)}[/]")
            continue
        table.add_row(
            cell.language, cell.method, str(cell.n), f"{cell.moves:,}",
            _figure(cell.median("wall"), cell.spread("wall")), _figure(cell.median("cpu")),
            _figure(cell.median("peak_rss_mb"), cell.spread("peak_rss_mb")),
            _rate(cell.moves_per_second), _rate(cell.harness_moves_per_second),
            _figure(cell.compare_seconds), f"{cell.ratio:.2f}" if cell.ratio else "–",
        )
    console.print(table)
    console.print(
        f"[dim]{machine['cpu']}, {machine['cores']} cores, {machine['os']}, Python {machine['python']}, "
        f"commit {machine['commit']}[/]", highlight=False
    )
    for port, found in versions.items():
        console.print(f"[dim]{port}: {', '.join(v or k for k, v in found.items())}[/]", highlight=False)


def write_bench_json(out: TextIO, cells: Sequence[BenchCell], machine: dict, versions: Versions, repeat: int) -> None:
    report = {
        "harness": __version__,
        "machine": machine,
        "versions": versions,
        "gate_n": GATE_N,
        "repeat": repeat,
        "cells": [
            {
                "language": cell.language, "method": cell.method, "n": cell.n, "status": cell.status, "detail": cell.detail,
                "moves": cell.moves, "runs": [asdict(run) for run in cell.runs],
                "wall_median": cell.median("wall"), "wall_range": cell.spread("wall"),
                "cpu_median": cell.median("cpu"), "peak_rss_mb_median": cell.median("peak_rss_mb"),
                "moves_per_second": cell.moves_per_second,
                "harness_seconds": cell.harness_seconds, "harness_moves_per_second": cell.harness_moves_per_second,
                "compare_runs": cell.through_compare, "compare_median": cell.compare_seconds, "ratio": cell.ratio,
            }
            for cell in cells
        ],
    }
    json.dump(report, out, indent=2)
    out.write("\n")


def plot_bench(path: str, cells: Sequence[BenchCell], machine: dict) -> None:
    """Median wall time against n on a log scale, one panel a method, one line a port."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    methods = list(dict.fromkeys(cell.method for cell in cells))
    figure, axes = pyplot.subplots(1, len(methods), figsize=(4.5 * len(methods), 4.2), squeeze=False, sharey=True)
    for axis, method in zip(axes[0], methods):
        timed = [cell for cell in cells if cell.method == method and cell.status == "timed"]
        for language in dict.fromkeys(cell.language for cell in timed):
            points = sorted((cell.n, cell.median("wall")) for cell in timed if cell.language == language)
            axis.plot([n for n, _ in points], [wall for _, wall in points], marker="o", label=language)
        axis.set_yscale("log")
        axis.set_title(method)
        axis.set_xlabel("discs (n)")
        axis.grid(True, which="both", alpha=0.3)
        if timed:
            axis.legend(fontsize="small")
    axes[0][0].set_ylabel("median wall time (s), log scale")
    figure.suptitle(f"hanoi-polyglot: {machine['cpu']}, {machine['cores']} cores", fontsize="small")
    figure.tight_layout()
    figure.savefig(path)
    pyplot.close(figure)
