"""harness bench: only correct cells are timed (a port that fails at the gate's n or its own is
listed as failed), every figure is there and plausible, the JSON, the Markdown table and the plot
are written, by default at the catalogue's n, and cells that would run too long are left out with
the reason."""

from __future__ import annotations

import json
import re
import resource
import subprocess
import sys

import pytest

from conftest import ROOT, suite
from harness.model import METHODS
from integration.conftest import harness, needs_bubblewrap

SHORT_PAST_FIVE = """import sys

def optimal(n, src=0, dst=2, spare=1):
    if n:
        yield from optimal(n - 1, src, spare, dst)
        yield n, src, dst
        yield from optimal(n - 1, spare, dst, src)

n = int(sys.argv[1])
moves = list(optimal(n))
for move in moves[: len(moves) - (n > 5)]:
    print(*move)
"""


def short_past_five(folder):
    """A port right at the gate's n = 5 that stops a move short past it."""
    folder.mkdir()
    (folder / "hanoi.py").write_text(SHORT_PAST_FIVE)
    (folder / "language.toml").write_text(
        'summary = "fake: a move short past n = 5"\ncommand = ["python3", "hanoi.py", "{n}"]\nmethods = ["recursive"]\n\n'
        '[[requires]]\nexecutable = "python3"\n\n[output]\npatterns = [\'(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)\']\npegs = ["0", "1", "2"]\n'
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """One small bench over real ports and faulty ones: the process, its JSON, its cells by key, the plot and the Markdown table."""
    tmp_path = tmp_path_factory.mktemp("bench")
    root = suite(tmp_path, "illegal", real=("python", "cpp", "sql"))
    short_past_five(root / "short")
    out, plot, table = tmp_path / "bench.json", tmp_path / "bench.svg", tmp_path / "bench.md"
    done = harness(
        "--root", str(root), "bench", "--n", "4,9", "--method", "recursive,cyclic", "--repeat", "2",
        "--max-moves", "5000", "--json", str(out), "--plot", str(plot), "--markdown", str(table),
    )
    data = json.loads(out.read_text())
    cells = {(cell["port"], cell["method"], cell["n"]): cell for cell in data["cells"]}
    return done, data, cells, plot, table


def test_bench_times_each_passing_cell_port_alone_and_the_harness_on_its_output(report):
    done, data, cells, _, _ = report
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
            assert isinstance(cell["load_average"], float) and cell["load_average"] >= 0  # how busy the machine was as it was timed
            if port == "sql":  # a query prints to the harness, whatever it does
                assert (cell["devnull_runs"], cell["devnull_median"]) == ([], None)
            else:
                assert len(cell["devnull_runs"]) == 2 and cell["devnull_median"] > 0
        # Each port and method is summed up at its largest n, in a table of its own.
        assert cells[(port, "recursive", 9)]["largest_n"] and not cells[(port, "recursive", 4)]["largest_n"]
        assert cells[(port, "cyclic", 4)]["largest_n"]  # its n = 9 is over --max-moves
    assert "reading / port" in done.stdout
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


def test_a_port_that_fails_the_gate_is_listed_as_failed_not_timed(report):
    done, _, cells, _, _ = report
    for n in (4, 9):
        cell = cells[("illegal", "recursive", n)]
        assert (cell["status"], cell["runs"], cell["harness_seconds"]) == ("failed", [], None)
        assert cell["detail"].startswith("fail at n=5, so not timed: line 2: move 2")
    skipped = cells[("illegal", "cyclic", 4)]
    assert skipped["status"] == "not timed" and skipped["detail"].startswith("skipped at n=5")
    assert done.returncode == 0, "a port's failure is a finding of the bench, not its own"


def test_a_port_whose_output_does_not_verify_at_the_n_timed_is_listed_as_failed_not_timed(report):
    """Its first run at that n, the warm-up, is read as compare reads it: a port that goes wrong past the gate's n is not timed."""
    _, _, cells, _, table = report
    assert cells[("short", "recursive", 4)]["status"] == "timed"
    wrong = cells[("short", "recursive", 9)]
    assert (wrong["status"], wrong["runs"], wrong["compare_runs"], wrong["harness_seconds"]) == ("failed", [], [], None)
    assert wrong["detail"].startswith("fail at n=9, so not timed: ")
    assert "| short |  |  | failed |" in table.read_text()


def test_the_report_says_what_is_needed_to_reproduce_it(report):
    done, data, _, _, _ = report
    machine = data["machine"]
    assert machine["cores"] >= 1 and machine["os"] and machine["python"]
    assert machine["commit"]
    assert data["versions"]["sql"]["postgresql"].startswith("PostgreSQL ")
    assert data["versions"]["cpp"]["c++"]
    assert f"{machine['cores']} cores" in done.stdout


def test_the_table_and_the_plot_sum_up_each_port_and_method_from_the_json(report):
    """Both are made from the JSON figures alone: made again from the file, they are the same bytes."""
    from harness.bench import bench_svg
    from harness.report import WRITERS

    _, data, _, plot, table = report
    text = table.read_text()
    for heading in ("## recursive, n = 9", "## cyclic, n = 4", "## Not timed"):
        assert heading in text
    assert "- **illegal** (recursive): fail at n=5, so not timed: line 2: move 2" in text
    drawn = plot.read_text()
    assert drawn.startswith("<svg") and "recursive, n = 9" in drawn and "seconds, log scale" in drawn
    for port in ("python", "cpp", "sql", "illegal", "short"):
        assert f">{port}</text>" in drawn and f"| {port} |" in text
    assert (WRITERS["markdown"].figures_text(data), bench_svg(data)) == (text, drawn)


def test_the_plot_must_be_svg():
    done = harness("bench", "--n", "3", "--plot", "bench.png")
    assert done.returncode == 2
    assert "the plot is an .svg file" in done.stderr


def test_without_n_each_method_is_timed_at_the_catalogues_n_its_start_up_at_n_0():
    """The classic methods at 0 and 20, the cyclic at 0 and 12; the start-up that compare adds is
    measured once, at n = 0, by that cell's own runs."""
    done = harness("--root", str(ROOT), "bench", "--port", "python", "--method", "recursive,cyclic", "--repeat", "1", "--json", "-")
    assert done.returncode == 0, done.stderr
    cells = {(cell["method"], cell["n"]): cell for cell in json.loads(done.stdout)["cells"]}
    assert list(cells) == [("recursive", 0), ("recursive", 20), ("cyclic", 0), ("cyclic", 12)]
    assert all(cell["status"] == "timed" for cell in cells.values())
    for method, top in (("recursive", 20), ("cyclic", 12)):
        at_zero = cells[(method, 0)]
        assert at_zero["startup_seconds"] == pytest.approx(max(at_zero["compare_median"] - at_zero["wall_median"], 0))
        assert cells[(method, top)]["startup_seconds"] == at_zero["startup_seconds"]
    assert "Each port and method at its largest n" in done.stderr


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
    # Python's own start is some hundredths of a second of CPU, bubblewrap's a few thousandths: the
    # port's is what is counted. (Outside, python3 may be a slower wrapper the sandbox does not show.)
    assert alone["status"] == "timed" and sandboxed["cpu_median"] > 0.01
    limited = harness(
        "--root", str(ROOT), "bench", "--port", "python", "--method", "recursive", "--n", "9", "--repeat", "1",
        "--isolation", "sandbox", "--memory", "1M", "--json", "-",
    )
    cell = json.loads(limited.stdout)["cells"][0]
    assert (cell["status"], cell["runs"]) == ("failed", [])
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
    said = [line for line in done.stderr.splitlines() if not re.fullmatch(r"harness: \d+ of \d+ done after .*", line)]  # a busy machine's heartbeat
    assert said == [
        f"harness: cannot write the JSON figures to {out}: File too large", f"harness: cannot write the plot to {plot}: File too large",
    ]
    assert [path.read_text() for path in (out, plot)] == ["the figures of the run before\n"] * 2
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bench.json", "bench.svg"]
    assert not (ROOT / ".git" / "index.lock").exists()  # the commit was read, and nothing of the checkout written


SLOW_TO_DEVNULL = """\
import os, sys, time

if os.fstat(1).st_rdev == os.stat("/dev/null").st_rdev and not os.isatty(1):
    time.sleep(60)  # slow only where its output is thrown away
n = int(sys.argv[1])
def moves(n, source, target, spare):
    if n:
        yield from moves(n - 1, source, spare, target)
        yield n, source, target
        yield from moves(n - 1, spare, target, source)
for move in moves(n, 0, 2, 1):
    print(*move)
"""


def test_a_run_to_dev_null_past_the_time_out_says_it_timed_out(tmp_path):
    """The run to /dev/null is killed at the time-out like any other: it says so, not "killed by SIGKILL",
    which a port that crashed would say."""
    folder = tmp_path / "ports" / "slow-sink"
    folder.mkdir(parents=True)
    (folder / "hanoi.py").write_text(SLOW_TO_DEVNULL)
    (folder / "language.toml").write_text(
        'summary = "fake: slow when its output goes to /dev/null"\ncommand = ["python3", "hanoi.py", "{n}"]\nmethods = ["recursive"]\n\n'
        '[[requires]]\nexecutable = "python3"\n\n[output]\npatterns = [\'(?P<disk>\\d+) (?P<src>\\d) (?P<dst>\\d)\']\npegs = ["0", "1", "2"]\n'
    )
    done = harness("--root", str(tmp_path / "ports"), "bench", "--n", "6", "--method", "recursive", "--repeat", "1", "--timeout", "3", "--json", "-")
    [cell] = json.loads(done.stdout)["cells"]
    assert cell["status"] == "error", cell
    assert cell["detail"].startswith("the port, writing to /dev/null: timed out after 3 s"), cell["detail"]
