"""Faulty ports, run beside the real ones: each fault is reported as the right outcome with a detail
that names the port, the line and the rule, and the healthy ports' results are all still there."""

from __future__ import annotations

import shutil

import pytest

from conftest import FAKE_PORTS, HEADLINE, ROOT, harness_here, suite
from harness.model import METHODS
from integration.conftest import compare_json, offered, reference_digest, usable

FAKES = tuple(sorted(path.parent.name for path in FAKE_PORTS.glob("*/language.toml")))
TIMEOUT = 10


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """One compare over the real ports and every fake, n = 0..4: the process, its report, its cells."""
    tmp_path = tmp_path_factory.mktemp("faults")
    root = suite(tmp_path, *FAKES)
    beside_its_sql = root / "sql-negative-n"
    beside_its_sql.unlink()
    shutil.copytree(FAKE_PORTS / "sql-negative-n", beside_its_sql)
    shutil.copy(ROOT / "sql" / "hanoi.sql", beside_its_sql)
    done, report = compare_json(tmp_path, "--n", "0-4", "--timeout", str(TIMEOUT), "--jobs", "4", root=root)
    cells = {(cell["port"], cell["method"], cell["n"]): cell for cell in report["cells"]}
    return done, report, cells


def test_run_fails_but_reports_every_cell(run):
    done, report, cells = run
    assert done.returncode == 1
    assert report["passed"] is False
    assert len(cells) == (len(HEADLINE) + len(FAKES)) * len(METHODS) * 5
    assert "Traceback" not in done.stdout + done.stderr


def test_healthy_ports_still_pass(run):
    _, _, cells = run
    for method in METHODS:
        for n in range(5):
            for port in offered(method, n, HEADLINE):
                cell = cells[(port, method, n)]
                assert cell["outcome"] == "pass", cell
                assert cell["digest"] == reference_digest(n, method)


def test_crash_is_an_error_with_exit_code_and_stderr(run):
    cell = run[2][("crash", "recursive", 3)]
    assert cell["outcome"] == "error"
    assert "exited with code 3 after 2 moves" in cell["detail"]
    assert "fake: simulated crash" in cell["detail"]


def test_hang_is_stopped_at_the_timeout_and_leaves_no_process(run):
    cells = run[2]
    cell = cells[("hang", "binary", 4)]
    assert cell["outcome"] == "error"
    assert cell["detail"] == f"timed out after {TIMEOUT} s, having printed 1 moves"
    assert TIMEOUT <= cell["seconds"] < TIMEOUT + 10
    assert cells[("hang", "recursive", 4)]["outcome"] == "skipped"
    assert "does not offer the recursive method" in cells[("hang", "recursive", 4)]["detail"]


def test_garbage_names_the_line_and_what_was_expected(run):
    cell = run[2][("garbage", "iterative", 4)]
    assert cell["outcome"] == "error"
    assert cell["detail"].startswith("line 3: 'the quick brown fox' matches none of the port's patterns; expected ")
    assert r"(?P<disk>\d+) (?P<src>\d) (?P<dst>\d)" in cell["detail"]


def test_illegal_move_fails_naming_move_and_rule(run):
    cell = run[2][("illegal", "binary", 3)]
    assert cell["outcome"] == "fail"
    assert cell["detail"] == "line 2: move 2 (disc 2 from peg 0 to peg 2): puts disc 2 on smaller disc 1"
    even = run[2][("illegal", "iterative", 4)]
    assert even["detail"] == "line 2: move 2 (disc 2 from peg 0 to peg 1): puts disc 2 on smaller disc 1"
    assert cell["digest"] is None
    assert cell["diff"][2:] == ["@@ -1,5 +1,5 @@", "  1 0 2", "- 2 0 1", "- 1 2 1", "- 3 0 2", "- 1 1 0",
                                "+ 2 0 2", "+ 1 2 1", "+ 3 0 2", "+ 1 1 0"]


def test_wrong_but_legal_sequence_fails_on_the_move_count_with_a_diff(run):
    cells = run[2]
    cell = cells[("detour", "recursive", 2)]
    assert cell["outcome"] == "fail"
    assert cell["detail"] == "line 4: move 4 (disc 2 from peg 0 to peg 2): more moves than the optimal 3 (2^n - 1)"
    assert cell["diff"] == [
        "--- reference", "+++ detour/recursive n=2", "@@ -1,3 +1,5 @@",
        "  1 0 1", "- 2 0 2", "- 1 1 2", "+ 1 1 0", "+ 1 0 1", "+ 2 0 2", "+ 1 1 2",
    ]
    assert cells[("detour", "recursive", 0)]["outcome"] == "fail"  # even no disc at all may not be moved


def test_wrong_disk_number_fails(run):
    cell = run[2][("wrong-disk", "iterative", 4)]
    assert cell["outcome"] == "fail"
    assert cell["detail"] == "line 2: move 2 (disc 3 from peg 0 to peg 2): the top of peg 0 is disc 2, not disc 3"


def test_missing_interpreter_is_skipped_with_how_to_install(run):
    done, report, cells = run
    cell = cells[("missing-interpreter", "binary", 2)]
    assert cell["outcome"] == "skipped"
    assert cell["detail"] == (
        "not installed here: hanoi-interpreter-nobody-has not found on PATH; harness doctor --install --lang missing-interpreter installs it"
        " (apt-get install hanoi-interpreter)"
    )
    assert report["ports"]["missing-interpreter"]["versions"] == {"hanoi-interpreter-nobody-has": None}


def test_broken_manifest_is_an_error_on_each_cell(run):
    cell = run[2][("broken-manifest", "binary", 1)]
    assert cell["outcome"] == "error"
    assert "broken-manifest/language.toml" in cell["detail"]
    assert "needs the named groups src and dst" in cell["detail"]


def test_seed_b_toh_as_printed_is_caught_for_even_n(run):
    cells = run[2]
    for n in (1, 3):
        assert cells[("seed-b_toh", "binary", n)]["outcome"] == "pass"
    for n in (2, 4):
        cell = cells[("seed-b_toh", "binary", n)]
        assert cell["outcome"] == "fail"
        assert cell["detail"].startswith(f"after {2**n - 1} moves the discs are not all on peg 2: peg 0: []; peg 1: [")
        assert cell["diff"][3] == "- 1 0 1"
        assert "+ 1 0 2" in cell["diff"]
    assert cells[("seed-b_toh", "binary", 2)]["diff"][2:] == [
        "@@ -1,3 +1,3 @@", "- 1 0 1", "- 2 0 2", "- 1 1 2", "+ 1 0 2", "+ 2 0 1", "+ 1 2 1",
    ]


def test_seed_i_toh_as_printed_is_caught_for_even_n(run):
    cells = run[2]
    assert cells[("seed-i_toh", "iterative", 3)]["outcome"] == "pass"
    cell = cells[("seed-i_toh", "iterative", 4)]
    assert cell["outcome"] == "fail"
    assert cell["detail"] == "after 15 moves the discs are not all on peg 2: peg 0: []; peg 1: [4, 3, 2, 1]; peg 2: []"


def test_query_that_hangs_is_cancelled_at_the_timeout(run):
    cell = run[2][("sql-hang", "binary", 4)]
    assert cell["outcome"] == "error"
    assert cell["detail"] == f"timed out after {TIMEOUT} s, having printed 0 moves"
    assert TIMEOUT <= cell["seconds"] < TIMEOUT + 10


def test_sql_that_does_not_load_is_an_error_on_each_of_its_cells(run):
    cells = run[2]
    for method in ("binary", "recursive", "iterative"):
        cell = cells[("sql-broken-load", method, 2)]
        assert cell["outcome"] == "error"
        assert cell["detail"].startswith('loading broken.sql into PostgreSQL failed: syntax error at or near "SELEC"')


def test_sql_ports_refusal_of_a_negative_n_shows_on_the_cell(run):
    cells = run[2]
    assert cells[("sql-negative-n", "recursive", 0)]["outcome"] == "pass"
    for n in range(1, 5):
        cell = cells[("sql-negative-n", "recursive", n)]
        assert cell["outcome"] == "error"
        assert cell["detail"] == (
            f"the query failed with SQLSTATE 22023 after 0 moves; the number of discs must be from 0 to 62, not -{n}"
        )


def test_disagreement_is_reported_by_digest(run):
    done, report, _ = run
    group = next(group for group in report["agreement"] if (group["n"], group["puzzle"]) == (4, "classic"))
    assert group["agrees"] is False
    agreeing = group["digests"][reference_digest(4)]
    classic = [method for method in METHODS if METHODS[method].name == "classic"]
    assert {f"{port}/{method}" for method in classic for port in offered(method, 4, HEADLINE)} <= set(agreeing)
    wrong = [labels for digest, labels in group["digests"].items() if digest != reference_digest(4)]
    assert sorted(label for labels in wrong for label in labels) == ["rings/binary", "seed-b_toh/binary", "seed-i_toh/iterative", "streams/binary"]
    assert "n=4 (classic): the ports print 3 different sequences" in done.stdout
    assert "Where the moves part from the reference" in done.stdout


def test_summary_table_shows_each_port(run):
    out = run[0].stdout
    for name in HEADLINE + FAKES:
        assert name in out
    assert "Not all ports pass and agree" in out


def test_the_cyclic_articles_listing_as_printed_is_a_build_error_quoting_the_compiler(run):
    cells = run[2]
    for n in range(5):
        cell = cells[("seed-cyclic", "cyclic", n)]
        assert cell["outcome"] == "error"
        assert cell["detail"].startswith("the build failed with exit code 1: c++ -std=c++20 -o {binary} cyclic.cpp\n")
        assert "error: no match for call to" in cell["detail"]
        assert "transfer<DISCS, A, B>()();" in cell["detail"]


def test_a_classic_move_in_the_cyclic_puzzle_breaks_its_one_way_rule(run):
    cell = run[2][("cyclic-classic", "cyclic", 3)]
    assert cell["outcome"] == "fail"
    assert cell["detail"] == (
        "line 1: move 1 (disc 1 from peg 0 to peg 2): a disc may only go from peg p to peg (p + 1) mod 3"
    )
    assert cell["diff"][3:5] == ["- 1 0 1", "- 1 1 2"]
    assert cell["diff"][-4:] == ["+ 1 0 2", "+ 2 0 1", "+ 1 2 1", "+ 3 0 2"]


def test_a_drawing_two_moves_on_from_the_one_before_is_a_fail_naming_both(run):
    cells = run[2]
    assert cells[("drawings-skip", "cyclic", 1)]["outcome"] == "pass"
    cell = cells[("drawings-skip", "cyclic", 3)]
    assert cell["outcome"] == "fail"
    assert cell["detail"] == (
        "line 16: drawing 4 is not one move on from the drawing before: "
        "A: [2, 3]; B: []; C: [1], then A: [1, 3]; B: [2]; C: []"
    )


def test_a_disc_number_past_ints_digit_limit_is_that_cells_error(run):
    cell = run[2][("huge-disc", "recursive", 2)]
    assert cell["outcome"] == "error"
    assert cell["detail"].startswith("line 1: disk 10000000000000000000... has 5000 digits")


def test_a_disc_number_in_another_scripts_digits_is_an_error(run):
    cell = run[2][("arabic-disc", "recursive", 2)]
    assert cell["outcome"] == "error"
    assert cell["detail"] == "line 1: disk '\u0661' is not a whole number in the digits 0-9"


@pytest.mark.parametrize(
    "port, problem",
    [
        ("manifest-not-utf8", "manifest-not-utf8/language.toml:1: not UTF-8 text: byte 0xe9 at offset 84"),
        ("nul-in-command", "nul-in-command/language.toml:3: 'command' and 'build' may not hold a NUL character"),
        ("sql-unknown-placeholder", "'postgresql.query' must be a query that uses {method} and {n}, and no other {placeholder}"),
        ("misspelt-require", "unknown key 'require'; the keys here are summary, methods"),
        ("deep-array", "deep-array/language.toml: arrays or tables nested too deeply to read"),
        ("deep-groups", "deep-groups/language.toml:8: pattern '" + "(" * 120 + "'… (5,917 more characters) nests its groups 3001 deep; at most 50"),
    ],
)
def test_a_manifest_fault_is_an_error_on_that_ports_cells_only(run, port, problem):
    done, report, cells = run
    for n in range(5):
        cell = cells[(port, "recursive", n)]
        assert cell["outcome"] == "error"
        assert problem in cell["detail"]
    assert problem in report["ports"][port]["problem"]


def test_a_version_command_that_never_stops_is_read_to_its_first_line(run):
    _, report, cells = run
    assert report["ports"]["version-flood"]["versions"] == {"python3": "flood 1.0"}
    assert cells[("version-flood", "recursive", 4)]["outcome"] == "pass"


@pytest.mark.parametrize("isolation", ["subprocess", "sandbox"])
def test_an_illegal_move_then_a_failing_exit_is_the_same_fail_at_every_n_and_every_run(request, tmp_path, isolation):
    """Disc 2 moved from under disc 1, then exit 1 (binary: one legal move more between them): the
    first wrong move is the verdict, as a reader of the output would say, whether the reading stopped
    before the exit was seen or not, at every n from 2 to 10 and in each of ten runs."""
    usable(request, isolation)
    root = suite(tmp_path, "illegal-then-exit", real=())
    for _ in range(10):
        _, report = compare_json(
            tmp_path, "--n", "2-10", "--method", "binary,recursive", "--isolation", isolation, root=root, run=harness_here,
        )
        verdicts = {(cell["method"], cell["n"]): (cell["outcome"], cell["reason"], cell["detail"]) for cell in report["cells"]}
        assert len(verdicts) == 18
        wrong = "line 1: move 1 (disc 2 from peg 0 to peg 2): the top of peg 0 is disc 1, not disc 2"
        assert set(verdicts.values()) == {("fail", "violation", wrong)}, verdicts


CUT_BOARD_MANIFEST = """
command = ["sh", "cut-board.sh", "{method}", "{n}"]
methods = ["recursive"]
[[requires]]
executable = "sh"
[output]
format = "states"
patterns = ['(?P<peg>[012]):(?P<discs>[0-9 ]*)']
pegs = ["0", "1", "2"]
"""


def test_a_last_line_the_time_out_cut_short_is_no_fault_of_the_port(tmp_path):
    """A port stopped at its deadline in the middle of a line never finished writing it: the cell is
    its time-out, not a fail on the half line (a board that reads as one with a disc gone)."""
    folder = tmp_path / "ports" / "cut-board"
    folder.mkdir(parents=True)
    (folder / "language.toml").write_text(CUT_BOARD_MANIFEST)
    # n = 2's first three boards as the C port draws them, the third cut where a write ended ("2:"
    # and no line ending: read whole, a board with disc 2 gone), then silence until the harness ends it.
    (folder / "cut-board.sh").write_text("printf '0: 2 1\\n1:\\n2:\\n\\n0: 2\\n1: 1\\n2:\\n\\n0:\\n1: 1\\n2: '\nexec sleep 600\n")
    root = folder.parent
    done, report = compare_json(tmp_path, "--n", "2", "--timeout", "3", root=root)
    assert done.returncode == 1, done.stdout + done.stderr
    [cell] = [cell for cell in report["cells"] if cell["method"] == "recursive"]
    assert (cell["outcome"], cell["reason"]) == ("error", "timeout"), cell
    assert cell["detail"].startswith("timed out after 3 s, having printed 1 moves"), cell
