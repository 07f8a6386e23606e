"""bench's summary, made from its JSON figures alone (made up here, as docs/bench.json holds them):
a port and method an entry, fastest first within each method, a port that failed listed as failed
and never timed; the Markdown table and the SVG plot of it, in which text from a port is never
markup; the same figures giving the same bytes in whatever order their cells come; and twenty-five
ports on a terminal, a row a line."""

from __future__ import annotations

import io
import json
import random
import re
import sys
import xml.etree.ElementTree as ET

import pytest
from rich.console import Console

from harness.bench import CATALOGUE_N, LABEL_CHARS, ROW, BenchCell, Run, _Timer, bench_svg, bench_to_json, plan, render_bench
from harness.environment import Secrets
from harness.errors import BenchError
from harness.model import METHODS
from harness.report import WRITERS
from harness.report.figures import BenchStatus, catalogue, figure

LANGUAGES = [
    "ada", "bash", "c", "clojure", "common-lisp", "cpp", "csharp", "d", "elixir", "erlang", "go", "haskell", "java",
    "javascript", "julia", "kotlin", "lua", "ocaml", "perl", "php", "python", "racket", "ruby", "rust", "swift",
]
HOSTILE = '<img src=x onerror=alert(1)> [bold]*x* | `tick`'
"""A port's name that SVG, Markdown and rich would each take as markup."""
FAILING = "fail at n=5, so not timed: line 2: move 2 puts disc 2 on disc 1"
ABSENT = "skipped at n=5, so not timed: not installed here: swift not found on PATH"
MACHINE = {"cpu": "AMD EPYC", "cores": 2, "os": "Linux-6.18", "python": "3.11.7", "commit": "abc1234", "isolation": "subprocess"}
SVG = "{http://www.w3.org/2000/svg}"


def timed(port: str, method: str, n: int, seconds: float) -> BenchCell:
    """A cell timed three times, read by the harness in a tenth of the port's time."""
    moves = METHODS[method].optimal_count(n)
    cell = BenchCell(port, method, n, runs=[Run(moves, seconds * spread, seconds * 0.9, 2.0) for spread in (0.95, 1.0, 1.1)])
    cell.harness_seconds, cell.through_compare, cell.startup = seconds / 10, [seconds + 0.3] * 3, 0.3
    return cell


def untimed(port: str, method: str, n: int, status: BenchStatus, detail: str) -> BenchCell:
    return BenchCell(port, method, n, status, detail)


def made_up(ports: list[str]) -> tuple[list[BenchCell], dict]:
    """A bench of the catalogue's n over ``ports``, each port's speed a different rank in each
    method; swift has no interpreter here, julia fails the gate, kotlin's recursive method fails at
    n = 20 and ruby's cyclic times out there: the cells, and their figures as read from the JSON."""
    cells = []
    for index, port in enumerate(ports):
        for rank, (method, ns) in enumerate(plan(list(METHODS)).items()):
            for n in ns:
                if port == "swift":
                    cells.append(untimed(port, method, n, BenchStatus.NOT_TIMED, ABSENT))
                elif port == "julia":
                    cells.append(untimed(port, method, n, BenchStatus.FAILED, FAILING))
                elif n and (port, method) == ("kotlin", "recursive"):
                    cells.append(untimed(port, method, n, BenchStatus.FAILED, "fail at n=20, so not timed: line 9: move 9 is (0, 0)"))
                elif n and (port, method) == ("ruby", "cyclic"):
                    cells.append(untimed(port, method, n, BenchStatus.ERROR, "timed out after 120 s"))
                else:
                    cells.append(timed(port, method, n, 0.002 + index / 1e4 if n == 0 else 0.01 * 1.3 ** ((index * 7 + rank * 5) % 25)))
    versions = {port: {"interpreter": f"{port} 1.0"} for port in ports}
    return cells, json.loads(json.dumps(bench_to_json(cells, MACHINE, versions, 3)))


def test_the_catalogue_times_each_classic_method_at_0_and_20_and_the_cyclic_at_0_and_12():
    assert CATALOGUE_N == {"binary": 20, "recursive": 20, "iterative": 20, "cyclic": 12}
    assert plan(["recursive", "cyclic"]) == {"recursive": (0, 20), "cyclic": (0, 12)}
    assert plan(["recursive", "cyclic"], [3, 8]) == {"recursive": (3, 8), "cyclic": (3, 8)}


def test_each_method_lists_every_port_once_fastest_first_then_those_not_timed():
    _, figures = made_up(LANGUAGES)
    entries = catalogue(figures)
    assert [entry.method for entry in entries] == [method for method in METHODS for _ in LANGUAGES]
    for method in METHODS:
        own = [entry for entry in entries if entry.method == method]
        assert sorted(entry.port for entry in own) == sorted(LANGUAGES)
        speeds = [entry.seconds for entry in own if entry.status is BenchStatus.TIMED]
        assert speeds == sorted(speeds) and len(speeds) >= 21
        statuses = [entry.status for entry in own]
        assert statuses == sorted(statuses, key=lambda status: status is not BenchStatus.TIMED), "those not timed come last"
        swift, julia = (next(entry for entry in own if entry.port == port) for port in ("swift", "julia"))
        assert (swift.status, swift.detail, julia.status, julia.detail) == (BenchStatus.NOT_TIMED, ABSENT, BenchStatus.FAILED, FAILING)
        assert swift.seconds is julia.seconds is None
    by_key = {(entry.port, entry.method): entry for entry in entries}
    # A port that fails at the n timed is listed as failed, though it was timed at n = 0; one whose run broke, as an error.
    assert by_key[("kotlin", "recursive")].status is BenchStatus.FAILED and by_key[("kotlin", "recursive")].detail.startswith("fail at n=20")
    assert by_key[("ruby", "cyclic")].status is BenchStatus.ERROR
    python = by_key[("python", "cyclic")]
    cells = {(cell["port"], cell["method"], cell["n"]): cell for cell in figures["cells"]}
    assert (python.n, python.moves) == (12, 136_383)
    assert python.seconds == cells[("python", "cyclic", 12)]["wall_median"] and python.spread == (python.seconds * 0.95, python.seconds * 1.1)
    assert python.startup == cells[("python", "cyclic", 0)]["wall_median"]
    assert python.reading == pytest.approx(python.seconds / 10) and python.reading_ratio == pytest.approx(0.1)


def test_a_method_timed_at_its_largest_n_within_max_moves_is_summed_up_there():
    """``--n 0,12,20``: the cyclic puzzle at n = 20 is over --max-moves, so its summary is at n = 12, with no fault."""
    cells = [
        timed("c", "cyclic", 0, 0.001), timed("c", "cyclic", 12, 0.1),
        untimed("c", "cyclic", 20, BenchStatus.NOT_TIMED, "423,412,158 moves is over --max-moves 16,777,216"),
    ]
    [entry] = catalogue(bench_to_json(cells, MACHINE, {}, 3))
    assert (entry.status, entry.n, entry.seconds, entry.startup) == (BenchStatus.TIMED, 12, 0.1, 0.001)


def test_the_markdown_has_a_table_a_method_fastest_first_and_says_why_a_port_is_not_timed():
    _, figures = made_up([*LANGUAGES, HOSTILE])
    text = WRITERS["markdown"].figures_text(figures)
    titles = re.findall(r"^## (.*)$", text, re.MULTILINE)
    assert titles == ["binary, n = 20", "recursive, n = 20", "iterative, n = 20", "cyclic, n = 12", "Not timed", "Versions"]
    entries = catalogue(figures)
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith(("| port ", "| --- "))]
    assert len(rows) == len(entries) == 4 * 26
    for row, entry in zip(rows, entries):
        cells = re.split(r"(?<!\\)\|", row)[1:-1]  # a pipe in a port's name is escaped, and splits no cell
        assert len(cells) == 8, row
        assert cells[0].strip() == ("&lt;img src=x onerror=alert(1)&gt; [bold]*x* \\| `tick`" if entry.port == HOSTILE else entry.port)
        assert cells[3].strip() == entry.status.value if entry.status is not BenchStatus.TIMED else cells[1].strip() == str(entry.n)
        assert cells[4].strip() == ("" if entry.status is not BenchStatus.TIMED else figure(entry.cpu))  # CPU seconds beside wall seconds
        assert entry.status is not BenchStatus.TIMED or entry.cpu == pytest.approx(entry.seconds * 0.9)
    assert "<img" not in text
    not_timed = text.split("## Not timed")[1].split("## Versions")[0].strip().splitlines()
    assert not_timed == [
        f"- **julia** (binary, recursive, iterative, cyclic): {FAILING}",
        "- **kotlin** (recursive): fail at n=20, so not timed: line 9: move 9 is (0, 0)",
        "- **ruby** (cyclic): timed out after 120 s",
        f"- **swift** (binary, recursive, iterative, cyclic): {ABSENT}",
    ]
    assert "- **python**: python 1.0" in text
    assert "AMD EPYC, 2 cores" in text and "commit abc1234" in text


def test_the_plot_is_plain_svg_a_bar_a_port_sorted_within_each_method(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # written by the harness alone: an import of it would fail here
    _, figures = made_up([*LANGUAGES, HOSTILE])
    svg = ET.fromstring(bench_svg(figures))
    width, height = float(svg.get("width")), float(svg.get("height"))
    rows = svg.findall(f"{SVG}g")
    entries = catalogue(figures)
    assert len(rows) == len(entries)
    panels: dict[str, list[float]] = {}
    for row, entry in zip(rows, entries):
        tip, name = row.find(f"{SVG}title").text, row.find(f"{SVG}text").text
        assert tip.startswith(f"{entry.port}, {entry.method}")  # the whole name, as text
        assert name == (entry.port if len(entry.port) <= LABEL_CHARS else entry.port[: LABEL_CHARS - 1] + "…")
        bar = row.find(f"{SVG}rect")
        if entry.status is BenchStatus.TIMED:
            panels.setdefault(entry.method, []).append(float(bar.get("width")))
            assert row.find(f"{SVG}path") is not None, "the harness's reading is marked"
            assert (row.find(f"{SVG}line") is not None) is (entry.startup is not None)
        else:
            assert bar is None and entry.status.value in "".join(row.itertext())
    assert list(panels) == list(METHODS)
    for lengths in panels.values():
        assert lengths == sorted(lengths)
    # Each row below the one before, a row apart, and everything within the picture.
    middles = [float(row.find(f"{SVG}text").get("y")) for row in rows]
    assert all(later - earlier >= ROW for earlier, later in zip(middles, middles[1:]))
    for element in svg.iter():
        for attribute in ("x", "x1", "x2"):
            if element.get(attribute):
                assert 0 <= float(element.get(attribute)) <= width
        if element.get("y"):
            assert 0 <= float(element.get("y")) <= height
    labels = [text.text for text in svg.iter(f"{SVG}text")]
    assert {"1 ms", "1 s", "seconds, log scale"} <= set(labels) and "binary, n = 20" in labels and "cyclic, n = 12" in labels
    assert not svg.findall(f".//{SVG}img") and not svg.findall(".//img")


def test_the_same_figures_give_the_same_table_and_plot_in_whatever_order_their_cells_come():
    cells, figures = made_up(LANGUAGES)
    random.Random(1).shuffle(cells)
    shuffled = json.loads(json.dumps(bench_to_json(cells, MACHINE, figures["versions"], 3)))
    assert shuffled["cells"] != figures["cells"]
    assert bench_svg(shuffled) == bench_svg(figures)
    assert WRITERS["markdown"].figures_text(shuffled) == WRITERS["markdown"].figures_text(figures)


def shown(cells: list[BenchCell], figures: dict, width: int, terminal: bool) -> list[str]:
    """The lines render_bench writes on a console of ``width`` columns, a terminal or not."""
    screen = io.StringIO()
    render_bench(Console(file=screen, width=width, force_terminal=terminal, highlight=False, emoji=False), cells, figures)
    return screen.getvalue().splitlines()


@pytest.mark.parametrize(("width", "terminal"), [(120, True), (80, False)])
def test_twenty_five_ports_are_a_row_a_line_on_a_terminal_of_120_columns_and_off_one(width, terminal):
    """On a terminal of 120 columns no row of either table wraps, each port is named whole once a
    section, and a port not timed is one line of its own, its reason widening no column; off a
    terminal, rich's 80 columns wrap nothing either."""
    cells, figures = made_up(LANGUAGES)
    plain = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in shown(cells, figures, width, terminal)]  # the terminal's colours left out
    rows = [line for line in plain if line.startswith("│")]
    timed_cells = [cell for cell in cells if cell.status is BenchStatus.TIMED]
    assert len(rows) == len(timed_cells) + len(catalogue(figures))
    assert all(len(line) <= 120 for line in (plain if terminal else rows))
    assert not any("…" in line for line in plain)
    assert [line for line in plain if line.startswith(("julia (", "swift ("))] == [
        f"julia (binary, recursive, iterative, cyclic): {FAILING}", f"swift (binary, recursive, iterative, cyclic): {ABSENT}",
    ]


def test_text_from_a_port_is_shown_as_typed_on_a_terminal():
    cells, figures = made_up(["python", HOSTILE])
    assert "\n".join(shown(cells, figures, 80, terminal=False)).count(HOSTILE) == 1 + 4 + 2  # its cells, a row a method, its versions


def test_a_cell_that_errors_while_timed_has_its_secrets_masked(monkeypatch):
    """What a port wrote to stderr while it was timed reaches the figures as the cell's detail: a
    token in it is masked, as in every report."""
    token = "glpat-" + "Ti3med-St0derr_" * 2

    class Gate:
        secrets = Secrets({})

    def fails(*_):
        raise BenchError(f"exited with code 1; stderr: deploying with {token}")

    timer = _Timer(None, 1, Gate(), None, None)  # type: ignore[arg-type]
    monkeypatch.setattr(timer, "_harness_reading", fails)
    cell = BenchCell("leaky", "binary", 5)
    timer.time(cell, type("Port", (), {"program": lambda self, method: None})())  # type: ignore[arg-type]
    assert cell.status == BenchStatus.ERROR and cell.detail == "exited with code 1; stderr: deploying with ***", cell.detail
