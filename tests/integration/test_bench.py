"""harness bench: only correct cells are timed, every figure is there and plausible, the JSON and the
plot are written, and cells that would run too long are left out with the reason."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

from conftest import ROOT, harness, needs_bubblewrap, suite
from harness.model import METHODS


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One small bench over real ports and a faulty one: the process, its JSON, its cells by key."""
    tmp_path = tmp_path_factory.mktemp("bench")
    root = suite(tmp_path, "illegal", real=("python", "cpp", "sql"))
    out, plot = tmp_path / "bench.json", tmp_path / "bench.svg"
    done = harness(
        "--root", str(root), "bench", "--n", "4,9", "--method", "recursive,cyclic", "--repeat", "2",
        "--max-moves", "5000", "--json", str(out), "--plot", str(plot),
    )
    data = json.loads(out.read_text())
    cells = {(cell["port"], cell["method"], cell["n"]): cell for cell in data["cells"]}
    return done, data, cells, plot


def test_bench_times_each_passing_cell_port_alone_and_the_harness_on_its_output(report):
    done, data, cells, _ = report
    assert done.returncode == 0, done.stdout + done.stderr
    for port in ("python", "cpp", "sql"):
        for method, n in [("recursive", 4), ("recursive", 9), ("cyclic", 4)]:
            cell = cells[(port, method, n)]
            assert cell["status"] == "timed", cell
            assert cell["moves"] == METHODS[method].optimal_count(n)
            assert len(cell["runs"]) == 2
            assert all(run["moves"] == cell["moves"] and run["wall"] > 0 for run in cell["runs"])
            assert cell["wall_range"][0] <= cell["wall_median"] <= cell["wall_range"][1]
            assert cell["moves_per_second"] == pytest.approx(cell["moves"] / cell["wall_median"])
            assert cell["harness_moves_per_second"] > 0
            # harness compare as a whole process: its interpreter's start, the port's run and the verdict
            assert len(cell["compare_runs"]) == 2 and cell["compare_median"] > cell["wall_median"] and cell["startup_seconds"] > 0
            assert cell["ratio"] == pytest.approx(cell["compare_median"] / cell["wall_median"])
            assert cell["reading_ratio"] == pytest.approx(cell["harness_seconds"] / cell["wall_median"])
            if port == "sql":  # a query prints to the harness, whatever it does
                assert (cell["devnull_runs"], cell["devnull_median"]) == ([], None)
            else:
                assert len(cell["devnull_runs"]) == 2 and cell["devnull_median"] > 0
        # Each port and method is summed up at its largest n, in a table of its own.
        assert cells[(port, "recursive", 9)]["largest_n"] and not cells[(port, "recursive", 4)]["largest_n"]
        assert cells[(port, "cyclic", 4)]["largest_n"]  # its n = 9 is over --max-moves
    assert "reading / pipe" in done.stdout
    # The start-up is one figure a port and method, whatever n.
    assert cells[("python", "recursive", 4)]["startup_seconds"] == cells[("python", "recursive", 9)]["startup_seconds"]
    # The SQL port's memory and CPU are those of the server process that ran its query.
    assert cells[("sql", "recursive", 9)]["peak_mb_median"] > 1
    assert cells[("python", "recursive", 9)]["cpu_median"] > 0


def test_a_cell_over_max_moves_is_not_timed_and_says_why(report):
    cell = report[2][("python", "cyclic", 9)]
    assert cell["status"] == "not timed"
    assert cell["detail"] == f"{METHODS['cyclic'].optimal_count(9):,} moves is over --max-moves 5,000"
    assert cell["runs"] == []


def test_a_port_that_fails_the_gate_is_reported_not_timed(report):
    _, _, cells, _ = report
    for n in (4, 9):
        cell = cells[("illegal", "recursive", n)]
        assert cell["status"] == "not timed"
        assert cell["detail"].startswith("fail at n=5, so not timed: line 2: move 2")
    assert cells[("illegal", "cyclic", 4)]["detail"].startswith("skipped at n=5")


def test_the_report_says_what_is_needed_to_reproduce_it(report):
    done, data, _, _ = report
    machine = data["machine"]
    assert machine["cores"] >= 1 and machine["os"] and machine["python"]
    assert machine["commit"]
    assert data["versions"]["sql"]["postgresql"].startswith("PostgreSQL ")
    assert data["versions"]["cpp"]["c++"]
    assert f"{machine['cores']} cores" in done.stdout


def test_the_plot_is_an_svg_with_a_line_per_port(report):
    plot = report[3]
    text = plot.read_text()
    assert text.startswith("<?xml") and "<svg" in text
    for label in ("python", "cpp", "sql", "recursive", "log scale"):
        assert label in text


def test_plot_must_be_svg_or_png():
    done = harness("bench", "--n", "3", "--plot", "bench.pdf")
    assert done.returncode == 2
    assert "the plot is an .svg or a .png file" in done.stderr


@needs_bubblewrap
def test_bench_times_cells_in_the_sandbox_through_the_same_runner(tmp_path, report):
    """In the sandbox the port runs under bubblewrap; its CPU is still the port's own, not the
    wrapper's, and a limit the run sets holds there too."""
    out = tmp_path / "bench.json"
    done = harness(
        "--root", str(ROOT), "bench", "--port", "python", "--method", "recursive", "--n", "9", "--repeat", "2",
        "--isolation", "sandbox", "--json", str(out),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text())
    assert data["machine"]["isolation"] == "sandbox"
    sandboxed = data["cells"][0]
    alone = report[2][("python", "recursive", 9)]
    assert sandboxed["status"] == "timed", sandboxed
    assert sandboxed["cpu_median"] > alone["cpu_median"] / 2
    limited = harness(
        "--root", str(ROOT), "bench", "--port", "python", "--method", "recursive", "--n", "9", "--repeat", "1",
        "--isolation", "sandbox", "--memory", "1M", "--json", "-",
    )
    cell = json.loads(limited.stdout)["cells"][0]
    assert (cell["status"], cell["runs"]) == ("not timed", [])
    assert cell["detail"].startswith("error at n=5, so not timed: used more than 1 MiB of memory after 0 moves")


def test_figures_and_a_plot_that_do_not_fit_on_the_disk_leave_the_previous_ones(tmp_path):
    """Files limited to 1 KiB (RLIMIT_FSIZE), as a disk that fills: neither the JSON figures nor the
    plot fit, each is named, and each file before them is there as it was, nothing beside it."""
    out, plot = tmp_path / "bench.json", tmp_path / "bench.svg"
    for path in (out, plot):
        path.write_text("the figures of the run before\n")
    done = subprocess.run(
        [sys.executable, "-m", "harness", "bench", "--n", "1", "--port", "python", "--method", "recursive", "--repeat", "1",
         "--json", str(out), "--plot", str(plot)],
        cwd=ROOT, capture_output=True, text=True, timeout=300,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (1024, 1024)),
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.splitlines() == [
        f"harness: cannot write the JSON figures to {out}: File too large", f"harness: cannot write the plot to {plot}: File too large",
    ]
    assert [path.read_text() for path in (out, plot)] == ["the figures of the run before\n"] * 2
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bench.json", "bench.svg"]
    assert not (ROOT / ".git" / "index.lock").exists()  # the commit was read, and nothing of the checkout written
